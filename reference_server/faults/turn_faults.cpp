// Faults of the turn rules (messages, model steps, the tools offered, what the model gets
// back): the faulty answers of policy.hpp's turn decision points. Each fault is named with
// the rule it breaks; without its fault, each override gives the clean answer.
#include <algorithm>

#include "faulty_policy.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::reference_server::detail {

using protocol::outcome;

outcome<protocol::message_request> faulty_policy::read_message(const json& body) const {
  // Fault unknown_fields_rejected (C-6).
  if (has(fault::unknown_fields_rejected)) {
    if (auto known = unknown_field_refused(body, {"content"})) return *known;
  }
  auto request = rule_policy::read_message(body);
  // Fault user_text_trimmed (MODEL-3): the text reaches the model without its surrounding
  // whitespace.
  if (request && has(fault::user_text_trimmed)) request->content = trimmed(request->content);
  return request;
}

std::optional<api_error> faulty_policy::refuse_message(const session_record& session) const {
  // Fault concurrent_turns_accepted (SES-2): a second turn starts over the running one.
  if (has(fault::concurrent_turns_accepted)) return std::nullopt;
  return rule_policy::refuse_message(session);
}

protocol::model_answer faulty_policy::answer_as_taken(protocol::model_answer answer) const {
  // Fault only_first_tool_call_taken (MODEL-2).
  if (has(fault::only_first_tool_call_taken) && answer.tool_calls.size() > 1) {
    answer.tool_calls.resize(1);
  }
  return answer;
}

void faulty_policy::model_step_failed(state& s, session_record& session, const std::string& why,
                                      time_ms now) const {
  // Fault model_failure_hangs_turn (MODEL-4): the failure is dropped; the turn never ends
  // and stays awaiting_model.
  if (!has(fault::model_failure_hangs_turn)) rule_policy::model_step_failed(s, session, why, now);
}

std::vector<const client_record*> faulty_policy::offering_clients(
    const session_record& session) const {
  auto clients = rule_policy::offering_clients(session);
  // Fault departed_client_tools_offered (LIFE-4): clients that ended still offer tools.
  if (has(fault::departed_client_tools_offered)) {
    for (const auto& [serial, client] : session.departed)
      clients.push_back(&client);
  }
  return clients;
}

std::vector<const tool_spec*> faulty_policy::tools_offered_by(const client_record& client) const {
  auto tools = rule_policy::tools_offered_by(client);
  // Fault withdrawn_tool_offered (TOOLS-1): what a PUT withdrew is still offered.
  if (has(fault::withdrawn_tool_offered)) {
    for (const auto& tool : client.withdrawn_tools)
      tools.push_back(&tool);
  }
  return tools;
}

const std::string& faulty_policy::model_side_name(const client_record& client) const {
  // Fault model_name_uses_requested_name (CALL-2): the requested name, not the assigned one.
  if (has(fault::model_name_uses_requested_name)) return client.requested_name;
  return rule_policy::model_side_name(client);
}

bool faulty_policy::dispatches_live_tool(const turn_record& turn,
                                         const std::string& model_name) const {
  // Fault newly_live_tool_refused (TOOLS-5): the step's offer decides, not liveness at the
  // answer: a tool registered or PUT during the step is refused as tool_unavailable.
  if (has(fault::newly_live_tool_refused)) return turn.offered_at_step->count(model_name) != 0;
  return rule_policy::dispatches_live_tool(turn, model_name);
}

void faulty_policy::call_to_unoffered_tool(state& s, session_record& session, std::size_t slot,
                                           client_record* client, const std::string& tool_name,
                                           json arguments, time_ms now) const {
  // Fault unavailable_tool_dispatched (TOOLS-5): a withdrawn tool of a live client is
  // dispatched anyway.
  if (client != nullptr && has(fault::unavailable_tool_dispatched)) {
    const tool_spec withdrawn{tool_name, "", json::object()};
    dispatch_call(s, session, *client, withdrawn, std::move(arguments), slot, now);
    return;
  }
  // Fault unresolved_call_never_settled (TOOLS-5): a name no live client has is left hanging.
  if (client == nullptr && has(fault::unresolved_call_never_settled)) return;
  rule_policy::call_to_unoffered_tool(s, session, slot, client, tool_name, std::move(arguments),
                                      now);
}

bool faulty_policy::step_complete(const turn_record& turn) const {
  // Fault next_step_before_all_settled (CALL-9): the first settlement moves the turn on.
  if (has(fault::next_step_before_all_settled)) {
    return std::any_of(turn.slots.begin(), turn.slots.end(),
                       [](const step_slot& slot) { return slot.outcome.has_value(); });
  }
  return rule_policy::step_complete(turn);
}

std::string faulty_policy::content_for_model(const tool_outcome& outcome) const {
  // Fault string_content_serialized (CALL-8): string content reaches the model JSON-quoted.
  if (has(fault::string_content_serialized) && std::holds_alternative<json>(outcome)) {
    return protocol::safe_dump(std::get<json>(outcome));
  }
  // Fault error_result_message_only (CALL-8): an error reaches the model as its bare message.
  if (const auto* error = std::get_if<protocol::tool_error>(&outcome);
      error != nullptr && has(fault::error_result_message_only)) {
    return error->message;
  }
  return rule_policy::content_for_model(outcome);
}

const std::string& faulty_policy::tool_call_id_for_model(const step_slot& slot) const {
  // Fault tool_message_uses_our_call_id (MODEL-1): the tool message answers our call id.
  if (has(fault::tool_message_uses_our_call_id) && !slot.call_id.empty()) return slot.call_id;
  return rule_policy::tool_call_id_for_model(slot);
}

void faulty_policy::step_over(state& s, session_record& session, time_ms now) const {
  // Fault completed_event_deferred (SES-5): the client_tool_completed events of the step's
  // completed calls, emitted only now that the step is over.
  if (!has(fault::completed_event_deferred)) return;
  for (const auto& slot : session.turn->slots) {
    auto call = session.calls.find(slot.call_id);
    if (slot.call_id.empty() || call == session.calls.end() ||
        call->second.status != call_status::completed || !slot.outcome) {
      continue;
    }
    emit_completed(s, session, call->second,
                   std::holds_alternative<protocol::tool_error>(*slot.outcome), now);
  }
}

}  // namespace toolwire::reference_server::detail
