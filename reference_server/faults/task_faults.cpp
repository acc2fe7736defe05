// Faults of the task rules (TASK-1..10, and the CALL-8, MODEL-2..4, C-6, REG-1 and REG-3
// rules where tasks meet them): the faulty answers of policy.hpp's task decision points.
// Each fault is named with the rule it breaks; without its fault, each override gives the
// clean answer.
#include <algorithm>
#include <string>
#include <utility>
#include <variant>

#include "faulty_policy.hpp"

namespace toolwire::reference_server::detail {

namespace {

//! Fault assistant_id_coerced (TASK-1): a float or a string of digits is read as an id.
void coerce_assistant_id(json& id) {
  if (id.is_number_float()) id = static_cast<std::int64_t>(id.get<double>());
  if (!id.is_string()) return;
  const std::string text = id.get<std::string>();
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (digits && text.size() < 18) id = std::stoll(text);
}

//! Fault unknown_fields_rejected (C-6): a 400 for an unknown field of the body or of one of
//! its items.
std::optional<api_error> unknown_tool_results_field(const json& body) {
  if (auto unknown = unknown_field_refused(body, {"tool_results"})) return unknown;
  if (body.is_object() && body.contains("tool_results") && body["tool_results"].is_array()) {
    for (const auto& item : body["tool_results"]) {
      if (auto unknown = unknown_field_refused(item, {"id", "content", "error", "reason"})) {
        return unknown;
      }
    }
  }
  return std::nullopt;
}

//! Fault tool_results_items_applied_one_by_one (TASK-4): each item is checked and applied
//! in turn, so a bad item leaves the ones before it applied; the round ends when none is
//! pending any more.
protocol::outcome<protocol::done> apply_items_one_by_one(const state& s, task_record& task,
                                                         const json& body) {
  if (!body.is_object() || !body.contains("tool_results") || !body["tool_results"].is_array()) {
    auto request = protocol::parse_tool_results_request(body);
    return request.error();
  }
  for (const auto& item : body["tool_results"]) {
    auto one = protocol::parse_tool_results_request({{"tool_results", json::array({item})}});
    if (!one) return one.error();
    const auto& result = one->results.front();
    auto call = std::find_if(task.pending.begin(), task.pending.end(),
                             [&](const pending_tool_call& p) { return p.id == result.id; });
    if (call == task.pending.end()) {
      return protocol::invalid_request("'" + result.id + "' is not a pending call (TASK-4)");
    }
    apply_result(s, task, *call, result.outcome);
    task.pending.erase(call);
  }
  if (!task.pending.empty()) {
    return protocol::invalid_request("tool_results: some pending calls have no result (TASK-4)");
  }
  return protocol::done{};
}

}  // namespace

// -- creating a task ----------------------------------------------------------------------

protocol::outcome<protocol::task_create_request> faulty_policy::read_task_request(
    const json& body) const {
  json relaxed = body;
  // Fault duplicate_tool_names_collapsed (REG-3).
  if (has(fault::duplicate_tool_names_collapsed)) {
    relaxed = collapsed_duplicate_tools(std::move(relaxed), "client_tools");
  }
  if (relaxed.is_object()) {
    // Fault task_tool_description_optional (TASK-1).
    if (has(fault::task_tool_description_optional) && relaxed.contains("client_tools") &&
        relaxed["client_tools"].is_array()) {
      for (auto& tool : relaxed["client_tools"])
        if (tool.is_object() && !tool.contains("description")) tool["description"] = "";
    }
    if (has(fault::assistant_id_coerced) && relaxed.contains("assistant_id")) {
      coerce_assistant_id(relaxed["assistant_id"]);
    }
  }
  // Fault invalid_tool_name_accepted (REG-1), for a task's tools as for a client's.
  tool_name_stand_ins names;
  if (has(fault::invalid_tool_name_accepted)) {
    relaxed = names.replace(std::move(relaxed), "client_tools");
  }
  auto request = protocol::parse_task_create_request(relaxed);
  if (!request) return names.restore(request.error());
  names.restore(request->client_tools);
  return request;
}

bool faulty_policy::knows_assistant(const state& s, std::int64_t assistant_id) const {
  // Fault unknown_assistant_accepted (TASK-1): the assistant is never looked up.
  return has(fault::unknown_assistant_accepted) || rule_policy::knows_assistant(s, assistant_id);
}

std::string faulty_policy::task_input_text(const state& s, std::string text) const {
  // Fault user_text_trimmed (MODEL-3), as for a turn's message.
  if (!has(fault::user_text_trimmed)) return rule_policy::task_input_text(s, std::move(text));
  return trimmed(text);
}

std::string faulty_policy::offered_task_tool_name(const tool_spec& tool) const {
  // Fault task_tools_offered_prefixed (TASK-10): the model sees a namespaced name.
  if (has(fault::task_tools_offered_prefixed)) return "client_tools__" + tool.name;
  return rule_policy::offered_task_tool_name(tool);
}

// -- the model's answers --------------------------------------------------------------------

bool faulty_policy::model_failure_fails_task() const {
  // Fault model_failure_hangs_turn (MODEL-4): the failure is dropped; the task stays
  // processing.
  return !has(fault::model_failure_hangs_turn) && rule_policy::model_failure_fails_task();
}

void faulty_policy::before_round_numbered(task_record& task) const {
  // Fault task_call_ids_restart_each_round (TASK-9): every round numbers its calls from 1,
  // so a later round reuses the ids of the first.
  if (has(fault::task_call_ids_restart_each_round)) task.next_call = 1;
}

bool faulty_policy::surfaced_as_pending(const task_record& task, const std::string& tool) const {
  // Fault undeclared_tool_surfaced (TASK-8): a call of any tool becomes pending.
  return has(fault::undeclared_tool_surfaced) || rule_policy::surfaced_as_pending(task, tool);
}

std::string faulty_policy::output_tool_name(const std::string& declared) const {
  // Fault task_output_prefixed (TASK-6): the output shows the model-side, prefixed name.
  if (has(fault::task_output_prefixed)) return "client_tools__" + declared;
  return rule_policy::output_tool_name(declared);
}

std::optional<time_ms> faulty_policy::interrupt_deadline(const state& s, const task_record& task,
                                                         time_ms now) const {
  // Fault interrupt_never_times_out (TASK-7): an interrupted task waits for ever.
  if (has(fault::interrupt_never_times_out)) return std::nullopt;
  // Fault interrupt_deadline_from_creation (TASK-7): the timeout counts from creation.
  if (has(fault::interrupt_deadline_from_creation)) {
    return task.created_at + s.config.interrupt_timeout_ms;
  }
  return rule_policy::interrupt_deadline(s, task, now);
}

// -- what a task shows ----------------------------------------------------------------------

std::string faulty_policy::shown_pending_id(const task_record& task,
                                            const pending_tool_call& call) const {
  // Fault pending_shows_model_call_ids (TASK-3): the model's own id is shown, not ours.
  if (has(fault::pending_shows_model_call_ids)) return task.round.at(call.round_index).first;
  return rule_policy::shown_pending_id(task, call);
}

std::string_view faulty_policy::shown_status(const task_record& task) const {
  // Fault task_requeued_as_pending (TASK-5): a task back from interruption shows as pending.
  if (has(fault::task_requeued_as_pending) && task.status == task_status::processing &&
      task.steps > 1) {
    return "pending";
  }
  // Fault task_status_renamed (TASK-2): "interrupted" goes out under another API's name.
  if (task.status == task_status::interrupted && has(fault::task_status_renamed)) {
    return "requires_action";
  }
  return rule_policy::shown_status(task);
}

std::string_view faulty_policy::status_after_tool_results() const {
  // Fault task_requeued_as_pending (TASK-5): the accepted task answers that it is pending.
  if (has(fault::task_requeued_as_pending)) return "pending";
  return rule_policy::status_after_tool_results();
}

// -- tool-results ---------------------------------------------------------------------------

protocol::api_error faulty_policy::missing_task_refusal(const std::string& uuid) const {
  // Fault tool_results_unknown_task_409 (TASK-4): a missing task counts as "not interrupted".
  if (has(fault::tool_results_unknown_task_409)) {
    return protocol::conflict("task '" + uuid + "' is not interrupted (TASK-4)");
  }
  return rule_policy::missing_task_refusal(uuid);
}

protocol::outcome<protocol::done> faulty_policy::check_before_status(const task_record& task,
                                                                     const json& body) const {
  // Fault task_409_checked_after_items (TASK-4): the items are validated before the status.
  if (has(fault::task_409_checked_after_items)) {
    auto early = protocol::parse_tool_results_request(body);
    if (!early) return early.error();
  }
  // Fault tool_results_status_unchecked (TASK-4): the items are judged by the task's
  // pending calls whatever its status; a task that is not interrupted has none, so every
  // id is unknown (a round posted again once accepted is 400, not 409).
  if (has(fault::tool_results_status_unchecked) && task.pending.empty()) {
    auto request = protocol::parse_tool_results_request(body);
    if (!request) return request.error();
    if (!request->results.empty()) {
      return protocol::invalid_request("tool_results: unknown call id '" +
                                       request->results.front().id + "' (TASK-4)");
    }
  }
  return rule_policy::check_before_status(task, body);
}

protocol::outcome<protocol::tool_results_request> faulty_policy::read_tool_results(
    const state& s, const json& body) const {
  if (has(fault::unknown_fields_rejected)) {
    if (auto unknown = unknown_tool_results_field(body)) return *unknown;
  }
  return rule_policy::read_tool_results(s, body);
}

protocol::outcome<protocol::done> faulty_policy::settle_round(const state& s, task_record& task,
                                                              const json& body) const {
  if (!has(fault::tool_results_items_applied_one_by_one)) {
    return rule_policy::settle_round(s, task, body);
  }
  if (has(fault::unknown_fields_rejected)) {
    if (auto unknown = unknown_tool_results_field(body)) return *unknown;
  }
  return apply_items_one_by_one(s, task, body);
}

protocol::outcome<protocol::done> faulty_policy::check_round_covered(
    const task_record& task, const std::set<std::string>& answered) const {
  // Fault partial_tool_results_accepted (TASK-4): the calls left without a result are
  // dropped with the round.
  if (has(fault::partial_tool_results_accepted)) return protocol::done{};
  return rule_policy::check_round_covered(task, answered);
}

std::string faulty_policy::task_model_content(const tool_outcome& outcome) const {
  // Fault error_result_message_only (CALL-8): an error reaches the model as its bare message.
  if (const auto* error = std::get_if<protocol::tool_error>(&outcome);
      error != nullptr && has(fault::error_result_message_only)) {
    return error->message;
  }
  return rule_policy::task_model_content(outcome);
}

}  // namespace toolwire::reference_server::detail
