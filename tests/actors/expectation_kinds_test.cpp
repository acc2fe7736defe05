// The expectation kinds of the vocabulary: one enumerator, one YAML name and one checker each.
#include <catch2/catch.hpp>

#include <optional>
#include <set>
#include <string>

#include "toolwire/actors/expectations.hpp"
#include "toolwire/scenarios/vocabulary.hpp"

namespace vocabulary = toolwire::scenarios::vocabulary;
using json = nlohmann::json;

namespace {

//! A one-step plan expecting `kind` with `args` at 10 ms.
toolwire::scenarios::scenario one_step_plan(const std::string& kind, const json& args) {
  toolwire::scenarios::scenario plan;
  toolwire::scenarios::scripted_step step;
  step.at = 10;
  step.expect.push_back({kind, args, {"SES-4"}, "kinds.yaml:1"});
  plan.steps.push_back(step);
  return plan;
}

//! one_step_plan's step checked on a trace that holds only the step's marker: what the
//! checker makes of a run in which nothing happened.
toolwire::actors::expectation_report checked_alone(const std::string& kind, const json& args) {
  const auto plan = one_step_plan(kind, args);
  toolwire::actors::trace run;
  run.add(10, "director", "expect", {{"step", 0}, {"session", "s"}, {"args", json::array({args})}});
  return toolwire::actors::check_expectations(plan, run);
}

}  // namespace

TEST_CASE("every expectation kind has one distinct name and one distinct id", "[vocabulary]") {
  std::set<std::string_view> names;
  std::set<vocabulary::expectation_id> ids;
  for (const auto& kind : vocabulary::expectation_kinds()) {
    CAPTURE(kind.name);
    CHECK(names.insert(kind.name).second);
    CHECK(ids.insert(kind.id).second);
    CHECK(vocabulary::expectation_named(kind.name) == kind.id);
    CHECK(vocabulary::name_of(kind.id) == kind.name);
    CHECK(vocabulary::find_expectation(kind.name) == &kind);
  }
  CHECK(names.size() == 8);
  CHECK_FALSE(vocabulary::expectation_named("events"));
  CHECK_FALSE(vocabulary::expectation_named(""));
  // The YAML spelling is the language's: these names are what scenario files write.
  CHECK(vocabulary::name_of(vocabulary::expectation_id::call_settled) == "call_settled");
  CHECK(vocabulary::expectation_of_key("status")->id == vocabulary::expectation_id::response);
}

TEST_CASE("every expectation kind checked on the trace has a checker", "[vocabulary]") {
  // Args with every field the checkers read, so that each reaches its own verdict.
  const json args = {{"type", "turn_started"},
                     {"call_id", nullptr},
                     {"outcome", "completed"},
                     {"step", 1},
                     {"tools", json::array()},
                     {"tool", "a__b"},
                     {"task", "t"},
                     {"task_uuid", nullptr},
                     {"status", "completed"}};
  for (const auto& kind : vocabulary::expectation_kinds()) {
    if (kind.id == vocabulary::expectation_id::response) continue;  // the step's own response
    CAPTURE(kind.name);
    const auto report = checked_alone(std::string(kind.name), args);
    REQUIRE(report.results.size() == 1);
    CHECK(report.results[0].observed.find("unknown expectation kind") == std::string::npos);
  }
  // `no_event` holds in a run with no events; `event` does not.
  CHECK(checked_alone("no_event", args).passed());
  CHECK_FALSE(checked_alone("event", args).passed());
}

TEST_CASE("answered counts an actor's own answers of one route, not a step's", "[vocabulary]") {
  const json args = {{"actor", "caller1"},
                     {"route", "POST /api/tasks/{uuid}/tool-results"},
                     {"status", 409},
                     {"error", "conflict"}};
  const auto plan = one_step_plan("answered", args);
  auto answered_with = [&](const std::vector<std::pair<int, json>>& answers) {
    toolwire::actors::trace run;
    for (const auto& [status, extra] : answers) {
      json data = {
          {"method", "POST"},
          {"path", "/api/tasks/u-1/tool-results"},
          {"status", status},
          {"body", status == 409 ? json{{"error", {{"type", "conflict"}}}} : json::object()}};
      if (extra.is_object()) data.update(extra);
      run.add(5, "caller1", "response", data);
    }
    run.add(10, "director", "expect",
            {{"step", 0}, {"session", "s"}, {"args", json::array({args})}});
    return toolwire::actors::check_expectations(plan, run);
  };
  CHECK(answered_with({{200, {}}, {409, {}}}).passed());
  const auto none = answered_with({{200, {}}, {400, {}}});
  CHECK_FALSE(none.passed());
  CHECK(none.results[0].observed ==
        "caller1's POST /api/tasks/{uuid}/tool-results answered 200 ×1 400 ×1");
  // A step's request is the step's to expect, not the actor's own.
  CHECK_FALSE(answered_with({{409, {{"step", 3}}}}).passed());
}

TEST_CASE("a kind the vocabulary lacks is reported by its name", "[vocabulary]") {
  const auto report = checked_alone("nope", json::object());
  REQUIRE(report.results.size() == 1);
  CHECK_FALSE(report.results[0].passed);
  CHECK(report.results[0].observed == "unknown expectation kind 'nope'");
}

