// The server under test (the target), as the client, model and director actors speak to
// it. One interface, two implementations: the in-process reference core (core_actor.hpp)
// and a server over HTTP (conformance/remote/). Nothing that speaks to it knows which.
#pragma once

#include <cstdint>
#include <string>

#include "toolwire/actors/messages.hpp"

namespace toolwire::actors {

//! The server under test's message interface.
//! - `request`: any SPEC route. For `GET .../events`, a 200 also opens a stream to the
//!   sender: `(event_atom, session_event)` messages in seq order, preceded by
//!   `(stream_gap_atom, sid, oldest_seq)` when replay is no longer possible.
//! - `close_stream`: the sender's stream of that session ends.
//! - `attach_model`: the actor that receives `(model_step_atom, model_step_request)`.
//! - `model_reply`: the model's answer to a step.
//! - `advance`: let target time pass by `ms`; the reply is the target's `now`.
using server_actor = caf::typed_actor<
    caf::replies_to<request_atom, protocol::api_request>::with<protocol::api_response>,
    caf::reacts_to<close_stream_atom, std::string>, caf::reacts_to<attach_model_atom, caf::actor>,
    caf::reacts_to<model_reply_atom, std::uint64_t, reference_server::model_reply>,
    caf::replies_to<advance_atom, std::int64_t>::with<std::int64_t>,
    // An implementation's own timer (the due time it was armed for); nobody else sends it.
    caf::reacts_to<tick_atom, std::int64_t>>;

}  // namespace toolwire::actors
