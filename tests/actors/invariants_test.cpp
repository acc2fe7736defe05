// Trace invariants: each fires on a reference-core fault that breaks its rule, none on clean runs.
#include <catch2/catch.hpp>

#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "actors/actor_test_support.hpp"

using namespace toolwire::actor_test;
using toolwire::actors::check_invariants;
using toolwire::actors::violation;
using toolwire::reference_server::fault;
namespace actors = toolwire::actors;
namespace scenarios = toolwire::scenarios;
namespace protocol = toolwire::protocol;

namespace {

constexpr std::uint64_t seeds_per_fault = 10;

std::vector<violation> of_rule(const std::vector<violation>& all, const std::string& spec_id) {
  std::vector<violation> found;
  for (const auto& v : all) {
    if (v.spec_id == spec_id) found.push_back(v);
  }
  return found;
}

//! A copy of `run` without the records `drop` selects (a hand-made broken trace).
trace without(const trace& run, const std::function<bool(const trace_record&)>& drop) {
  trace edited;
  edited.set_header(run.header());
  for (const auto& r : run.records()) {
    if (!drop(r)) edited.add(r.at, r.actor, r.kind, r.data);
  }
  return edited;
}

//! A value in [low, high), spread over the whole range from the first case on: RapidCheck
//! scales inRange with its size, which would keep every early scenario tiny.
template <typename T>
T in_range(T low, T high) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<T>(low, high));
}

std::vector<protocol::tool_spec> random_tools() {
  std::vector<std::string> names = {"a"};
  for (const char* name : {"b", "c"}) {
    if (*rc::gen::arbitrary<bool>()) names.push_back(name);
  }
  return tools(names);
}

