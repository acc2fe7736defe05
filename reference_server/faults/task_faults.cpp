// Faults of the task rules (TASK-1..10): each a layer over the policy beneath it
// (policy_layer.hpp), named with the rule it breaks.
#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "policy_layer.hpp"

namespace toolwire::reference_server::detail {

namespace {

using protocol::outcome;

// -- creating a task ------------------------------------------------------------------------

//! Fault task_tool_description_optional (TASK-1): a task's tool without a description is
//! accepted.
class task_tool_description_optional final : public policy_layer {
  using policy_layer::policy_layer;
  outcome<protocol::task_create_request> read_task_request(const json& body) const override {
    if (!body.is_object() || !body.contains("client_tools") || !body["client_tools"].is_array()) {
      return inner().read_task_request(body);
    }
    json relaxed = body;
    for (auto& tool : relaxed["client_tools"])
      if (tool.is_object() && !tool.contains("description")) tool["description"] = "";
    return inner().read_task_request(relaxed);
  }
};

//! Fault assistant_id_coerced (TASK-1): a float or a string of digits is read as an id.
class assistant_id_coerced final : public policy_layer {
  using policy_layer::policy_layer;
  outcome<protocol::task_create_request> read_task_request(const json& body) const override {
    if (!body.is_object() || !body.contains("assistant_id")) return inner().read_task_request(body);
    json relaxed = body;
    json& id = relaxed["assistant_id"];
    if (id.is_number_float()) id = static_cast<std::int64_t>(id.get<double>());
    if (id.is_string()) {
      const std::string text = id.get<std::string>();
      const bool digits =
          !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
      if (digits && text.size() < 18) id = std::stoll(text);
    }
    return inner().read_task_request(relaxed);
  }
};

//! Fault unknown_assistant_accepted (TASK-1): the assistant is never looked up.
class unknown_assistant_accepted final : public policy_layer {
  using policy_layer::policy_layer;
  bool knows_assistant(const state&, std::int64_t) const override { return true; }
};

//! Fault task_tools_offered_prefixed (TASK-10): the model sees a namespaced name.
class task_tools_offered_prefixed final : public policy_layer {
  using policy_layer::policy_layer;
  std::string offered_task_tool_name(const tool_spec& tool) const override {
    return "client_tools__" + tool.name;
  }
};

// -- the model's answers --------------------------------------------------------------------

//! Fault task_call_ids_restart_each_round (TASK-9): every round numbers its calls from 1,
//! so a later round reuses the ids of the first.
class task_call_ids_restart_each_round final : public policy_layer {
  using policy_layer::policy_layer;
  bool call_ids_go_on_across_rounds() const override { return false; }
};

//! Fault undeclared_tool_surfaced (TASK-8): a call of any tool becomes pending.
class undeclared_tool_surfaced final : public policy_layer {
  using policy_layer::policy_layer;
  bool surfaced_as_pending(const task_record&, const std::string&) const override { return true; }
};

//! Fault task_output_prefixed (TASK-6): the output shows the model-side, prefixed name.
class task_output_prefixed final : public policy_layer {
  using policy_layer::policy_layer;
  std::string output_tool_name(const std::string& declared) const override {
    return "client_tools__" + declared;
  }
};

//! Fault interrupt_never_times_out (TASK-7): an interrupted task waits for ever.
class interrupt_never_times_out final : public policy_layer {
  using policy_layer::policy_layer;
  std::optional<time_ms> interrupt_deadline(const state&, const task_record&,
                                            time_ms) const override {
    return std::nullopt;
  }
};

//! Fault interrupt_deadline_from_creation (TASK-7): the timeout counts from creation.
class interrupt_deadline_from_creation final : public policy_layer {
  using policy_layer::policy_layer;
  std::optional<time_ms> interrupt_deadline(const state& s, const task_record& task,
                                            time_ms) const override {
    return task.created_at + s.config.interrupt_timeout_ms;
  }
};

// -- what a task shows ----------------------------------------------------------------------

//! Fault pending_shows_model_call_ids (TASK-3): the model's own id is shown, not ours.
class pending_shows_model_call_ids final : public policy_layer {
  using policy_layer::policy_layer;
  std::string shown_pending_id(const task_record& task,
                               const pending_tool_call& call) const override {
    return task.round.at(call.round_index).first;
  }
};

//! Fault task_requeued_as_pending (TASK-5): a task back from interruption shows, and its
//! accepted tool-results answer, that it is pending.
class task_requeued_as_pending final : public policy_layer {
  using policy_layer::policy_layer;
  std::string_view shown_status(const task_record& task) const override {
    if (task.status == task_status::processing && task.steps > 1) return "pending";
    return inner().shown_status(task);
  }
  std::string_view status_after_tool_results() const override { return "pending"; }
};

//! Fault task_status_renamed (TASK-2): "interrupted" goes out under another API's name.
class task_status_renamed final : public policy_layer {
  using policy_layer::policy_layer;
  std::string_view shown_status(const task_record& task) const override {
    if (task.status == task_status::interrupted) return "requires_action";
    return inner().shown_status(task);
  }
};

// -- tool-results ---------------------------------------------------------------------------

//! Fault tool_results_unknown_task_409 (TASK-4): a missing task counts as "not interrupted".
class tool_results_unknown_task_409 final : public policy_layer {
  using policy_layer::policy_layer;
  protocol::api_error missing_task_refusal(const std::string& uuid) const override {
    return protocol::conflict("task '" + uuid + "' is not interrupted (TASK-4)");
  }
};

//! Fault task_409_checked_after_items (TASK-4): the items are validated before the status.
class task_409_checked_after_items final : public policy_layer {
  using policy_layer::policy_layer;
  outcome<protocol::done> check_before_status(const task_record& task,
                                              const json& body) const override {
    if (auto early = protocol::parse_tool_results_request(body); !early) return early.error();
    return inner().check_before_status(task, body);
  }
};

//! Fault tool_results_status_unchecked (TASK-4): the items are judged by the task's
//! pending calls whatever its status; a task that is not interrupted has none, so every
//! id is unknown (a round posted again once accepted is 400, not 409).
class tool_results_status_unchecked final : public policy_layer {
  using policy_layer::policy_layer;
  outcome<protocol::done> check_before_status(const task_record& task,
                                              const json& body) const override {
    if (task.pending.empty()) {
      auto request = protocol::parse_tool_results_request(body);
      if (!request) return request.error();
      if (!request->results.empty()) {
        return protocol::invalid_request("tool_results: unknown call id '" +
                                         request->results.front().id + "' (TASK-4)");
      }
    }
    return inner().check_before_status(task, body);
  }
};

//! Fault tool_results_items_applied_one_by_one (TASK-4): each item is checked and applied
//! in turn, so a bad item leaves the ones before it applied; the round ends when none is
//! pending any more.
class tool_results_items_applied_one_by_one final : public policy_layer {
  using policy_layer::policy_layer;
  round_settlement settle_round(const state& s, const task_record& task,
                                const json& body) const override {
    // Why beneath: without a list of items it is refused whole, as the SPEC's answer does.
    if (!body.is_object() || !body.contains("tool_results") || !body["tool_results"].is_array()) {
      return inner().settle_round(s, task, body);
    }
    round_settlement settled;
    std::set<std::string> applied;
    for (const auto& item : body["tool_results"]) {
      auto one = s.policy->read_tool_results(s, {{"tool_results", json::array({item})}});
      if (!one) return {std::move(settled.applied), one.error()};
      auto& result = one->results.front();
      const bool pending =
          std::any_of(task.pending.begin(), task.pending.end(),
                      [&](const pending_tool_call& p) { return p.id == result.id; });
      if (!pending || !applied.insert(result.id).second) {
        return {std::move(settled.applied),
                protocol::invalid_request("'" + result.id + "' is not a pending call (TASK-4)")};
      }
      settled.applied.push_back(std::move(result));
    }
    if (applied.size() < task.pending.size()) {
      settled.refusal =
          protocol::invalid_request("tool_results: some pending calls have no result (TASK-4)");
    }
    return settled;
  }
};

//! Fault partial_tool_results_accepted (TASK-4): the calls left without a result are
//! dropped with the round.
class partial_tool_results_accepted final : public policy_layer {
  using policy_layer::policy_layer;
  outcome<protocol::done> check_round_covered(const task_record&,
                                              const std::set<std::string>&) const override {
    return protocol::done{};
  }
};

constexpr fault_layer task_layers[]{
    {fault::task_tool_description_optional, layered<task_tool_description_optional>},
    {fault::assistant_id_coerced, layered<assistant_id_coerced>},
    {fault::unknown_assistant_accepted, layered<unknown_assistant_accepted>},
    {fault::task_tools_offered_prefixed, layered<task_tools_offered_prefixed>},
    {fault::task_call_ids_restart_each_round, layered<task_call_ids_restart_each_round>},
    {fault::undeclared_tool_surfaced, layered<undeclared_tool_surfaced>},
    {fault::task_output_prefixed, layered<task_output_prefixed>},
    {fault::interrupt_never_times_out, layered<interrupt_never_times_out>},
    {fault::interrupt_deadline_from_creation, layered<interrupt_deadline_from_creation>},
    {fault::pending_shows_model_call_ids, layered<pending_shows_model_call_ids>},
    {fault::task_requeued_as_pending, layered<task_requeued_as_pending>},
    {fault::task_status_renamed, layered<task_status_renamed>},
    {fault::tool_results_unknown_task_409, layered<tool_results_unknown_task_409>},
    {fault::task_409_checked_after_items, layered<task_409_checked_after_items>},
    {fault::tool_results_status_unchecked, layered<tool_results_status_unchecked>},
    {fault::tool_results_items_applied_one_by_one, layered<tool_results_items_applied_one_by_one>},
    {fault::partial_tool_results_accepted, layered<partial_tool_results_accepted>},
};

}  // namespace

std::span<const fault_layer> task_fault_layers() {
  return task_layers;
}

}  // namespace toolwire::reference_server::detail
