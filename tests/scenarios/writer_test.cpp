// to_yaml: what it writes loads back to the same scenario (shrunk failures are written
// out this way), and it reads like a hand-written file.
#include <rapidcheck.h>
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "scenarios/scenario_support.hpp"
#include "toolwire/scenarios/builders.hpp"
#include "toolwire/scenarios/loader.hpp"

using namespace toolwire::scenario_test;
using toolwire::scenarios::load_text;
using toolwire::scenarios::scenario;
using toolwire::scenarios::to_yaml;
namespace build = toolwire::scenarios::build;

namespace {

scenario reloaded(const scenario& plan) {
  const std::string text = to_yaml(plan);
  INFO(text);
  auto result = load_text(text, plan.name + ".yaml");
  if (!result.ok()) FAIL(result.error().message);
  return *result;
}

//! Strings that stress quoting: YAML indicators, look-alikes of numbers, booleans and
//! null, spaces at the ends, line breaks, and non-ASCII text.
rc::Gen<std::string> awkward_string() {
  return rc::gen::oneOf(
      rc::gen::element<std::string>("", "~", "null", "true", "False", "12", "-3", "1.5e3", ".5",
                                    "0x1F", "yes", "- x", "a: b", "#c", "&a", "*a", "!t", "|", ">",
                                    "%", "@", "`", "'q'", "\"q\"", "{x}", "[x]", "?", "<<", "12s",
                                    " lead", "trail ", "a\nb", "tab\there", "日本語", "é"),
      rc::gen::container<std::string>(rc::gen::element(' ', 'a', 'Z', '0', '9', ':', '-', '#', '"',
                                                       '\'', '\n', '{', '}', '[', ']', ',', '~')));
}

//! Any JSON value, nested at most `depth` deep, at most 8 items a level (so a case stays
//! small enough to run hundreds of).
rc::Gen<json> any_json(int depth) {
  const auto scalar = rc::gen::oneOf(
      rc::gen::map(awkward_string(), [](std::string s) { return json(std::move(s)); }),
      rc::gen::map(rc::gen::arbitrary<std::int64_t>(), [](std::int64_t n) { return json(n); }),
      rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return json(b); }),
      rc::gen::map(rc::gen::inRange(-1000, 1000), [](int n) { return json(n / 8.0); }),
      rc::gen::just(json(nullptr)));
  if (depth == 0) return scalar;
  return rc::gen::resize(
      8,
      rc::gen::oneOf(
          scalar,
          rc::gen::map(rc::gen::container<std::vector<json>>(any_json(depth - 1)),
                       [](std::vector<json> items) { return json(std::move(items)); }),
          rc::gen::map(rc::gen::container<std::map<std::string, json>>(awkward_string(),
                                                                       any_json(depth - 1)),
                       [](std::map<std::string, json> items) { return json(std::move(items)); })));
}

}  // namespace

TEST_CASE("to_yaml round-trips any JSON a scenario carries", "[scenarios][writer]") {
  rc::prop("content, names and args come back as they were", [] {
    scenario plan;
    plan.name = *awkward_string();
    plan.purpose = "p";
    plan.spec_ids = {"CALL-4"};
    auto client = build::client("tab", *awkward_string(), {build::tool(*awkward_string())});
    client.result_content = *any_json(3);
    client.auto_join = false;
    client.acks = false;
    client.answers = false;
    plan.clients = {client};
    plan.steps = {
        {0, "tab", "result", {{"call", *awkward_string()}, {"content", *any_json(3)}}, {}, ""}};
    const auto text = to_yaml(plan);
    const auto back = load_text(text, "any.yaml");
    RC_LOG() << text;
    RC_ASSERT(back.ok());
    RC_ASSERT(back->name == plan.name);
    RC_ASSERT(back->clients[0].requested_name == client.requested_name);
    RC_ASSERT(back->clients[0].tools == client.tools);
    RC_ASSERT(back->clients[0].result_content == client.result_content);
    RC_ASSERT(back->steps[0].args == plan.steps[0].args);
  });
}

