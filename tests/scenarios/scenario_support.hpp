// Shared by the scenario language tests: a rich example file and a field-by-field
// comparison of scenarios (scenario has no operator==; its parts mostly do).
#pragma once

#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "toolwire/scenarios/scenario.hpp"

namespace toolwire::scenario_test {

using protocol::json;

//! Most of the format at once: every section, presets with knobs overridden, a manual
//! client, a task caller, a model script with a hold, every way of timing a step, response
//! and trace expectations with their own and inherited SPEC IDs, and an advance.
inline const std::string rich_example = R"yaml(# A tab's TTL lapses while a call is open.
purpose: A tab's TTL lapses while a call is open; the turn still completes.
spec: [LIFE-2, LIFE-5, CALL-5]
breaks_with: [vanished_calls_left_open]
needs: [part_a, virtual_clock]
duration: 2m
settings: {ack_timeout: 5s, result_timeout: 20s}
clients:
  tab:
    name: web
    lifetime: {ttl: 30}
    tools:
      - read_form
      - {name: save, description: Saves the form, parameters: {type: object, properties: {id: {type: integer}}}}
    behaviour: [browser_tab]
    join: 1s
    vanish_at: 20s
    result_delay: 2500ms
    result_content: {saved: true, "n": "12"}
  worker:
    tools: [lookup]
  slowpoke:
    behaviour: [backend_worker, slow]
    ack_delay: 1s
    answers: false
    screens:
      - {at: 3s, tools: [lookup, edit]}
task_callers:
  caller: {start: 1s, input: look it up, tools: [lookup], poll_every: 500ms, error_results: true}
model:
  rules:
    - match: fill the form
      steps:
        - tool_calls: [{name: web__read_form, arguments: {}}]
          hold: 500ms
        - content: done
steps:
  - at: 2s
    actor: worker
    register: {name: backend, lifetime: never}
    expect: {status: 201, spec: [REG-1]}
  - after: 1s
    post_message: {content: fill the form}
    expect:
      status: 202
      spec: [SES-2]
  - at: 40s
    spec: [LIFE-5]
    expect:
      - event: {type: client_tool_failed, reason: client_expired, client_id: "{cid:tab}"}
      - call_settled: {call: 1, outcome: failed, reason: client_expired}
        spec: [CALL-5]
      - model_received: {tool: web__read_form, error: client_expired}
  - advance: {by: 5s}
  - actor: worker
    put_tools: {tools: [a, {name: b, parameters: {type: object, required: [x]}}]}
    expect: {status: 200, spec: [TOOLS-1]}
  - actor: worker
    result: {call: read_form, content: "42"}
  - create_task: {task: t1, input: hi, tools: [lookup]}
    expect: [{status: 201, body: {status: pending}, spec: [TASK-1]}]
  - after: 1m
    request: {method: GET, path: "/v1/sessions/{sid}", credential: none}
    expect: {status: 401, error: unauthenticated, spec: [AUTH-2]}
)yaml";

//! The 1-based line of `text` that first contains `needle`.
inline int line_of(const std::string& text, const std::string& needle) {
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (line.find(needle) != std::string::npos) return number;
  }
  FAIL("no line holds " << needle);
  return 0;
}

inline void check_same_client(const scenarios::client_spec& a, const scenarios::client_spec& b) {
  INFO("client " << a.actor);
  CHECK(a.actor == b.actor);
  CHECK(a.requested_name == b.requested_name);
  CHECK(a.lifetime == b.lifetime);
  CHECK(a.tools == b.tools);
  CHECK(a.join_at == b.join_at);
  CHECK(a.ping_every == b.ping_every);
  CHECK(a.vanish_at == b.vanish_at);
  CHECK(a.leave_at == b.leave_at);
  CHECK(a.screens.size() == b.screens.size());
  for (std::size_t i = 0; i < std::min(a.screens.size(), b.screens.size()); ++i) {
    CHECK(a.screens[i].at == b.screens[i].at);
    CHECK(a.screens[i].tools == b.screens[i].tools);
  }
  CHECK(a.acks == b.acks);
  CHECK(a.ack_delay == b.ack_delay);
  CHECK(a.answers == b.answers);
  CHECK(a.result_delay == b.result_delay);
  CHECK(a.duplicate_result == b.duplicate_result);
  CHECK(a.error_result == b.error_result);
  CHECK(a.auto_join == b.auto_join);
  CHECK(a.result_content == b.result_content);
}

inline void check_same_task_caller(const scenarios::task_caller_spec& a,
                                   const scenarios::task_caller_spec& b) {
  INFO("task caller " << a.actor);
  CHECK(a.actor == b.actor);
  CHECK(a.start_at == b.start_at);
  CHECK(a.input == b.input);
  CHECK(a.client_tools == b.client_tools);
  CHECK(a.poll_every == b.poll_every);
  CHECK(a.answer_delay == b.answer_delay);
  CHECK(a.error_results == b.error_results);
  CHECK(a.result_content == b.result_content);
}

//! Every field of two scenarios, except `faults`, which the format does not hold.
inline void check_same_scenario(const scenarios::scenario& a, const scenarios::scenario& b) {
  CHECK(a.name == b.name);
  CHECK(a.purpose == b.purpose);
  CHECK(a.spec_ids == b.spec_ids);
  CHECK(a.breaks_with == b.breaks_with);
  CHECK(a.needs == b.needs);
  CHECK(a.duration == b.duration);
  CHECK(a.ack_timeout_ms == b.ack_timeout_ms);
  CHECK(a.result_timeout_ms == b.result_timeout_ms);
  CHECK(a.interrupt_timeout_ms == b.interrupt_timeout_ms);
  CHECK(a.model_script == b.model_script);
  REQUIRE(a.clients.size() == b.clients.size());
  for (std::size_t i = 0; i < a.clients.size(); ++i)
    check_same_client(a.clients[i], b.clients[i]);
  REQUIRE(a.task_callers.size() == b.task_callers.size());
  for (std::size_t i = 0; i < a.task_callers.size(); ++i)
    check_same_task_caller(a.task_callers[i], b.task_callers[i]);
  REQUIRE(a.steps.size() == b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    INFO("step " << i << ": " << a.steps[i].action << " at " << a.steps[i].at);
    CHECK(a.steps[i] == b.steps[i]);
  }
}

//! `plan` without its places in a file, which only a loaded scenario has.
inline scenarios::scenario without_places(scenarios::scenario plan) {
  for (auto& step : plan.steps) {
    step.where.clear();
    for (auto& e : step.expect)
      e.where.clear();
  }
  return plan;
}

}  // namespace toolwire::scenario_test

namespace Catch {
//! Steps print as JSON, so that a failed comparison shows the difference.
template <>
struct StringMaker<toolwire::scenarios::scripted_step> {
  static std::string convert(const toolwire::scenarios::scripted_step& step) {
    toolwire::protocol::json expect = toolwire::protocol::json::array();
    for (const auto& e : step.expect)
      expect.push_back(
          {{"kind", e.kind}, {"args", e.args}, {"spec", e.spec_ids}, {"where", e.where}});
    return toolwire::protocol::json{{"at", step.at},         {"actor", step.actor},
                                    {"action", step.action}, {"args", step.args},
                                    {"expect", expect},      {"where", step.where}}
        .dump();
  }
};
}  // namespace Catch
