// The scenario loader: a full example read into the scenario the simulator runs, and the
// format's rules for defaults, times, presets and files.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include "scenarios/scenario_support.hpp"
#include "toolwire/scenarios/builders.hpp"
#include "toolwire/scenarios/loader.hpp"

using namespace toolwire::scenario_test;
using toolwire::protocol::lifetime;
using toolwire::scenarios::client_spec;
using toolwire::scenarios::expectation;
using toolwire::scenarios::load_file;
using toolwire::scenarios::load_text;
using toolwire::scenarios::scenario;
using toolwire::scenarios::scripted_step;
namespace build = toolwire::scenarios::build;

namespace {

const std::string source = "tab_closes_mid_call.yaml";

//! "file:line" of the line that holds `needle`, or of the line `above` lines up from it.
std::string where(const std::string& needle, int above = 0) {
  return source + ":" + std::to_string(line_of(rich_example, needle) - above);
}

json tool_json(const std::string& name, json parameters = {{"type", "object"}},
               const std::string& schema_key = "parameters") {
  return {{"name", name},
          {"description", build::tool(name).description},
          {schema_key, std::move(parameters)}};
}

std::vector<client_spec> expected_clients() {
  client_spec tab = build::client("tab", "web", {build::tool("read_form")});
  tab.tools.push_back({"save",
                       "Saves the form",
                       {{"type", "object"}, {"properties", {{"id", {{"type", "integer"}}}}}}});
  tab.lifetime = {lifetime::kind::ttl, 30};
  tab.join_at = 1'000;
  tab.ping_every = 10'000;  // browser_tab: a third of the TTL
  tab.vanish_at = 20'000;
  tab.result_delay = 2'500;
  tab.result_content = {{"saved", true}, {"n", "12"}};

  // No presets and no `join`: the steps drive it.
  client_spec worker = build::client("worker", "worker", build::tools({"lookup"}));
  worker.auto_join = false;
  worker.acks = false;
  worker.answers = false;

  client_spec slowpoke = build::client("slowpoke", "slowpoke", {});
  slowpoke.ack_delay = 1'000;
  slowpoke.answers = false;  // the knob overrides `slow`
  slowpoke.screens = {{3'000, build::tools({"lookup", "edit"})}};
  return {tab, worker, slowpoke};
}

std::vector<scripted_step> expected_steps() {
  const auto response = [](json args, std::vector<std::string> ids, const std::string& at) {
    return expectation{"response", std::move(args), std::move(ids), where(at)};
  };
  return {
      {2'000,
       "worker",
       "register",
       {{"name", "backend"}, {"lifetime", "never"}},
       {response({{"status", 201}}, {"REG-1"}, "expect: {status: 201")},
       where("- at: 2s")},
      {3'000,
       "director",
       "post_message",
       {{"content", "fill the form"}},
       {response({{"status", 202}}, {"SES-2"}, "status: 202")},
       where("- after: 1s")},
      {40'000,
       "director",
       "",
       json::object(),
       {{"event",
         {{"type", "client_tool_failed"}, {"reason", "client_expired"}, {"client_id", "{cid:tab}"}},
         {"LIFE-5"},
         where("- event:")},
        {"call_settled",
         {{"call", 1}, {"outcome", "failed"}, {"reason", "client_expired"}},
         {"CALL-5"},
         where("- call_settled:")},
        {"model_received",
         {{"tool", "web__read_form"}, {"error", "client_expired"}},
         {"LIFE-5"},
         where("- model_received:")}},
       where("- at: 40s")},
      {40'000, "director", "advance", {{"by", 5'000}}, {}, where("- advance:")},
      {45'000,
       "worker",
       "put_tools",
       {{"tools",
         {tool_json("a"), tool_json("b", {{"type", "object"}, {"required", json::array({"x"})}})}}},
       {response({{"status", 200}}, {"TOOLS-1"}, "expect: {status: 200")},
       where("put_tools:", 1)},
      {45'000,
       "worker",
       "result",
       {{"call", "read_form"}, {"content", "42"}},
       {},
       where("result: {call", 1)},
      {45'000,
       "director",
       "create_task",
       {{"task", "t1"},
        {"input", "hi"},
        {"tools", {tool_json("lookup", {{"type", "object"}}, "input_schema")}}},
       {response({{"status", 201}, {"body", {{"status", "pending"}}}}, {"TASK-1"},
                 "expect: [{status: 201")},
       where("- create_task:")},
      {105'000,
       "director",
       "request",
       {{"method", "GET"}, {"path", "/v1/sessions/{sid}"}, {"credential", "none"}},
       {response({{"status", 401}, {"error", "unauthenticated"}}, {"AUTH-2"},
                 "expect: {status: 401")},
       where("- after: 1m")},
  };
}

scenario expected_scenario() {
  scenario plan;
  plan.name = "tab_closes_mid_call";
  plan.purpose = "A tab's TTL lapses while a call is open; the turn still completes.";
  plan.spec_ids = {"LIFE-2", "LIFE-5", "CALL-5"};
  plan.breaks_with = {"vanished_calls_left_open"};
  // exact_timing by itself: the file states timeouts and writes its times as instants.
  plan.needs = {"part_a", "virtual_clock", "exact_timing"};
  plan.duration = 120'000;
  plan.ack_timeout_ms = 5'000;
  plan.result_timeout_ms = 20'000;
  plan.clients = expected_clients();
  toolwire::scenarios::task_caller_spec caller;
  caller.actor = "caller";
  caller.start_at = 1'000;
  caller.input = "look it up";
  caller.client_tools = build::tools({"lookup"});
  caller.poll_every = 500;
  caller.error_results = true;
  plan.task_callers = {caller};
  plan.model_script = json::parse(R"({"rules": [{"match": "fill the form", "steps": [
      {"tool_calls": [{"name": "web__read_form", "arguments": {}}], "hold_ms": 500},
      {"content": "done"}]}]})");
  plan.steps = expected_steps();
  return plan;
}