TEST_CASE("load(to_yaml(s)) == s for a rich scenario", "[scenarios][writer]") {
  auto plan = load_text(rich_example, "tab_closes_mid_call.yaml");
  REQUIRE(plan.ok());
  check_same_scenario(without_places(reloaded(*plan)), without_places(*plan));
}

TEST_CASE("load(to_yaml(s)) == s for every scenario of the library", "[scenarios][writer]") {
  // Hand-written stories with presets, knobs, scripted steps and expectations of every
  // kind: what `explore` writes out must read back as the scenario it ran.
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(TOOLWIRE_SCENARIOS_DIR) + "/library")) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 25);
  for (const auto& file : files) {
    INFO(file);
    auto plan = toolwire::scenarios::load_file(file);
    if (!plan) FAIL(plan.error().message);
    check_same_scenario(without_places(reloaded(*plan)), without_places(*plan));
  }
}

TEST_CASE("a browser client and its tab steps read back as written", "[scenarios][writer]") {
  // Why not in the library round trip: written out, a file's times are instants, and a
  // file of instants with settings reads as bound to them (exact_timing), which the
  // original, written from the TTL, is not. What the writer owes a tab is its kind.
  auto plan = toolwire::scenarios::load_file(std::string(TOOLWIRE_SCENARIOS_DIR) +
                                             "/library/browser/two_tabs_of_one_app.yaml");
  REQUIRE(plan.ok());
  const auto again = reloaded(*plan);
  REQUIRE(again.clients.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(again.clients[i].browser);
    CHECK(again.clients[i].requested_name == "shop");
    CHECK(again.clients[i].lifetime.seconds == 3);
    CHECK(again.clients[i].tools == plan->clients[i].tools);
  }
  REQUIRE(again.steps.size() == plan->steps.size());
  for (std::size_t i = 0; i < again.steps.size(); ++i) {
    CHECK(again.steps[i].actor == plan->steps[i].actor);
    CHECK(again.steps[i].action == plan->steps[i].action);
    CHECK(again.steps[i].args == plan->steps[i].args);
  }
  CHECK(std::count(again.needs.begin(), again.needs.end(), "browser") == 1);
}

TEST_CASE("to_yaml quotes strings that would read back as something else", "[scenarios][writer]") {
  scenario plan;
  plan.name = "12";
  plan.purpose = "true";
  plan.spec_ids = {"C-1"};
  auto client = build::client("tab", "null", {build::tool("~"), build::tool("x", "1.5")});
  client.result_content = {{"n", "42"}, {"empty", ""}, {"lines", "a\nb"}, {"number", 42}};
  client.auto_join = false;
  client.acks = false;
  client.answers = false;
  plan.clients = {client};
  plan.steps = {{0, "tab", "result", {{"call", "3"}, {"content", "yes"}}, {}, ""},
                {0, "tab", "ack", {{"call", 3}}, {}, ""}};
  check_same_scenario(without_places(reloaded(plan)), plan);
}

TEST_CASE("to_yaml writes durations, tools by name and the director implicitly",
          "[scenarios][writer]") {
  scenario plan;
  plan.name = "short";
  plan.purpose = "p";
  plan.spec_ids = {"CALL-3"};
  plan.duration = 90'000;
  plan.steps = {build::message_at(1'500, "hello"),
                {2'000,
                 "director",
                 "create_task",
                 {{"task", "t"},
                  {"tools", json::array({{{"name", "lookup"},
                                          {"description", build::tool("lookup").description},
                                          {"input_schema", {{"type", "object"}}}}})}},
                 {},
                 ""}};
  CHECK(to_yaml(plan) ==
        "name: short\n"
        "purpose: p\n"
        "spec: [CALL-3]\n"
        "duration: 90s\n"
        "steps:\n"
        "  - at: 1500ms\n"
        "    post_message: {content: hello}\n"
        "  - at: 2s\n"
        "    create_task: {task: t, tools: [lookup]}\n");
}
