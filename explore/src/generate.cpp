// Generating scenario programs.
#include "generate.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <map>

#include "toolwire/protocol/codec.hpp"
#include "toolwire/scenarios/builders.hpp"

namespace toolwire::explore::detail {

using scenarios::scenario;
using scenarios::scripted_step;

namespace {

using protocol::json;
using scenarios::vocabulary::action_id;

const std::vector<std::string> tool_pool = {"read", "save", "pick"};
const std::vector<std::string> task_tool_pool = {"locate", "confirm"};

// Small pools on purpose: few names make collisions (REG-5), few tools make withdrawn and
// re-added tools meet in-flight calls (TOOLS-4/5), few calls make acks and results land
// on real calls.

std::vector<protocol::tool_spec> gen_tools() {
  std::vector<std::string> names;
  for (const auto& name : tool_pool) {
    if (*rc::gen::inRange(0, 3) > 0) names.push_back(name);
  }
  return scenarios::build::tools(names);
}

//! On a real clock a delay that lands within the tolerance of the deadline it races is a
//! coin toss, not a behaviour: it is moved clear of it (to just after).
time_ms clear_of(time_ms delay, time_ms deadline, const program_shape& shape) {
  if (!shape.real_clock) return delay;
  const time_ms margin = 2 * shape.tolerance_ms;
  return std::abs(delay - deadline) < margin ? deadline + margin : delay;
}

//! About how long a program of `shape` lasts: its steps (at most 11 gaps of two ack
//! timeouts after the joins) and the wait for the last call to settle (gen_program).
time_ms horizon_of(const program_shape& shape) {
  return 2'000 + 22 * shape.ack_timeout_ms + shape.result_timeout_ms * 15 / 8;
}

//! Whether a program's length is set by long timeouts (SPEC's defaults: result 300 s)
//! rather than by its steps. Why it matters: a client pinging a short TTL every few seconds
//! for the whole of such a program costs hundreds of requests that test nothing new (issue
//! 27), so there the generator scales what lasts to what is exercised. Below it programs
//! are drawn as they always were, so a seed gives the same program it gave before.
bool long_horizon(const program_shape& shape) {
  return horizon_of(shape) > 120'000;
}

scenarios::client_spec gen_client(std::size_t index, const program_shape& shape) {
  // Why two statements: the order in which a call's arguments are evaluated is the
  // compiler's choice, and a seed must give the same program under g++ and clang.
  const std::string name = *rc::gen::element<std::string>("web", "db");
  auto tools = gen_tools();
  auto spec = scenarios::build::client("c" + std::to_string(index + 1), name, std::move(tools));
  std::optional<std::int64_t> short_ttl;
  if (*rc::gen::arbitrary<bool>()) {
    auto ttl = *rc::gen::inRange<std::int64_t>(2, 40);
    // A client that outlives the program's deadlines: a TTL as long as the program, so a
    // handful of pings keep it (the rest of the wait the virtual clock jumps).
    const bool outlives = long_horizon(shape) && *rc::gen::arbitrary<bool>();
    if (outlives) ttl = horizon_of(shape) / 1'000;
    spec.lifetime = protocol::lifetime{protocol::lifetime::kind::ttl, ttl};
    if (*rc::gen::arbitrary<bool>()) {
      spec.ping_every = ttl * 1000 / 2;
      if (!outlives) short_ttl = ttl;
    }
  }
  const bool autonomous = *rc::gen::arbitrary<bool>();
  spec.auto_join = autonomous;
  spec.join_at = *rc::gen::inRange<time_ms>(0, 2'000);
  // A short TTL kept by pings exercises LIFE-2/3 within a few pings; in a long program the
  // client then vanishes (a closed tab), so its TTL runs out (LIFE-5) instead of pinging
  // for minutes.
  if (short_ttl && long_horizon(shape)) {
    spec.vanish_at = spec.join_at + *rc::gen::inRange<std::int64_t>(1, 5) * *short_ttl * 1'000 +
                     *rc::gen::element<time_ms>(0, 1, 500);
  }
  spec.acks = autonomous && *rc::gen::inRange(0, 4) > 0;
  spec.answers = autonomous && *rc::gen::inRange(0, 4) > 0;
  spec.ack_delay = clear_of(*rc::gen::inRange<time_ms>(0, shape.ack_timeout_ms * 3 / 2),
                            shape.ack_timeout_ms, shape);
  spec.result_delay = clear_of(*rc::gen::inRange<time_ms>(0, shape.result_timeout_ms * 5 / 8),
                               shape.result_timeout_ms, shape);
  spec.duplicate_result = *rc::gen::inRange(0, 6) == 0;
  spec.error_result = *rc::gen::inRange(0, 6) == 0;
  return spec;
}

json gen_calling_steps(const std::vector<std::string>& offered, const std::string& final_text) {
  json steps = json::array();
  const int calling_steps = *rc::gen::inRange(1, 4);
  for (int i = 0; i < calling_steps; ++i) {
    json calls = json::array();
    const int count = *rc::gen::inRange(1, 3);
    for (int k = 0; k < count; ++k) {
      calls.push_back({{"name", *rc::gen::elementOf(offered)}, {"arguments", json::object()}});
    }
    json step = {{"tool_calls", calls}};
    if (const auto hold = *rc::gen::element<int>(0, 0, 300, 1'500); hold > 0)
      step["hold_ms"] = hold;
    steps.push_back(std::move(step));
  }
  // Now and then no final answer: the model stand-in has no step for the request after the
  // calls and fails it, and the turn or task must fail with it (MODEL-4), a move no
  // program reached before (the coverage line named it).
  if (*rc::gen::inRange(0, 8) == 0) return steps;
  steps.push_back({{"content", final_text}});
  return steps;
}

json session_steps(const std::vector<scenarios::client_spec>& clients) {
  std::vector<std::string> offered;
  for (const auto& c : clients) {
    for (const auto& suffix : {"", "_2"}) {
      for (const auto& tool : tool_pool)
        offered.push_back(c.requested_name + suffix + "__" + tool);
    }
  }
  return gen_calling_steps(offered, "done");
}

//! A Part B caller and the model's answers to its task: client tools of its own, and now
//! and then a call to a tool the task does not have (TASK-8).
scenarios::task_caller_spec gen_task_caller(std::size_t index, const program_shape& shape,
                                            json& rules) {
  scenarios::task_caller_spec caller;
  caller.actor = "caller" + std::to_string(index + 1);
  caller.input = "explore-task " + std::to_string(index + 1);
  std::vector<std::string> names;
  for (const auto& name : task_tool_pool) {
    if (*rc::gen::inRange(0, 3) > 0) names.push_back(name);
  }
  if (names.empty()) names.push_back(task_tool_pool.front());
  caller.client_tools = scenarios::build::tools(names);
  caller.start_at = *rc::gen::inRange<time_ms>(0, 2'000);
  // In a long program a caller polls in proportion to the interrupt timeout: a task a
  // faulty target leaves interrupted with calls already answered is polled until that
  // timeout, and every 250 ms for 600 s cost one program 2,400 requests (bench/
  // explore_power, task_call_ids_restart_each_round: 155 s for one program).
  caller.poll_every = long_horizon(shape)
                          ? *rc::gen::element<time_ms>(shape.interrupt_timeout_ms / 60,
                                                       shape.interrupt_timeout_ms / 20)
                          : *rc::gen::element<time_ms>(250, 1'000);
  caller.answer_delay = clear_of(*rc::gen::inRange<time_ms>(0, shape.interrupt_timeout_ms * 5 / 4),
                                 shape.interrupt_timeout_ms, shape);
  caller.error_results = *rc::gen::inRange(0, 6) == 0;
  caller.partial_results = *rc::gen::inRange(0, 4) == 0;
  std::vector<std::string> callable = names;
  if (*rc::gen::inRange(0, 4) == 0) callable.push_back("ghost");
  json steps = gen_calling_steps(callable, "task done");
  // Results posted to a task that is not interrupted, processing or over, are refused
  // (TASK-4), moves no program reached before (the coverage line named them).
  caller.repeat_results = *rc::gen::inRange(0, 4) == 0;
  if (caller.repeat_results) {
    // A round repeated at once must find the task processing: a next round of calls
    // answered at that instant would make it interrupted again (and the repeat 400 for
    // calls no longer pending) in an order the target is free to choose.
    for (std::size_t i = 1; i < steps.size(); ++i) {
      if (steps[i].contains("tool_calls") && !steps[i].contains("hold_ms"))
        steps[i]["hold_ms"] = 300;
    }
  }
  rules.push_back({{"match", caller.input}, {"steps", std::move(steps)}});
  return caller;
}

json gen_args(action_id action) {
  switch (action) {
    case action_id::post_message:
      return {{"content", "explore"}};
    case action_id::put_tools:
      return {{"tools", protocol::to_json(gen_tools())}};
    case action_id::ack:
    case action_id::result:
    case action_id::error_result:
      return {{"call", *rc::gen::inRange(1, 5)}};
    default:
      return json::object();
  }
}

scripted_step gen_step(time_ms at, const std::vector<scenarios::client_spec>& clients) {
  // Repeats weigh the draw: messages start turns, results settle calls.
  const auto action = *rc::gen::element(
      action_id::post_message, action_id::post_message, action_id::ping, action_id::put_tools,
      action_id::delete_client, action_id::vanish, action_id::ack, action_id::result,
      action_id::result, action_id::error_result);
  std::string actor = "director";
  if (action != action_id::post_message) {
    actor =
        clients[static_cast<std::size_t>(*rc::gen::inRange<std::size_t>(0, clients.size()))].actor;
  }
  return {at, actor, std::string(scenarios::vocabulary::name_of(action)), gen_args(action), {}, ""};
}

}  // namespace

scenario gen_program(const program_shape& shape) {
  scenario plan;
  plan.name = "explored";
  plan.purpose = "A program generated by toolwire explore.";
  plan.spec_ids = {"CALL-5", "REG-6", "TOOLS-3", "LIFE-5", "SES-3"};
  plan.needs = {"part_a"};
  plan.ack_timeout_ms = shape.ack_timeout_ms;
  plan.result_timeout_ms = shape.result_timeout_ms;
  plan.interrupt_timeout_ms = shape.interrupt_timeout_ms;
  const auto client_count = *rc::gen::inRange<std::size_t>(1, 4);
  for (std::size_t i = 0; i < client_count; ++i)
    plan.clients.push_back(gen_client(i, shape));
  json rules = json::array();
  if (shape.part_b) {
    const auto callers = *rc::gen::element<std::size_t>(0, 0, 1, 2);
    for (std::size_t i = 0; i < callers; ++i)
      plan.task_callers.push_back(gen_task_caller(i, shape, rules));
    if (callers > 0) {
      plan.needs.push_back("part_b");
      plan.spec_ids.insert(plan.spec_ids.end(), {"TASK-3", "TASK-5", "TASK-7"});
    }
  }
  // The task rules first: the session's rule matches every conversation.
  rules.push_back({{"match", ""}, {"steps", session_steps(plan.clients)}});
  plan.model_script = {{"rules", rules}};
  time_ms at = 0;
  for (const auto& c : plan.clients) {
    if (!c.auto_join)
      plan.steps.push_back({c.join_at,
                            c.actor,
                            std::string(scenarios::vocabulary::name_of(action_id::register_client)),
                            json::object(),
                            {},
                            ""});
  }
  std::stable_sort(plan.steps.begin(), plan.steps.end(),
                   [](const auto& a, const auto& b) { return a.at < b.at; });
  if (!plan.steps.empty()) at = plan.steps.back().at;
  const int count = *rc::gen::inRange(1, 12);
  const time_ms ack = shape.ack_timeout_ms;
  for (int i = 0; i < count; ++i) {
    at += *rc::gen::element<time_ms>(0, 1, 100, 500, ack, 2 * ack);
    plan.steps.push_back(gen_step(at, plan.clients));
  }
  plan.duration = at + shape.result_timeout_ms * 15 / 8;
  return plan;
}

std::vector<std::string> ids_for(const scripted_step& step) {
  static const std::map<action_id, std::vector<std::string>> ids = {
      {action_id::register_client, {"REG-5", "REG-6"}},
      {action_id::ping, {"LIFE-2", "LIFE-3", "LIFE-4"}},
      {action_id::put_tools, {"TOOLS-1", "LIFE-4"}},
      {action_id::delete_client, {"LIFE-1", "LIFE-4"}},
      {action_id::ack, {"CALL-3", "CALL-6"}},
      {action_id::result, {"CALL-4", "CALL-6"}},
      {action_id::error_result, {"CALL-4", "CALL-6"}},
      {action_id::post_message, {"SES-2"}}};
  const auto action = scenarios::vocabulary::action_named(step.action);
  const auto it = action ? ids.find(*action) : ids.end();
  return it == ids.end() ? std::vector<std::string>{"C-3"} : it->second;
}

}  // namespace toolwire::explore::detail
