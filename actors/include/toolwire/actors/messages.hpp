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
// A scenario step addressed to a client or the director.
using act_atom = caf::atom_constant<caf::atom("act")>;

}  // namespace toolwire::actors

// Why unsafe: these types travel only between actors of one process (never serialized),
// and CAF 0.17 otherwise asks for an `inspect` it would never call.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(toolwire::protocol::api_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(toolwire::protocol::api_response)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(toolwire::reference_server::session_event)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(toolwire::reference_server::model_step_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(toolwire::reference_server::model_reply)
