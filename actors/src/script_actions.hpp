// Scripted steps as requests: the references a step may hold ({cid:tab}, call 2, task
// labels) resolved against what the run learned so far, and the request each action
// sends. Shared by the director and the clients, so an action means the same whoever
// performs it.
#pragma once

#include <string>
#include <string_view>

#include "toolwire/actors/run_context.hpp"
#include "toolwire/actors/scenario.hpp"
#include "toolwire/protocol/api.hpp"
#include "toolwire/protocol/outcome.hpp"

namespace toolwire::actors::detail {

//! The call_id a call reference means now: an integer n is the session's n-th dispatched
//! call (1-based); a string is the latest dispatched call of that tool (as declared).
protocol::outcome<std::string> resolve_call(const script_state& state, const json& ref);

//! Fills `{sid}`, `{other_sid}`, `{token}`, `{cid:ACTOR}`, `{call:N}`, `{task:LABEL}` and
//! `{pending:LABEL:N}` (the id of the n-th pending call in the task's latest poll).
protocol::outcome<std::string> fill_template(const script_state& state, std::string_view text);

//! `value` with every string that is exactly one template (e.g. "{cid:tab}") filled;
//! an unknown reference stays as written, so an expectation on it fails visibly.
json fill_templates(const script_state& state, json value);

//! Who performs the step, as far as building its request goes.
struct performer_view {
  std::string actor;                    // "director" or the client's actor name
  const client_spec* client = nullptr;  // the performing client, if any
};

//! The request `step` sends, or why it cannot be sent now (e.g. "no call 2 has been
//! dispatched"). Not for register/vanish/reconnect/advance, which clients handle.
protocol::outcome<protocol::api_request> request_for(const scripted_step& step,
                                                     const performer_view& by,
                                                     const script_state& state);

//! The registration body of a `register` step: the client's spec, overridden by the step.
json registration_body(const scripted_step& step, const client_spec& spec);

//! What a response teaches the run: a client's id, a task's uuid, a task's latest view.
void learn(script_state& state, const scripted_step& step, const std::string& actor,
           const protocol::api_response& response);

}  // namespace toolwire::actors::detail
