// Model turns of a session (SES-2, section 6): the loop of model steps, the tools each
// step is offered (TOOLS-3, TOOLS-6, CALL-2), resolving the model's calls to clients
// (CALL-1, TOOLS-5), and the one tool result per call the model receives (CALL-8, CALL-9).
// Every status change of a turn goes through the turn table (lifecycle.hpp).
#include <algorithm>

#include "core_state.hpp"
#include "toolwire/protocol/codec.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::reference::detail {

using protocol::outcome;

namespace {

const char* const tool_separator = "__";

struct resolved_tool {
  client_record* client = nullptr;  // the live client the name designates, if any
  const tool_spec* tool = nullptr;  // the offered tool, if any
  std::string tool_name;            // the part after `__`
};

//! The tools a client offers the model: its list, plus (faults only) what it withdrew.
std::vector<const tool_spec*> offered_by(const state& s, const client_record& client) {
  std::vector<const tool_spec*> tools;
  for (const auto& tool : client.tools)
    tools.push_back(&tool);
  if (s.has(fault::withdrawn_tool_offered)) {
    for (const auto& tool : client.withdrawn_tools)
      tools.push_back(&tool);
  }
  return tools;
}

//! The client part of the model-side names of `client`'s tools (CALL-2).
const std::string& model_side_name(const state& s, const client_record& client) {
  // Fault model_name_uses_requested_name: the requested name instead of the assigned one.
  return s.has(fault::model_name_uses_requested_name) ? client.requested_name : client.name;
}

//! Finds the offered tool the model named: an exact `<client>__<tool>` match over the
//! live clients in registration order (names may themselves contain `__`). Without one,
//! the live client whose `<name>__` is the longest prefix, so TOOLS-5 can name it.
resolved_tool resolve(const state& s, session_record& session, const std::string& model_name) {
  for (auto& [serial, client] : session.clients) {
    for (const tool_spec* tool : offered_by(s, client)) {
      if (model_side_name(s, client) + tool_separator + tool->name == model_name) {
        return {&client, tool, tool->name};
      }
    }
  }
  resolved_tool best;
  std::size_t best_length = 0;
  for (auto& [serial, client] : session.clients) {
    const std::string prefix = model_side_name(s, client) + tool_separator;
    if (model_name.size() <= prefix.size() || model_name.compare(0, prefix.size(), prefix) != 0 ||
        prefix.size() <= best_length) {
      continue;
    }
    best_length = prefix.size();
    best.client = &client;
    best.tool_name = model_name.substr(prefix.size());
  }
  return best;
}

void end_turn(session_record& session) {
  session.turn.reset();
}

void issue_step(state& s, session_record& session, time_ms now) {
  turn_record& turn = *session.turn;
  if (turn.steps >= s.config.max_model_steps) {
    move(turn.status, turn_event::step_limit_reached);
    emit(s, session, "turn_failed", {{"turn_id", turn.id}, {"reason", "max_steps_exceeded"}}, now);
    end_turn(session);
    return;
  }
  move(turn.status, turn_event::step_requested);
  ++turn.steps;
  turn.slots.clear();
  // TOOLS-6: the step's tool list is one snapshot, taken here, all at once.
  turn.waiting_step = request_model_step(s, {model_step_request::owner_kind::turn, session.id},
                                         turn.messages, offered_tools(s, session));
}

//! What the model gets back for a slot (CALL-8).
std::string content_for_model(const state& s, const tool_outcome& outcome) {
  // Fault string_content_serialized: string content reaches the model JSON-quoted.
  if (s.has(fault::string_content_serialized) && std::holds_alternative<json>(outcome)) {
    return protocol::safe_dump(std::get<json>(outcome));
  }
  // Fault error_result_message_only: an error reaches the model as its bare message.
  if (const auto* error = std::get_if<protocol::tool_error>(&outcome);
      error != nullptr && s.has(fault::error_result_message_only)) {
    return error->message;
  }
  return protocol::model_content(outcome);
}

//! Fault completed_event_deferred (SES-5): the client_tool_completed events of the step's
//! completed calls, emitted only now that the step is over.
void emit_deferred_completions(state& s, session_record& session, time_ms now) {
  if (!s.has(fault::completed_event_deferred)) return;
  for (const auto& slot : session.turn->slots) {
    auto call = session.calls.find(slot.call_id);
    if (slot.call_id.empty() || call == session.calls.end() ||
        call->second.status != call_status::completed || !slot.outcome) {
      continue;
    }
    emit(s, session, "client_tool_completed",
         {{"call_id", call->second.id},
          {"client_id", call->second.client_id},
          {"is_error", std::holds_alternative<protocol::tool_error>(*slot.outcome)}},
         now);
  }
}

void continue_turn(state& s, session_record& session, time_ms now) {
  turn_record& turn = *session.turn;
  emit_deferred_completions(s, session, now);
  for (const auto& slot : turn.slots) {
    if (!slot.outcome) continue;  // only under fault next_step_before_all_settled
    // Fault tool_message_uses_our_call_id: the tool message answers our call id (MODEL-1).
    const bool ours = s.has(fault::tool_message_uses_our_call_id) && !slot.call_id.empty();
    turn.messages.push_back({{"role", "tool"},
                             {"tool_call_id", ours ? slot.call_id : slot.model_call_id},
                             {"content", content_for_model(s, *slot.outcome)}});
  }
  issue_step(s, session, now);
}

bool step_complete(const state& s, const turn_record& turn) {
  auto settled = [](const step_slot& slot) { return slot.outcome.has_value(); };
  // Fault next_step_before_all_settled: the first settlement moves the turn on (CALL-9).
  if (s.has(fault::next_step_before_all_settled)) {
    return std::any_of(turn.slots.begin(), turn.slots.end(), settled);
  }
  return std::all_of(turn.slots.begin(), turn.slots.end(), settled);
}

//! TOOLS-5: a call naming a tool that is not offered now is settled at once. Only a name
//! that designates a live client gets a call id (and a call record); the model's error
//! result alone records any other.
void settle_unavailable(state& s, session_record& session, std::size_t slot,
                        const resolved_tool& target, time_ms now) {
  const std::string& model_name = session.turn->slots[slot].model_name;
  if (target.client != nullptr) {
    fail_unavailable_call(s, session, *target.client, target.tool_name, slot, now);
  }
  settle_slot(s, session, slot,
              protocol::tool_error{"tool '" + model_name + "' is not offered", "tool_unavailable"},
              now);
}

void start_call(state& s, session_record& session, std::size_t slot,
                const protocol::model_tool_call& call, time_ms now) {
  // Why bounded: the model is outside input; a value nested too deep is not dispatched.
  auto parsed = protocol::parse_untrusted_json(call.arguments, "arguments");
  json arguments = parsed ? std::move(*parsed) : json(json::value_t::discarded);
  if (arguments.is_discarded()) {
    settle_slot(
        s, session, slot,
        protocol::tool_error{"arguments of '" + call.name + "' are not JSON", "invalid_arguments"},
        now);
    return;
  }
  resolved_tool target = resolve(s, session, call.name);
  // Fault unavailable_tool_dispatched: a withdrawn tool of a live client is dispatched anyway.
  if (target.tool == nullptr && target.client != nullptr &&
      s.has(fault::unavailable_tool_dispatched)) {
    const tool_spec withdrawn{target.tool_name, "", json::object()};
    dispatch_call(s, session, *target.client, withdrawn, std::move(arguments), slot, now);
    return;
  }
  // Fault unresolved_call_never_settled: a name no live client has is left hanging (TOOLS-5).
  if (target.tool == nullptr && target.client == nullptr &&
      s.has(fault::unresolved_call_never_settled)) {
    return;
  }
  if (target.tool == nullptr) {
    settle_unavailable(s, session, slot, target, now);
    return;
  }
  dispatch_call(s, session, *target.client, *target.tool, std::move(arguments), slot, now);
}

}  // namespace

