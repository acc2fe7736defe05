// The messages actors exchange: atoms, and the plain structs CAF may carry in-process.
#pragma once

#include <optional>
#include <string>

#include <caf/all.hpp>
#include <caf/type_id.hpp>

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

// -- how CAF carries the structs: an inspect per type, one type-ID block ----------------
// Why inspect, though messages never leave the process: CAF can then print every message
// (deep_to_string) and check each type at registration, instead of taking them unseen.
// CAF 0.17 has no inspect of nlohmann::json or std::optional, so two proxies carry those
// members: a json value as its text, an optional as a flag and a value.
namespace toolwire::actors::carried {

struct json_member {
  protocol::json& value;
};

template <class T>
struct optional_member {
  std::optional<T>& value;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, json_member& x) {
  // Why replace: a string of raw bytes must print, not throw.
  std::string text = x.value.dump(-1, ' ', false, protocol::json::error_handler_t::replace);
  return f(text, caf::meta::load_callback([&]() -> caf::error {
             x.value = protocol::json::parse(text, nullptr, false);
             if (x.value.is_discarded()) return caf::make_error(caf::sec::invalid_argument);
             return caf::none;
           }));
}

template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, optional_member<T>& x) {
  bool engaged = x.value.has_value();
  T value = engaged ? *x.value : T{};
  return f(engaged, value, caf::meta::load_callback([&]() -> caf::error {
             if (engaged) {
               x.value = std::move(value);
             } else {
               x.value.reset();
             }
             return caf::none;
           }));
}

}  // namespace toolwire::actors::carried

namespace toolwire::protocol {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, api_request& x) {
  actors::carried::optional_member<std::string> credential{x.credential};
  actors::carried::optional_member<std::string> last_event_id{x.last_event_id};
  return f(caf::meta::type_name("api_request"), x.method, x.path, x.query, credential,
           last_event_id, x.body, x.cors);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stream_directive& x) {
  return f(caf::meta::type_name("stream_directive"), x.session_id, x.after_seq, x.cors);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, api_response& x) {
  actors::carried::json_member body{x.body};
  actors::carried::optional_member<stream_directive> stream{x.stream};
  return f(caf::meta::type_name("api_response"), x.status, body, stream, x.allow, x.cors);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, model_tool_call& x) {
  return f(caf::meta::type_name("model_tool_call"), x.id, x.name, x.arguments);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, model_answer& x) {
  actors::carried::optional_member<std::string> text{x.text};
  return f(caf::meta::type_name("model_answer"), text, x.tool_calls);
}

}  // namespace toolwire::protocol

namespace toolwire::reference_server {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_event& x) {
  actors::carried::json_member data{x.data};
  return f(caf::meta::type_name("session_event"), x.session_id, x.seq, x.type, data, x.at);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, model_step_request& x) {
  actors::carried::json_member conversation{x.conversation};
  bool task = x.owner == model_step_request::owner_kind::task;
  json tools_value = x.tools.to_json();  // saved as JSON; loaded back into the snapshot below
  actors::carried::json_member tools{tools_value};
  return f(caf::meta::type_name("model_step_request"), x.step_id, task, x.owner_id, x.after_seq,
           conversation, tools, caf::meta::load_callback([&]() -> caf::error {
             x.owner =
                 task ? model_step_request::owner_kind::task : model_step_request::owner_kind::turn;
             x.tools = reference_server::offered_tools::from_json(tools_value);
             return caf::none;
           }));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, model_reply& x) {
  actors::carried::optional_member<protocol::model_answer> answer{x.answer};
  return f(caf::meta::type_name("model_reply"), answer, x.failure);
}

}  // namespace toolwire::reference_server

namespace toolwire::actors {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_model_calls& x) {
  carried::json_member calls{x.calls};
  return f(caf::meta::type_name("task_model_calls"), x.task_uuid, calls);
}

}  // namespace toolwire::actors

// The structs actors send one another, each with its CAF type ID; the simulator's actor
// system registers the block (caf::id_block::toolwire_messages).
CAF_BEGIN_TYPE_ID_BLOCK(toolwire_messages, caf::first_custom_type_id)
CAF_ADD_TYPE_ID(toolwire_messages, (toolwire::protocol::api_request))
CAF_ADD_TYPE_ID(toolwire_messages, (toolwire::protocol::api_response))
CAF_ADD_TYPE_ID(toolwire_messages, (toolwire::reference_server::session_event))
CAF_ADD_TYPE_ID(toolwire_messages, (toolwire::reference_server::model_step_request))
CAF_ADD_TYPE_ID(toolwire_messages, (toolwire::reference_server::model_reply))
CAF_ADD_TYPE_ID(toolwire_messages, (toolwire::actors::task_model_calls))
CAF_END_TYPE_ID_BLOCK(toolwire_messages)