namespace {

//! one_step_plan's step, on a trace whose marker allows
//! `grace_ms` (a real-clock run's) and whose session event `type` came at `event_at`.
bool passes_with_event_at(const std::string& kind, const json& args,
                          toolwire::actors::time_ms event_at, toolwire::actors::time_ms grace_ms) {
  const auto plan = one_step_plan(kind, args);
  toolwire::actors::trace run;
  json marker = {{"step", 0}, {"session", "s"}, {"args", json::array({args})}};
  if (grace_ms > 0) marker["grace_ms"] = grace_ms;
  run.add(10, "director", "expect", marker);
  const json event = {
      {"session", "s"}, {"seq", 1}, {"type", "turn_started"}, {"data", {{"turn_id", "t1"}}}};
  run.add(event_at, "target", "event", event);
  return toolwire::actors::check_expectations(plan, run).passed();
}

}  // namespace

TEST_CASE(
    "on a real clock what a step expects may show up to the grace later; what must "
    "not have happened is checked at the step",
    "[expectations][real-clock]") {
  const json started = {{"type", "turn_started"}};
  // An event owed by the target, shown 100 ms late by a slow stream.
  CHECK_FALSE(passes_with_event_at("event", started, 110, 0));
  CHECK(passes_with_event_at("event", started, 110, 200));
  // Later than the grace is still missing.
  CHECK_FALSE(passes_with_event_at("event", started, 300, 200));
  // A count reached within the grace passes (a loaded target's chain of steps), one
  // reached only after it does not.
  CHECK(passes_with_event_at("event", {{"type", "turn_started"}, {"count", 1}}, 110, 200));
  CHECK_FALSE(passes_with_event_at("event", {{"type", "turn_started"}, {"count", 1}}, 300, 200));
  CHECK_FALSE(passes_with_event_at("event", {{"type", "turn_started"}, {"count", 1}}, 110, 0));
  // no_event at the step: an event 100 ms after it does not break it, with grace or not.
  CHECK(passes_with_event_at("no_event", started, 110, 200));
  CHECK_FALSE(passes_with_event_at("no_event", started, 5, 200));
}

TEST_CASE("on a real clock a count passes where it is first reached within the grace, not later",
          "[expectations][real-clock]") {
  // Later causes add to a count: it is judged at each moment of the grace, so a count that
  // was reached and then passed by a later cause still holds, and one that was already
  // over the expected number at the step never does.
  const json args = {{"type", "turn_started"}, {"count", 2}};
  const auto plan = one_step_plan("event", args);
  const auto run_with_events_at = [&](std::vector<toolwire::actors::time_ms> times) {
    toolwire::actors::trace run;
    run.add(10, "director", "expect",
            {{"step", 0}, {"session", "s"}, {"args", json::array({args})}, {"grace_ms", 200}});
    std::uint64_t seq = 0;
    for (const auto at : times) {
      run.add(at, "target", "event",
              {{"session", "s"},
               {"seq", ++seq},
               {"type", "turn_started"},
               {"data", {{"turn_id", "t" + std::to_string(seq)}}}});
    }
    return toolwire::actors::check_expectations(plan, run).passed();
  };
  CHECK(run_with_events_at({5, 50}));          // reached late, within the grace
  CHECK(run_with_events_at({5, 50, 150}));     // reached, then a later cause adds one
  CHECK_FALSE(run_with_events_at({5, 250}));   // reached only after the grace
  CHECK_FALSE(run_with_events_at({1, 2, 3}));  // over the count at the step already
}

TEST_CASE("an expected event or settlement that came after its check says when it came",
          "[expectations][real-clock]") {
  // A slow target's deadline event past the tolerance window read "no event at all", as if
  // the target had never acted; late is told apart from never.
  const json started = {{"type", "turn_started"}};
  const auto observed_with_event_at = [](const std::string& kind, const json& args,
                                         const json& event,
                                         std::optional<toolwire::actors::time_ms> at) {
    const auto plan = one_step_plan(kind, args);
    toolwire::actors::trace run;
    run.add(10, "director", "expect",
            {{"step", 0}, {"session", "s"}, {"args", json::array({args})}, {"grace_ms", 200}});
    if (at) run.add(*at, "target", "event", event);
    const auto report = toolwire::actors::check_expectations(plan, run);
    REQUIRE(report.results.size() == 1);
    CHECK_FALSE(report.results[0].passed);
    return report.results[0].observed;
  };
  const json turn_event = {
      {"session", "s"}, {"seq", 1}, {"type", "turn_started"}, {"data", {{"turn_id", "t1"}}}};
  CHECK(observed_with_event_at("event", started, turn_event, 300) ==
        "0 matching; no turn_started event by then; a matching one came later, at 300 ms "
        "(checked by 210 ms)");
  CHECK(observed_with_event_at("event", started, turn_event, std::nullopt) ==
        "0 matching; no turn_started event in the run");

  const json failed_call = {{"session", "s"},
                            {"seq", 1},
                            {"type", "client_tool_failed"},
                            {"data", {{"call_id", "call_1"}, {"reason", "ack_timeout"}}}};
  const json settled = {{"call_id", "call_1"}, {"outcome", "failed"}};
  CHECK(observed_with_event_at("call_settled", settled, failed_call, 300)
            .ends_with("; it settled later, at 300 ms (checked by 210 ms): "
                       "{\"data\":{\"call_id\":\"call_1\",\"reason\":\"ack_timeout\"},"
                       "\"type\":\"client_tool_failed\"}"));
  CHECK(observed_with_event_at("call_settled", settled, failed_call, std::nullopt) ==
        "call_1 settled 0 times: []");
}
