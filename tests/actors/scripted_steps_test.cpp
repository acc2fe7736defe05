// Scripted steps and their expectations: what a scenario file states is what runs, and a
// wrong expectation is reported with where it is, what it wanted and what happened.
#include "actors/actor_test_support.hpp"
#include "toolwire/actors/expectations.hpp"

using namespace toolwire::actor_test;
using toolwire::actors::check_expectations;
using toolwire::scenarios::expectation;
using toolwire::scenarios::scripted_step;

namespace {

expectation expect(std::string kind, json args, std::vector<std::string> ids = {"CALL-1"}) {
  return {std::move(kind), std::move(args), std::move(ids), "test.yaml:1"};
}

scripted_step step(time_ms at, std::string actor, std::string action, json args = json::object(),
                   std::vector<expectation> expectations = {}) {
  return {at,
          std::move(actor),
          std::move(action),
          std::move(args),
          std::move(expectations),
          "test.yaml:" + std::to_string(at)};
}

//! A manual tab registers, the model calls its tool, the tab acks and answers by script.
scenario answered_call() {
  scenario s;
  s.name = "answered_call";
  auto tab = client("tab", "web", {tool("read_form")});
  tab.auto_join = false;
  tab.acks = false;
  tab.answers = false;
  s.clients = {tab};
  s.model_script =
      script(json::array({call_step({{"web__read_form", {{"form", "x"}}}}), text_step("done")}));
  s.steps = {
      step(1'000, "tab", "register", json::object(),
           {expect("response", {{"status", 201}, {"body", {{"name", "web"}}}}, {"REG-9"})}),
      message_at(2'000, "fill"),
      step(2'100, "tab", "ack", {{"call", 1}}, {expect("response", {{"status", 200}})}),
      step(2'200, "tab", "result", {{"call", "read_form"}, {"content", "filled"}}),
      step(3'000, "director", "", json::object(),
           {expect("event", {{"type", "client_tool_dispatched"},
                             {"client_id", "{cid:tab}"},
                             {"tool", "read_form"},
                             {"arguments", {{"form", "x"}}}}),
            expect("call_settled", {{"call", 1}, {"outcome", "completed"}}),
            expect("model_offered", {{"step", 1}, {"tools", {"web__read_form"}}}),
            expect("model_received", {{"tool", "web__read_form"}, {"content", "filled"}}),
            expect("event", {{"type", "turn_completed"}, {"count", 1}}),
            expect("no_event", {{"type", "client_tool_failed"}})}),
  };
  s.duration = 5'000;
  return s;
}

}  // namespace

TEST_CASE("scripted steps run in order and every expectation of a good run passes", "[scripted]") {
  const auto plan = answered_call();
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto result = run(plan, seed);
    const auto report = check_expectations(plan, result.trace);
    std::string failures;
    for (const auto& r : report.results) {
      if (!r.passed) failures += describe(r, plan) + "\n";
    }
    for (const auto& e : report.step_errors)
      failures += e + "\n";
    INFO("seed " << seed << "\n" << failures);
    CHECK(report.passed());
    CHECK(report.results.size() == 8);
  }
}

TEST_CASE("a wrong expectation names its place, its SPEC IDs, what it wanted and what it saw",
          "[scripted]") {
  auto plan = answered_call();
  plan.steps[2].expect = {expect("response", {{"status", 409}, {"error", "conflict"}}, {"CALL-6"})};
  const auto report = check_expectations(plan, run(plan).trace);
  REQUIRE(report.failures() == 1);
  const auto failed = std::find_if(report.results.begin(), report.results.end(),
                                   [](const auto& r) { return !r.passed; });
  CHECK(describe(*failed, plan) ==
        "test.yaml:1 [CALL-6] expected response status 409, error conflict at 2100 ms; "
        "observed: status 200, body {\"call_id\":\"call_1\",\"status\":\"acked\"}");
}

TEST_CASE("an expectation on something that did not happen fails with what did happen",
          "[scripted]") {
  auto plan = answered_call();
  plan.steps[4].expect = {expect("call_settled", {{"call", 1}, {"outcome", "failed"}})};
  const auto report = check_expectations(plan, run(plan).trace);
  REQUIRE(report.failures() == 1);
  CHECK_THAT(report.results.back().observed, Catch::Contains("call_1 completed"));
}

TEST_CASE("a step naming a call never dispatched is reported, not sent", "[scripted]") {
  auto plan = answered_call();
  plan.steps.insert(plan.steps.begin() + 2, step(2'050, "tab", "ack", {{"call", 2}}));
  const auto result = run(plan);
  const auto report = check_expectations(plan, result.trace);
  REQUIRE(report.step_errors.size() == 1);
  CHECK_THAT(report.step_errors[0], Catch::Contains("call 2 has not been dispatched (1 so far)"));
  CHECK_FALSE(report.passed());
}

// Regression: a reference's number was read with std::stoi/std::stoul, which threw out of
// the director on digits past any count or on a word where the number goes.
TEST_CASE("a reference with a bad number is a step error, not an exception", "[scripted]") {
  const auto [path, words] = GENERATE(table<std::string, std::string>({
      {"/v1/sessions/{sid}/clients/{cid:tab}/calls/{call:99999999999999999999}/ack",
       "call 99999999999999999999 has not been dispatched"},
      {"/api/tasks/{pending:t:x}", "write {pending:LABEL:N}, N a number from 1"},
      {"/api/tasks/{pending:t:}", "write {pending:LABEL:N}, N a number from 1"},
  }));
  auto plan = answered_call();
  plan.steps.insert(plan.steps.begin() + 2,
                    step(2'050, "director", "request", {{"method", "POST"}, {"path", path}}));
  const auto report = check_expectations(plan, run(plan).trace);
  REQUIRE(report.step_errors.size() == 1);
  CHECK_THAT(report.step_errors[0], Catch::Contains(words));
}

TEST_CASE("a model that holds its answer lets a PUT withdraw the tool first (TOOLS-5)",
          "[scripted]") {
  auto plan = answered_call();
  plan.model_script = script(json::array(
      {json{{"tool_calls", {{{"name", "web__read_form"}, {"arguments", json::object()}}}},
            {"hold_ms", 500}},
       text_step("done")}));
  plan.steps = {
      step(1'000, "tab", "register"),
      message_at(2'000, "fill"),
      step(2'200, "tab", "put_tools", {{"tools", json::array()}}),
      step(3'000, "director", "", json::object(),
           {expect("event", {{"type", "client_tool_failed"}, {"reason", "tool_unavailable"}},
                   {"TOOLS-5"}),
            expect("model_received", {{"tool", "web__read_form"}, {"error", "tool_unavailable"}},
                   {"TOOLS-5"})}),
  };
  const auto report = check_expectations(plan, run(plan).trace);
  for (const auto& r : report.results) {
    INFO(describe(r, plan));
    CHECK(r.passed);
  }
}
