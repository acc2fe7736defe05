// The messages actors exchange: atoms, and the plain structs CAF may carry in-process.
#pragma once

#include <caf/all.hpp>

#include "toolwire/protocol/api.hpp"
#include "toolwire/reference_server/core.hpp"

namespace toolwire::actors {

// A request to the target (any SPEC route); the reply is an api_response.
using request_atom = caf::atom_constant<caf::atom("request")>;
// The sender's event stream for a session ends (a tab that vanishes drops it).
using close_stream_atom = caf::atom_constant<caf::atom("closestr")>;
// An event of a stream the receiver opened.
using event_atom = caf::atom_constant<caf::atom("event")>;
// A stream starts with a gap: events after the requested id are no longer retained.
using stream_gap_atom = caf::atom_constant<caf::atom("gap")>;
// Who answers the target's model steps.
using attach_model_atom = caf::atom_constant<caf::atom("attachmdl")>;
// The target asks the model for one step; the model answers with model_reply_atom.
using model_step_atom = caf::atom_constant<caf::atom("modelstep")>;
using model_reply_atom = caf::atom_constant<caf::atom("modelrply")>;
// Let `ms` of target time pass (in-process: wait; remote: CLOCK-1 advance). Replies now.
using advance_atom = caf::atom_constant<caf::atom("advance")>;
// An actor's own timer.
using tick_atom = caf::atom_constant<caf::atom("tick")>;
// A task caller's own timer, by name ("start", "poll", "answer:<pending calls>").
using act_atom = caf::atom_constant<caf::atom("act")>;

// -- a client's commands: one atom each, what it tells itself to do at a time (its
// knobs), recorded in the trace as `act` with the text in parentheses ------------------
// Open the event stream, then register ("join").
using join_atom = caf::atom_constant<caf::atom("join")>;
// Ping the client's TTL ("ping").
using ping_atom = caf::atom_constant<caf::atom("ping")>;
// Stop without a word to the server: the stream closes, pings stop ("vanish").
using vanish_atom = caf::atom_constant<caf::atom("vanish")>;
// Unregister by DELETE ("leave").
using leave_atom = caf::atom_constant<caf::atom("leave")>;
// Replace the tools by those of screen `index` of the client's spec ("screen:<index>").
using show_screen_atom = caf::atom_constant<caf::atom("screen")>;
// Ack the call `call_id` ("ack:<call_id>").
using ack_atom = caf::atom_constant<caf::atom("ack")>;
// Post the result of the call `call_id` ("result:<call_id>").
using answer_atom = caf::atom_constant<caf::atom("answer")>;
// The director asks a client to perform scripted step `index`: one of the client's own
// actions, or the request the director built for it. The reply (true) says the step is over.
using perform_atom = caf::atom_constant<caf::atom("perform")>;

// -- what participants tell the director, who owns what scripted steps refer to --------
// A client registered (actor, client_id): `{cid:ACTOR}` and the client's paths name it.
using registered_atom = caf::atom_constant<caf::atom("registered")>;
// The model answered a task's step with tool calls (task_model_calls).
using model_calls_atom = caf::atom_constant<caf::atom("modelcalls")>;

//! The model's tool calls in one answer to a task, in its order: [{name, arguments}].
struct task_model_calls {
  std::string task_uuid;
  protocol::json calls;
};

// -- the director's own timers ---------------------------------------------------------
// The next scripted step is due.
using play_atom = caf::atom_constant<caf::atom("play")>;
// The scenario's time is up: stop every participant.
using end_atom = caf::atom_constant<caf::atom("end")>;

}  // namespace toolwire::actors

// Why unsafe: these types travel only between actors of one process (never serialized),
// and CAF 0.17 otherwise asks for an `inspect` it would never call.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(toolwire::protocol::api_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(toolwire::protocol::api_response)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(toolwire::reference_server::session_event)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(toolwire::reference_server::model_step_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(toolwire::reference_server::model_reply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(toolwire::actors::task_model_calls)
