// Reading an oracle run's instants (oracle_instants.hpp).
#include "oracle_instants.hpp"

#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/routes.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::explore::detail {

using protocol::json;

oracle_instants oracle_instants_of(const actors::run_result& oracle) {
  oracle_instants in;
  in.deadlines = oracle.deadlines;
  for (const auto& d : in.deadlines) {
    const auto [at, fresh] = in.first_armed.try_emplace(d.due, d.armed_at);
    if (!fresh) at->second = std::min(at->second, d.armed_at);
  }
  std::string session;
  std::set<std::uint64_t> turn_steps;                 // model steps of the session's turns
  std::map<std::string, std::string> caller_of;       // task uuid -> the caller that created it
  std::map<std::uint64_t, std::string> task_of_step;  // model step of a task -> its uuid
  // Task uuid -> when its model answers were applied. Why by uuid: a task asks the model as
  // it is created, before the response that names it to its caller.
  std::map<std::string, std::vector<time_ms>> applied_to_task;
  std::map<std::string, std::string> actor_of;  // client id -> the actor that registered it
  for (const auto& r : oracle.trace.records()) {
    if (r.kind == "timer" && r.actor == "target") in.timers_fired.insert(r.at);
    if (r.kind == "response" && r.data.value("status", 0) == 201) {
      const auto route = protocol::match_route(protocol::string_at(r.data, "method"),
                                               protocol::string_at(r.data, "path"));
      const auto is = [&](protocol::route_id id) { return route && route->route->id == id; };
      if (session.empty() && is(protocol::route_id::create_session)) {
        session = protocol::string_at(protocol::member_at(r.data, "body"), "id");
      } else if (is(protocol::route_id::create_task)) {
        caller_of[protocol::string_at(protocol::member_at(r.data, "body"), "uuid")] = r.actor;
      } else if (is(protocol::route_id::register_client)) {
        in.registrations.try_emplace(r.actor, r.at);
        actor_of[protocol::string_at(protocol::member_at(r.data, "body"), "client_id")] = r.actor;
      }
    }
    const auto type = r.kind == "event" && protocol::string_at(r.data, "session") == session
                          ? protocol::parse_event_type(protocol::string_at(r.data, "type"))
                          : std::nullopt;
    if (type == protocol::event_type::turn_started) in.turns.push_back({r.at, -1});
    if ((type == protocol::event_type::turn_completed ||
         type == protocol::event_type::turn_failed) &&
        !in.turns.empty())
      in.turns.back().due = r.at;
    if (type == protocol::event_type::client_unregistered) {
      const json& data = protocol::member_at(r.data, "data");
      const auto of = actor_of.find(protocol::string_at(data, "client_id"));
      if (of != actor_of.end() && protocol::string_at(data, "reason") == "expired")
        in.expiries.try_emplace(of->second, r.at);
    }
    if (type == protocol::event_type::client_tool_dispatched) {
      in.dispatches.push_back(r.at);
      const json& data = protocol::member_at(r.data, "data");
      in.dispatched_calls.push_back(protocol::string_at(data, "call_id"));
      if (const auto to = actor_of.find(protocol::string_at(data, "client_id"));
          to != actor_of.end())
        in.dispatches_to[to->second].push_back(r.at);
      in.resolutions.push_back(r.at);
    }
    if (r.kind == "request" && !r.data.contains("step")) {
      const auto route = protocol::match_route(protocol::string_at(r.data, "method"),
                                               protocol::string_at(r.data, "path"));
      if (route && (route->route->id == protocol::route_id::ack ||
                    route->route->id == protocol::route_id::post_result)) {
        in.own_settlements[route->ids.back()].push_back(r.at);
        in.own_settlements_by[r.actor].push_back(r.at);
      }
      if (route && route->route->id == protocol::route_id::post_tool_results)
        in.caller_answers[r.actor].push_back(r.at);
      if (route && route->route->id == protocol::route_id::get_task)
        in.caller_polls[r.actor].push_back(r.at);
    }
    if (r.kind == "model_step") {
      in.resolutions.push_back(r.at);
      const auto step = r.data.value("step_id", std::uint64_t{0});
      if (protocol::string_at(r.data, "owner") == "turn") turn_steps.insert(step);
      if (protocol::string_at(r.data, "owner") == "task")
        task_of_step[step] = protocol::string_at(r.data, "owner_id");
    }
    if (r.kind == "model_reply") {
      if (const auto task = task_of_step.find(r.data.value("step_id", std::uint64_t{0}));
          task != task_of_step.end())
        applied_to_task[task->second].push_back(r.at + r.data.value("hold_ms", time_ms{0}));
    }
    if (r.kind == "step_error") in.unplayable_steps.insert(r.data.value("step", std::size_t{0}));
    // A turn's answers only: a task's tools are its own, which no client step changes.
    if (r.kind == "model_reply" && turn_steps.contains(r.data.value("step_id", std::uint64_t{0}))) {
      const time_ms applied = r.at + r.data.value("hold_ms", time_ms{0});
      if (r.data.contains("hold_ms")) in.held_answers.push_back({r.at, applied});
      const json& calls = protocol::member_at(protocol::member_at(r.data, "reply"), "tool_calls");
      if (calls.is_array() && !calls.empty()) in.calling_answers_applied.push_back(applied);
    }
  }
  for (auto& [task, applied] : applied_to_task) {
    if (const auto caller = caller_of.find(task); caller != caller_of.end())
      in.task_answers_applied[caller->second] = std::move(applied);
  }
  return in;
}

}  // namespace toolwire::explore::detail