scenario loaded(const std::string& text, const std::string& name = "s.yaml") {
  auto result = load_text(text, name);
  INFO(text);
  if (!result.ok()) FAIL(result.error().message);
  return *result;
}

}  // namespace

TEST_CASE("a full example loads to the scenario it describes", "[scenarios][loader]") {
  check_same_scenario(loaded(rich_example, source), expected_scenario());
}

TEST_CASE("defaults: name from the file, settings and duration as scenario.hpp has them",
          "[scenarios][loader]") {
  const auto plan = loaded("purpose: p\nspec: [C-1]\n", "dir/web-tab.yaml");
  CHECK(plan.name == "web-tab");
  const scenario defaults;
  CHECK(plan.duration == defaults.duration);
  CHECK(plan.ack_timeout_ms == defaults.ack_timeout_ms);
  CHECK(plan.result_timeout_ms == defaults.result_timeout_ms);
  CHECK(plan.interrupt_timeout_ms == defaults.interrupt_timeout_ms);
  CHECK(plan.model_script == defaults.model_script);
  CHECK(plan.steps.empty());
}

TEST_CASE("durations: ms, s, m, h or an integer of milliseconds", "[scenarios][loader]") {
  const auto [written, ms] = GENERATE(table<std::string, std::int64_t>({{"500ms", 500},
                                                                        {"12s", 12'000},
                                                                        {"2m", 120'000},
                                                                        {"1h", 3'600'000},
                                                                        {"750", 750},
                                                                        {"0", 0}}));
  CAPTURE(written);
  CHECK(loaded("purpose: p\nspec: [C-1]\nduration: " + written + "\n").duration == ms);
}

TEST_CASE("step times: at is absolute, after is relative, none repeats, advance moves on",
          "[scenarios][loader]") {
  const auto plan = loaded(
      "purpose: p\nspec: [C-1]\nsteps:\n"
      "  - {after: 2s}\n"                  // 2s: after the start
      "  - {}\n"                           // 2s: the previous step's time
      "  - {at: 5s}\n"                     // 5s
      "  - {after: 500ms}\n"               // 5.5s
      "  - {advance: {by: 1m}}\n"          // 5.5s, and the clock moves to 65.5s
      "  - {}\n"                           // 65.5s
      "  - {at: 70s, advance: {by: 0}}\n"  // 70s
      "  - {after: 1s}\n");                // 71s
  std::vector<std::int64_t> times;
  for (const auto& step : plan.steps)
    times.push_back(step.at);
  CHECK(times ==
        std::vector<std::int64_t>{2'000, 2'000, 5'000, 5'500, 5'500, 65'500, 70'000, 71'000});
}

TEST_CASE("client presets set knobs; written knobs override them", "[scenarios][loader]") {
  const auto clients = loaded(
                           "purpose: p\nspec: [C-1]\nclients:\n"
                           "  tab: {lifetime: {ttl: 9}, behaviour: [browser_tab], ping_every: 2s}\n"
                           "  gone: {behaviour: [forgetful]}\n"
                           "  twice: {behaviour: [forgetful, duplicating]}\n"
                           "  wrong: {behaviour: [erroring], join: 3s}\n"
                           "  joiner: {join: 4s}\n"
                           "  nav: {behaviour: [navigating_tab], screens: [{at: 1s}]}\n")
                           .clients;
  REQUIRE(clients.size() == 6);
  CHECK(clients[0].ping_every == 2'000);
  CHECK(clients[0].lifetime == lifetime{lifetime::kind::ttl, 9});
  CHECK((clients[0].acks && clients[0].answers && clients[0].auto_join));
  CHECK((!clients[1].acks && !clients[1].answers && clients[1].auto_join));
  CHECK((!clients[2].acks && clients[2].answers && clients[2].duplicate_result));
  CHECK((clients[3].error_result && clients[3].answers && clients[3].join_at == 3'000));
  CHECK((clients[4].auto_join && clients[4].acks && clients[4].answers));
  CHECK(clients[4].join_at == 4'000);
  REQUIRE(clients[5].screens.size() == 1);
  CHECK(clients[5].screens[0].at == 1'000);
  CHECK(clients[5].screens[0].tools.empty());
}

TEST_CASE("quoted scalars stay strings; plain ones may be numbers, booleans or null",
          "[scenarios][loader]") {
  const auto plan = loaded(
      "purpose: p\nspec: [C-1]\nclients: {tab: {}}\nsteps:\n"
      "  - actor: tab\n"
      "    result: {call: 2, content: {a: '12', b: 12, c: true, d: ~, e: 1.5, f: \"true\"}}\n"
      "  - actor: tab\n"
      "    ack: {call: '2'}\n");
  CHECK(plan.steps[0].args ==
        json{{"call", 2},
             {"content",
              {{"a", "12"}, {"b", 12}, {"c", true}, {"d", nullptr}, {"e", 1.5}, {"f", "true"}}}});
  CHECK(plan.steps[1].args == json{{"call", "2"}});
}

TEST_CASE("load_file reads a file and names it in errors", "[scenarios][loader]") {
  const std::string path = "scenarios_loader_test.yaml";
  {
    std::ofstream out(path);
    out << "purpose: from a file\nspec: [C-1]\nduration: 1s\n";
  }
  const auto plan = load_file(path);
  REQUIRE(plan.ok());
  CHECK(plan->name == "scenarios_loader_test");
  CHECK(plan->duration == 1'000);
  {
    std::ofstream out(path);
    out << "purpose: from a file\nspec: [C-1]\nduration: soon\n";
  }
  const auto broken = load_file(path);
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().message ==
        path + ":3: bad duration 'soon' (write 500ms, 12s, 2m, 1h or an integer of milliseconds)");
  std::remove(path.c_str());
}

TEST_CASE("times name the target's timeouts, TTLs, labels and the tolerance",
          "[scenarios][loader][timing]") {
  const std::string text =
      "purpose: p\nspec: [C-1]\nsettings: {ack_timeout: 2s, result_timeout: 6s}\n"
      "clients:\n  tab: {lifetime: {ttl: 3}}\n"
      "steps:\n"
      "  - {at: 1s, label: posted}\n"
      "  - {at: posted + ack_timeout - tol}\n"     // 1s + 2s - 1ms
      "  - {at: posted + result_timeout + tol}\n"  // 1s + 6s + 1ms
      "  - {after: ttl(tab) + 2*tol}\n"            // + 3s + 2ms
      "  - {after: 500ms}\n";                      // a readability gap, as written
  std::vector<std::int64_t> times;
  for (const auto& step : loaded(text).steps)
    times.push_back(step.at);
  CHECK(times == std::vector<std::int64_t>{1'000, 2'999, 7'001, 10'003, 10'503});

  SECTION("read for a target, its timeouts replace the settings and gaps follow its pace") {
    toolwire::scenarios::timing target;
    target.ack_timeout_ms = 1'000;
    target.result_timeout_ms = 3'000;
    target.interrupt_timeout_ms = 4'000;
    CHECK(toolwire::scenarios::pace_of(target) == Approx(4'000.0 / 60'000.0));
    const auto plan = load_text(text, "t.yaml", target);
    REQUIRE(plan);
    CHECK(plan->ack_timeout_ms == 1'000);
    times.clear();
    for (const auto& step : plan->steps)
      times.push_back(step.at);
    // 1s and 500ms scale by 1/15; the deadlines do not.
    CHECK(times == std::vector<std::int64_t>{67, 1'066, 3'068, 6'070, 6'103});
    CHECK(plan->needs.empty());
  }
  SECTION("on a real clock tol is the tolerance, and a millisecond boundary needs exact timing") {
    toolwire::scenarios::timing target;
    target.real_clock = true;
    target.tolerance_ms = 200;
    auto plan = load_text(text, "t.yaml", target);
    REQUIRE(plan);
    CHECK(plan->steps[1].at - plan->steps[0].at == 10'000 - 200);
    CHECK(plan->needs.empty());
    plan = load_text(text + "  - {after: ttl(tab) - 1ms}\n", "t.yaml", target);
    REQUIRE(plan);
    CHECK(plan->needs == std::vector<std::string>{toolwire::scenarios::exact_timing});
  }
}

TEST_CASE("a file bound to its settings is read as written and says what it needs",
          "[scenarios][loader][timing]") {
  // Its times are instants for the timeouts it states: no time names a deadline.
  const std::string bound =
      "purpose: p\nspec: [C-1]\nsettings: {ack_timeout: 2s, result_timeout: 10s}\n"
      "steps:\n  - {at: 2s}\n  - {at: 3999ms}\n  - {at: 4s}\n";
  toolwire::scenarios::timing target;  // short timeouts: a pace of 1/15 for gaps
  target.ack_timeout_ms = 1'000;
  target.result_timeout_ms = 3'000;
  target.interrupt_timeout_ms = 4'000;
  const auto plan = load_text(bound, "bound.yaml", target);
  REQUIRE(plan);
  std::vector<std::int64_t> times;
  for (const auto& step : plan->steps)
    times.push_back(step.at);
  CHECK(times == std::vector<std::int64_t>{2'000, 3'999, 4'000});  // not paced
  CHECK(plan->stated_ack_timeout_ms == 2'000);
  CHECK(plan->stated_result_timeout_ms == 10'000);
  CHECK_FALSE(plan->stated_interrupt_timeout_ms);
  CHECK(plan->needs == std::vector<std::string>{toolwire::scenarios::exact_timing});
  SECTION("a file that writes a time from a deadline binds nothing") {
    const auto relative = load_text(bound + "  - {at: ack_timeout + 2s}\n", "rel.yaml", target);
    REQUIRE(relative);
    CHECK_FALSE(relative->stated_ack_timeout_ms);
    CHECK(relative->needs.empty());
  }
}

TEST_CASE("a request body's {time: EXPR} becomes milliseconds", "[scenarios][loader][timing]") {
  const auto plan = loaded(
      "purpose: p\nspec: [C-1]\nsettings: {ack_timeout: 2s}\nsteps:\n"
      "  - request: {method: POST, path: /v1/_test/clock/advance,"
      " body: {ms: {time: ack_timeout + 1s}}}\n");
  CHECK(plan.steps.at(0).args["body"] == json{{"ms", 3'000}});
}

// Regression: the sanitize stage's scenario_loader finding (CI, 2026-12-01,
// fuzz/regressions/scenario_loader/yaml_escape_no_break_space): yaml-cpp decodes "\_" and "\N"
// into lone bytes, and writing the scenario back threw nlohmann's type_error.316.
TEST_CASE("YAML's \\N and \\_ escapes load as U+0085 and U+00A0 and write back",
          "[scenarios][loader]") {
  const auto plan = loaded(
      "purpose: \"no\\_break\"\nspec: [C-1]\n"
      "clients:\n  tab:\n    tools: [t]\n    result_content: {\"k\\_\": \"a\\Nb\\Lc\\x41\"}\n");
  CHECK(plan.purpose == "no\xC2\xA0" "break");
  REQUIRE(plan.clients.size() == 1);
  CHECK(plan.clients[0].result_content ==
        json{{"k\xC2\xA0", "a\xC2\x85" "b\xE2\x80\xA8" "cA"}});
  const auto again = loaded(toolwire::scenarios::to_yaml(plan));
  CHECK(again.purpose == plan.purpose);
  CHECK(again.clients[0].result_content == plan.clients[0].result_content);
}