json offered_tools(const state& s, const session_record& session) {
  json tools = json::array();
  auto add_client = [&](const client_record& client) {
    for (const tool_spec* tool : offered_by(s, client)) {
      tools.push_back(protocol::to_openai_tool(
          model_side_name(s, client) + tool_separator + tool->name, *tool));
    }
  };
  for (const auto& [serial, client] : session.clients)
    add_client(client);
  // Fault departed_client_tools_offered: tools of clients that ended are still offered.
  for (const auto& [serial, client] : session.departed)
    add_client(client);
  return tools;
}

outcome<json> post_message(state& s, session_record& session, const json& body, time_ms now) {
  if (auto known = reject_unknown_fields_by_fault(s, body, {"content"}); !known) {
    return known.error();
  }
  auto request = protocol::parse_message_request(body);
  if (!request) return request.error();
  if (session.turn && !s.has(fault::concurrent_turns_accepted)) {
    return protocol::conflict("turn '" + session.turn->id +
                              "' is still running: one turn at a time per session (SES-2)");
  }
  turn_record turn;
  turn.id = "turn_" + std::to_string(s.next_turn++);
  turn.messages.push_back({{"role", "user"}, {"content", user_text_by_fault(s, request->content)}});
  session.turn = std::move(turn);
  emit(s, session, "turn_started", {{"turn_id", session.turn->id}}, now);
  const std::string turn_id = session.turn->id;
  issue_step(s, session, now);
  return json{{"turn_id", turn_id}};
}

