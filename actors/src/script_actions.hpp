// Scripted steps as requests: the references a step may hold ({cid:tab}, call 2, task
// labels) resolved against what the run learned so far, and the request each action
// sends. The director builds every step's request, its own and its clients', from the
// state it owns, so an action means the same whoever performs it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/actors/run_context.hpp"
#include "toolwire/protocol/api.hpp"
#include "toolwire/protocol/outcome.hpp"
#include "toolwire/scenarios/scenario.hpp"

namespace toolwire::actors::detail {

//! What scripted steps refer to by name: what the run was given, and what it learned as it
//! went (the session, the ids the target assigned, the calls dispatched so far, the tasks'
//! latest views). The director owns it; others tell it what they learn by message
//! (`registered`, `model_calls`), sent before anything that follows from it, so the
//! director reads it before any response that depends on it.
struct script_state : run_settings {
  std::string session_id;
  std::string token;
  std::string other_session_id;  // a second session, for AUTH-3 cases
  std::string other_token;
  std::map<std::string, std::string> client_ids;  // actor -> client_id
  std::vector<json> dispatched;                   // client_tool_dispatched data, in order
  std::map<std::string, std::string> tasks;       // label -> uuid
  std::map<std::string, json> task_views;         // label -> latest GET /api/tasks body
  //! Task uuid -> [{name, arguments}] of the model's latest answer in that task, in the
  //! model's order, as the model told it. Why: SPEC leaves the order of
  //! pending_tool_calls open, so a task's {call: N} is matched to the model's N-th call.
  std::map<std::string, json> task_model_calls;
};

//! True for the actions a client performs from its own state (its stream, its
//! registration), with no request the director could build for it.
bool performed_by_the_client_itself(const scenarios::scripted_step& step);

//! The call_id a call reference means now: an integer n is the session's n-th dispatched
//! call (1-based); a string is the latest dispatched call of that tool (as declared).
//! A call not dispatched yet is a not_found error (awaits_the_target): the target may
//! still owe it, and a later try may find it.
protocol::outcome<std::string> resolve_call(const script_state& state, const json& ref);

//! Fills `{sid}`, `{other_sid}`, `{token}`, `{cors_origin}`, `{cid:ACTOR}`, `{call:N}`,
//! `{task:LABEL}` and `{pending:LABEL:N}` (the id of the n-th pending call in the task's
//! latest poll).
protocol::outcome<std::string> fill_template(const script_state& state, std::string_view text);

//! `value` with every string that is exactly one template (e.g. "{cid:tab}") filled;
//! an unknown reference stays as written, so an expectation on it fails visibly.
json fill_templates(const script_state& state, json value);

//! Who performs the step, as far as building its request goes.
struct performer_view {
  std::string actor;                               // "director" or the client's actor name
  const scenarios::client_spec* client = nullptr;  // the performing client, if any
};

//! True for an error of request_for that says the target has not yet shown what the step
//! needs (a dispatch): on a real clock the step waits for it, bounded.
bool awaits_the_target(const protocol::api_error& error);

//! The request `step` sends, or why it cannot be sent now (e.g. "no call 2 has been
//! dispatched"). Not for the client's own actions (performed_by_the_client_itself) or advance.
protocol::outcome<protocol::api_request> request_for(const scenarios::scripted_step& step,
                                                     const performer_view& by,
                                                     const script_state& state);

//! The registration body of a `register` step: the client's spec, overridden by the step.
json registration_body(const scenarios::scripted_step& step, const scenarios::client_spec& spec);

//! What a response teaches the run: a client's id, a task's uuid, a task's latest view.
void learn(script_state& state, const scenarios::scripted_step& step, const std::string& actor,
           const protocol::api_response& response);

}  // namespace toolwire::actors::detail
