// Faults of the turn rules (messages, model steps, the tools offered, what the model gets
// back): each a layer over the policy beneath it (policy_layer.hpp), named with the rule
// it breaks.
#include <algorithm>

#include "policy_layer.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::reference_server::detail {

namespace {

using protocol::outcome;

//! Fault user_text_trimmed (MODEL-3): a message's text, and a task's input, reach the
//! model without their surrounding whitespace.
class user_text_trimmed final : public policy_layer {
  using policy_layer::policy_layer;

  outcome<protocol::message_request> read_message(const json& body) const override {
    auto request = inner().read_message(body);
    if (request) request->content = trimmed(request->content);
    return request;
  }

  std::string task_input_text(const state& s, std::string text) const override {
    return trimmed(inner().task_input_text(s, std::move(text)));
  }

  static std::string trimmed(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
  }
};

//! Fault concurrent_turns_accepted (SES-2): a second turn starts over the running one.
class concurrent_turns_accepted final : public policy_layer {
  using policy_layer::policy_layer;
  std::optional<api_error> refuse_message(const session_record&) const override {
    return std::nullopt;
  }
};

//! Fault only_first_tool_call_taken (MODEL-2): an answer's calls after its first are lost.
class only_first_tool_call_taken final : public policy_layer {
  using policy_layer::policy_layer;
  protocol::model_answer answer_as_taken(protocol::model_answer answer) const override {
    answer = inner().answer_as_taken(std::move(answer));
    if (answer.tool_calls.size() > 1) answer.tool_calls.resize(1);
    return answer;
  }
};

//! Fault model_failure_hangs_turn (MODEL-4): a failed model step is dropped; the turn
//! never ends and stays awaiting_model, a task stays processing.
class model_failure_hangs_turn final : public policy_layer {
  using policy_layer::policy_layer;
  bool model_failure_fails_turn() const override { return false; }
  bool model_failure_fails_task() const override { return false; }
};

//! Fault model_name_uses_requested_name (CALL-2): the model-side name of a client's tool
//! starts with the requested name, not the assigned one.
class model_name_uses_requested_name final : public policy_layer {
  using policy_layer::policy_layer;
  const std::string& model_side_name(const client_record& client) const override {
    return client.requested_name;
  }
};

//! Fault newly_live_tool_refused (TOOLS-5): the step's offer decides, not liveness at the
//! answer: a tool registered or PUT during the step is refused as tool_unavailable.
class newly_live_tool_refused final : public policy_layer {
  using policy_layer::policy_layer;
  bool dispatches_live_tool(const turn_record& turn, const std::string& model_name) const override {
    return turn.offered_at_step.offers(model_name);
  }
};

//! Fault unavailable_tool_dispatched (TOOLS-5): a withdrawn tool of a live client is
//! dispatched anyway.
class unavailable_tool_dispatched final : public policy_layer {
  using policy_layer::policy_layer;
  unoffered_call call_to_unoffered_tool(bool names_live_client) const override {
    if (names_live_client) return unoffered_call::dispatched;
    return inner().call_to_unoffered_tool(names_live_client);
  }
};

//! Fault unresolved_call_never_settled (TOOLS-5): a name no live client has is left hanging.
class unresolved_call_never_settled final : public policy_layer {
  using policy_layer::policy_layer;
  unoffered_call call_to_unoffered_tool(bool names_live_client) const override {
    if (!names_live_client) return unoffered_call::left_open;
    return inner().call_to_unoffered_tool(names_live_client);
  }
};

//! Fault next_step_before_all_settled (CALL-9): the first settlement moves the turn on.
class next_step_before_all_settled final : public policy_layer {
  using policy_layer::policy_layer;
  bool step_complete(const turn_record& turn) const override {
    return std::any_of(turn.slots.begin(), turn.slots.end(),
                       [](const step_slot& slot) { return slot.outcome.has_value(); });
  }
};

//! Fault string_content_serialized (CALL-8): string content reaches the model JSON-quoted.
class string_content_serialized final : public policy_layer {
  using policy_layer::policy_layer;
  std::string content_for_model(const tool_outcome& outcome) const override {
    if (const auto* content = std::get_if<json>(&outcome)) return protocol::safe_dump(*content);
    return inner().content_for_model(outcome);
  }
};

//! Fault error_result_message_only (CALL-8): an error reaches the model as its bare
//! message, from a turn's call and from a task's alike.
class error_result_message_only final : public policy_layer {
  using policy_layer::policy_layer;
  std::string content_for_model(const tool_outcome& outcome) const override {
    if (const auto* error = std::get_if<protocol::tool_error>(&outcome)) return error->message;
    return inner().content_for_model(outcome);
  }
  std::string task_model_content(const tool_outcome& outcome) const override {
    if (const auto* error = std::get_if<protocol::tool_error>(&outcome)) return error->message;
    return inner().task_model_content(outcome);
  }
};

//! Fault tool_message_uses_our_call_id (MODEL-1): the tool message answers our call id.
class tool_message_uses_our_call_id final : public policy_layer {
  using policy_layer::policy_layer;
  const std::string& tool_call_id_for_model(const step_slot& slot) const override {
    if (!slot.call_id.empty()) return slot.call_id;
    return inner().tool_call_id_for_model(slot);
  }
};

constexpr fault_layer turn_layers[]{
    {fault::user_text_trimmed, layered<user_text_trimmed>},
    {fault::concurrent_turns_accepted, layered<concurrent_turns_accepted>},
    {fault::only_first_tool_call_taken, layered<only_first_tool_call_taken>},
    {fault::model_failure_hangs_turn, layered<model_failure_hangs_turn>},
    {fault::model_name_uses_requested_name, layered<model_name_uses_requested_name>},
    {fault::newly_live_tool_refused, layered<newly_live_tool_refused>},
    {fault::unavailable_tool_dispatched, layered<unavailable_tool_dispatched>},
    {fault::unresolved_call_never_settled, layered<unresolved_call_never_settled>},
    {fault::next_step_before_all_settled, layered<next_step_before_all_settled>},
    {fault::string_content_serialized, layered<string_content_serialized>},
    {fault::error_result_message_only, layered<error_result_message_only>},
    {fault::tool_message_uses_our_call_id, layered<tool_message_uses_our_call_id>},
};

}  // namespace

std::span<const fault_layer> turn_fault_layers() {
  return turn_layers;
}

}  // namespace toolwire::reference_server::detail