void turn_model_replied(state& s, session_record& session, const model_reply& reply, time_ms now) {
  turn_record& turn = *session.turn;
  turn.waiting_step = 0;
  // Fault model_failure_hangs_turn: the failure is dropped and the turn never ends (MODEL-4);
  // it stays awaiting_model.
  if (!reply.answer && s.has(fault::model_failure_hangs_turn)) return;
  if (!reply.answer) {
    move(turn.status, turn_event::model_failed);
    emit(s, session, "turn_failed",
         {{"turn_id", turn.id}, {"reason", "model_error: " + reply.failure}}, now);
    end_turn(session);
    return;
  }
  const protocol::model_answer& answer = first_call_only_by_fault(s, *reply.answer);
  turn.messages.push_back(protocol::to_assistant_message(answer));
  if (answer.tool_calls.empty()) {
    move(turn.status, turn_event::text_answer);
    emit(s, session, "turn_completed", {{"turn_id", turn.id}, {"output", answer.text.value_or("")}},
         now);
    end_turn(session);
    return;
  }
  for (const auto& call : answer.tool_calls) {
    turn.slots.push_back({call.id, call.name, "", std::nullopt});
  }
  // Why dispatching: a call settled at once must not start the next step before the
  // later calls of the same answer have been dispatched (settle_slot waits for this).
  move(turn.status, turn_event::tool_calls);
  for (std::size_t i = 0; i < answer.tool_calls.size(); ++i) {
    start_call(s, session, i, answer.tool_calls[i], now);
  }
  move(turn.status, turn_event::calls_resolved);
  if (!step_complete(s, turn)) return;
  move(turn.status, turn_event::calls_settled);
  continue_turn(s, session, now);
}

void settle_slot(state& s, session_record& session, std::size_t slot, tool_outcome outcome,
                 time_ms now) {
  turn_record& turn = *session.turn;
  turn.slots[slot].outcome = std::move(outcome);
  // Only a turn awaiting its calls moves on here: a dispatching one does so once the
  // answer's last call is out (turn_model_replied), a settled one already waits for its
  // next step.
  if (!allows(turn.status, turn_event::calls_settled) || !step_complete(s, turn)) return;
  move(turn.status, turn_event::calls_settled);
  if (s.firing_timers) {
    s.deferred_turns.push_back(session.id);
    return;
  }
  continue_turn(s, session, now);
}

void run_deferred_turns(state& s, time_ms now) {
  std::vector<std::string> sessions;
  std::swap(sessions, s.deferred_turns);
  for (const auto& sid : sessions) {
    auto session = s.sessions.find(sid);
    if (session == s.sessions.end() || !session->second.turn) continue;
    // A turn that is no longer settled has moved on already.
    if (session->second.turn->status == turn_status::settled) {
      continue_turn(s, session->second, now);
    }
  }
}

}  // namespace toolwire::reference::detail