//! A scenario built from the presets at random: colliding names, TTLs that lapse or not,
//! vanishing and leaving clients, screen changes, slow, forgetful, duplicating and erroring
//! answers, several turns, model calls to live, withdrawn and unknown tools, a task.
scenario random_scenario() {
  namespace gen = rc::gen;
  scenario s;
  s.name = "random_presets";
  const int client_count = in_range<int>(1, 4);
  for (int i = 0; i < client_count; ++i) {
    client_spec spec =
        client("c" + std::to_string(i), *gen::element<std::string>("web", "db"), random_tools());
    spec = *gen::arbitrary<bool>() ? scenarios::browser_tab(spec, in_range<std::int64_t>(2, 20),
                                                            in_range<time_ms>(1'000, 25'000))
                                   : scenarios::backend_worker(spec);
    spec.join_at = in_range<time_ms>(0, 8'000);
    if (in_range<int>(0, 3) == 0) spec.vanish_at = spec.join_at + in_range<time_ms>(0, 20'000);
    if (in_range<int>(0, 3) == 0) spec.leave_at = spec.join_at + in_range<time_ms>(0, 20'000);
    const int screens = in_range<int>(0, 3);
    for (int k = 0; k < screens; ++k) {
      spec.screens.push_back({spec.join_at + in_range<time_ms>(0, 20'000), random_tools()});
    }
    spec = scenarios::slow_client(spec, in_range<time_ms>(0, 12'000), in_range<time_ms>(0, 25'000));
    if (in_range<int>(0, 5) == 0) spec = scenarios::forgetful_client(spec);
    if (in_range<int>(0, 4) == 0) spec = scenarios::duplicating_client(spec);
    if (in_range<int>(0, 4) == 0) spec = scenarios::erroring_client(spec);
    s.clients.push_back(spec);
  }
  const int messages = in_range<int>(1, 4);
  for (int k = 0; k < messages; ++k) {
    s.steps.push_back(scenarios::build::message_at(in_range<time_ms>(0, 25'000), "turn"));
  }
  json turn_steps = json::array();
  const int call_steps = in_range<int>(0, 4);
  for (int k = 0; k < call_steps; ++k) {
    model_calls calls;
    const int count = in_range<int>(1, 4);
    for (int c = 0; c < count; ++c) {
      calls.push_back({*gen::element<std::string>("web__a", "web__a", "db__a", "db__a", "web__b",
                                                  "web_2__a", "db__c", "nobody__a"),
                       json{{"k", c}}});
    }
    turn_steps.push_back(call_step(calls));
  }
  turn_steps.push_back(text_step("done"));
  s.model_script = {
      {"rules",
       json::array(
           {{{"match", "task"},
             {"steps", json::array({call_step({{"a", json::object()}, {"b", json::object()}}),
                                    call_step({{"a", json::object()}}), text_step("task done")})}},
            {{"match", ""}, {"steps", turn_steps}}})}};
  if (*gen::arbitrary<bool>()) {
    scenarios::task_caller_spec caller;
    caller.actor = "caller";
    caller.start_at = in_range<time_ms>(0, 10'000);
    caller.input = "task please";
    caller.client_tools = tools({"a", "b"});
    caller.poll_every = in_range<time_ms>(200, 3'000);
    caller.answer_delay = in_range<time_ms>(0, 3'000);
    caller.error_results = *gen::arbitrary<bool>();
    s.task_callers.push_back(caller);
  }
  s.ack_timeout_ms = in_range<time_ms>(1'000, 10'000);
  s.result_timeout_ms = s.ack_timeout_ms + in_range<time_ms>(1'000, 30'000);
  s.interrupt_timeout_ms = in_range<time_ms>(2'000, 20'000);
  s.duration = 40'000;
  return s;
}

}  // namespace

TEST_CASE("Random preset scenarios on the clean core break no invariant",
          "[actors][invariants][property]") {
  rc::prop("check_invariants finds nothing on the reference core", [] {
    const scenario plan = random_scenario();
    actors::run_options options;
    options.seed = in_range<std::uint64_t>(0, 1'000'000);
    const auto result = actors::simulate(plan, options);
    RC_ASSERT(result.ok());
    RC_ASSERT_FALSE(result->hit_step_limit);
    const auto violations = check_invariants(result->trace);
    if (!violations.empty()) {
      RC_FAIL(describe_all(violations) + "seed " + std::to_string(options.seed) + "\n" +
              result->trace.to_jsonl());
    }
    RC_CLASSIFY(events(result->trace, "client_tool_dispatched").size() >= 3, "3+ calls");
    RC_CLASSIFY(!events(result->trace, "client_unregistered").empty(), "a client ended");
  });
}

TEST_CASE("Each invariant fires against a fault that breaks its rule; the clean core passes",
          "[actors][invariants]") {
  // spec id, library scenario, planted fault, the kind of record where it shows. Each
  // scenario shows the fault in that rule only (its expectations are not checked here).
  const auto [spec_id, scenario_name, planted, shows_in] =
      GENERATE(table<std::string, std::string, fault, std::string>({
          {"CALL-5", "duplicating_client", fault::double_result_accepted, "event"},
          {"REG-6", "tab_reload_name_counter", fault::no_collision_counter, "event"},
          {"TOOLS-3", "navigating_tab_screens", fault::withdrawn_tool_offered, "model_step"},
          {"TOOLS-3", "tab_closes_mid_call", fault::departed_client_tools_offered, "model_step"},
          {"LIFE-5", "tab_closes_mid_call", fault::vanished_calls_left_open, "event"},
          {"LIFE-5", "tab_deleted_mid_call", fault::vanished_calls_left_open, "event"},
          {"SES-3", "no_ack_timeout", fault::event_seq_gaps, "event"},
          {"TASK-5", "task_three_rounds", fault::task_requeued_as_pending, "response"},
      }));
  const std::string fault_name{toolwire::reference_server::describe(planted).name};
  CAPTURE(spec_id, scenario_name, fault_name);
  const scenario clean = library_scenario(scenario_name);
  scenario faulty = clean;
  faulty.faults = {planted};

  // Whatever the interleaving: the clean core passes, the fault is caught by its rule.
  for (std::uint64_t seed = 0; seed < seeds_per_fault; ++seed) {
    CAPTURE(seed);
    const auto clean_run = run(clean, seed);
    const auto clean_violations = check_invariants(clean_run.trace);
    INFO("clean run: " << describe_all(clean_violations));
    CHECK(clean_violations.empty());

    const auto faulty_run = run(faulty, seed);
    const auto all = check_invariants(faulty_run.trace);
    INFO("faulty run: " << describe_all(all));
    const auto caught = of_rule(all, spec_id);
    REQUIRE_FALSE(caught.empty());
    CHECK(caught.size() == all.size());  // the fault is blamed on its rule only
    for (const auto& v : caught) {
      REQUIRE(v.record < faulty_run.trace.records().size());
      CHECK(faulty_run.trace.records()[v.record].kind == shows_in);
      CHECK(toolwire::actors::describe(v).rfind(
                spec_id + " at record " + std::to_string(v.record) + ": ", 0) == 0);
      CHECK_FALSE(v.message.empty());
    }
  }
}

TEST_CASE("CALL-5 a dispatched call that is never settled is reported as lost",
          "[actors][invariants][CALL-5]") {
  // The tab never acks: its call fails on ack_timeout, the worker's completes.
  const auto clean = run(library_scenario("no_ack_timeout"), 7);
  REQUIRE(check_invariants(clean.trace).empty());
  const trace lost = without(clean.trace, [](const trace_record& r) {
    return r.kind == "event" && r.data.value("type", "") == "client_tool_failed";
  });
  const auto found = of_rule(check_invariants(lost), "CALL-5");
  REQUIRE(found.size() == 1);
  CHECK(found[0].message.find("never settled") != std::string::npos);
  // It points at the dispatch of the lost call.
  const auto& pointed = lost.records().at(found[0].record);
  CHECK(pointed.data.value("type", "") == "client_tool_dispatched");
}

TEST_CASE("CALL-5 over HTTP a call whose deadline lies past the run's end owes no settlement",
          "[actors][invariants][CALL-5]") {
  // DESIGN: "nothing whose deadline lies past the end is owed". Over HTTP a run ends at
  // its duration; the header's call_deadlines_ms gives each call's deadline (CALL-3).
  const auto clean = run(library_scenario("no_ack_timeout"), 7);
  const trace lost = without(clean.trace, [](const trace_record& r) {
    return r.kind == "event" && r.data.value("type", "") == "client_tool_failed";
  });
  // The lost call: the one dispatched and never completed.
  std::map<std::string, time_ms> open;
  time_ms end = 0;
  for (const auto& r : lost.records()) {
    end = std::max(end, r.at);
    if (r.kind != "event") continue;
    const std::string call = r.data["data"].value("call_id", "");
    if (r.data.value("type", "") == "client_tool_dispatched") open[call] = r.at;
    if (r.data.value("type", "") == "client_tool_completed") open.erase(call);
  }
  REQUIRE(open.size() == 1);
  const time_ms dispatched_at = open.begin()->second;
  const auto with_deadlines = [&](time_ms ack_ms) {
    trace copy = lost;
    json header = copy.header();
    header["call_deadlines_ms"] = {{"ack", ack_ms}, {"result", ack_ms * 10}};
    copy.set_header(header);
    return of_rule(check_invariants(copy), "CALL-5").size();
  };
  // Its deadline before the end: it was owed, and it is lost.
  CHECK(with_deadlines(end - dispatched_at) == 1);
  // Its deadline a millisecond past the end: not owed yet.
  CHECK(with_deadlines(end - dispatched_at + 1) == 0);
}

TEST_CASE("SES-3 a stream that delivers an event twice is reported",
          "[actors][invariants][SES-3]") {
  const auto clean = run(library_scenario("two_clients_one_vanishes"), 3);
  REQUIRE(check_invariants(clean.trace).empty());
  // The worker receives its last delivery a second time.
  trace repeated;
  repeated.set_header(clean.trace.header());
  std::optional<trace_record> last_delivery;
  for (const auto& r : clean.trace.records()) {
    repeated.add(r.at, r.actor, r.kind, r.data);
    if (r.actor == "worker" && r.kind == "deliver") last_delivery = r;
  }
  REQUIRE(last_delivery);
  repeated.add(last_delivery->at, last_delivery->actor, last_delivery->kind, last_delivery->data);
  const auto found = of_rule(check_invariants(repeated), "SES-3");
  REQUIRE(found.size() == 1);
  CHECK(found[0].record == repeated.records().size() - 1);
  CHECK(found[0].message.find("worker") != std::string::npos);
}

TEST_CASE("describe names the rule, the record and what happened", "[actors][invariants]") {
  const violation v{"CALL-5", "call_3 settled twice (completed, then completed)", 12};
  CHECK(toolwire::actors::describe(v) ==
        "CALL-5 at record 12: call_3 settled twice (completed, then completed)");
}
