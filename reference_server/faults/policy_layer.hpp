// Faults as layers over the policy (../src/policy.hpp). Each fault the rules can be
// planted with is one small class, in the file of its area, that derives from
// policy_layer and overrides only the decisions it answers wrongly; every other decision
// passes to the layer beneath it (`inner()`), and beneath them all is the SPEC's own
// answer, rule_policy. Why layers, not one class of `if (has(fault))` chains: a fault reads
// top to bottom in one place, naming its rule, and faults planted together compose.
#pragma once

#include <memory>
#include <span>
#include <utility>

#include "policy.hpp"

namespace toolwire::reference_server::detail {

class policy_layer : public rule_policy {
 public:
  explicit policy_layer(std::shared_ptr<const rule_policy> inner) : inner_(std::move(inner)) {}

  event_shape shape_event(session_event event, const std::string& previous) const override;
  bool key_manages_sessions(const api_key& key) const override;
  api_error unknown_credential_refusal() const override;
  bool token_grants(const principal& who, const std::string& session_id) const override;
  api_error missing_session_refusal(const std::string& session_id) const override;
  std::optional<api_error> refuse_session_creation(const principal& who) const override;
  std::optional<api_error> refuse_workspace_route(const principal& who) const override;
  protocol::outcome<protocol::done> delete_of_absent_client(const session_record& session,
                                                            const std::string& client_id,
                                                            api_error not_found) const override;
  std::optional<std::uint64_t> resume_after(
      std::optional<std::uint64_t> last_event_id) const override;
  protocol::outcome<protocol::register_request> read_registration(const session_record& session,
                                                                  const json& body) const override;
  protocol::outcome<protocol::put_tools_request> read_tool_list(const session_record& session,
                                                                const client_record& client,
                                                                const json& body) const override;
  protocol::outcome<protocol::task_create_request> read_task_request(
      const json& body) const override;
  std::string assign_name(const state& s, const session_record& session,
                          const std::string& requested) const override;
  protocol::lifetime kept_lifetime(const protocol::lifetime& requested) const override;
  time_ms expiry_due(time_ms expires_at) const override;
  bool ping_restarts_ttl() const override;
  bool call_traffic_restarts_ttl() const override;
  bool refused_put_keeps_tools() const override;
  std::vector<tool_spec> next_tool_list(const std::vector<tool_spec>& current,
                                        std::vector<tool_spec> requested) const override;
  bool tools_replaced_in_one_step() const override;
  bool withdrawn_tools_forgotten() const override;
  bool withdrawn_tool_calls_go_on() const override;
  bool departed_client_calls_fail() const override;
  bool departed_client_forgotten() const override;
  bool may_answer(const call_record& call, const std::string& client_id) const override;
  std::string tool_as_dispatched(const client_record& client, const tool_spec& tool) const override;
  time_ms first_deadline(const state& s, time_ms now) const override;
  std::optional<time_ms> deadline_once_acked(const state& s, const call_record& call,
                                             time_ms now) const override;
  protocol::outcome<json> answer_to_settled_ack(const call_record& call) const override;
  bool result_acks_before_read() const override;
  protocol::outcome<protocol::result_request> read_result(const json& body) const override;
  const call_record& call_settled_by_result(const session_record& session,
                                            const std::string& client_id,
                                            const call_record& addressed) const override;
  bool settled_result_announced_again(const call_record& call) const override;
  bool result_cancels_deadline() const override;
  std::optional<failure_reason> failure_at_settled_deadline(const state& s,
                                                            const call_record& call) const override;
  bool completion_announced_with_result() const override;
  protocol::outcome<protocol::message_request> read_message(const json& body) const override;
  std::optional<api_error> refuse_message(const session_record& session) const override;
  protocol::model_answer answer_as_taken(protocol::model_answer answer) const override;
  bool model_failure_fails_turn() const override;
  std::vector<const client_record*> offering_clients(const session_record& session) const override;
  std::vector<const tool_spec*> tools_offered_by(const client_record& client) const override;
  const std::string& model_side_name(const client_record& client) const override;
  bool dispatches_live_tool(const turn_record& turn, const std::string& model_name) const override;
  unoffered_call call_to_unoffered_tool(bool names_live_client) const override;
  bool step_complete(const turn_record& turn) const override;
  std::string content_for_model(const tool_outcome& outcome) const override;
  const std::string& tool_call_id_for_model(const step_slot& slot) const override;
  bool knows_assistant(const state& s, std::int64_t assistant_id) const override;
  std::string task_input_text(const state& s, std::string text) const override;
  std::string offered_task_tool_name(const tool_spec& tool) const override;
  bool model_failure_fails_task() const override;
  bool call_ids_go_on_across_rounds() const override;
  bool surfaced_as_pending(const task_record& task, const std::string& tool) const override;
  std::string output_tool_name(const std::string& declared) const override;
  std::optional<time_ms> interrupt_deadline(const state& s, const task_record& task,
                                            time_ms now) const override;
  std::string shown_pending_id(const task_record& task,
                               const pending_tool_call& call) const override;
  std::string_view shown_status(const task_record& task) const override;
  std::string_view status_after_tool_results() const override;
  protocol::api_error missing_task_refusal(const std::string& uuid) const override;
  protocol::outcome<protocol::done> check_before_status(const task_record& task,
                                                        const json& body) const override;
  protocol::outcome<protocol::tool_results_request> read_tool_results(
      const state& s, const json& body) const override;
  round_settlement settle_round(const state& s, const task_record& task,
                                const json& body) const override;
  protocol::outcome<protocol::done> check_round_covered(
      const task_record& task, const std::set<std::string>& answered) const override;
  std::string task_model_content(const tool_outcome& outcome) const override;

 protected:
  //! The policy beneath this layer: the faults planted before it, then the SPEC's answers.
  const rule_policy& inner() const { return *inner_; }

 private:
  std::shared_ptr<const rule_policy> inner_;
};

//! A fault and how it wraps the policy beneath it.
struct fault_layer {
  fault which;
  std::shared_ptr<const rule_policy> (*wrap)(std::shared_ptr<const rule_policy> inner);
};

template <class Layer>
std::shared_ptr<const rule_policy> layered(std::shared_ptr<const rule_policy> inner) {
  return std::make_shared<const Layer>(std::move(inner));
}

//! Each area's faults, in the order they wrap one another when planted together (the first
//! innermost). One list per file: *_faults.cpp.
std::span<const fault_layer> common_fault_layers();
std::span<const fault_layer> event_fault_layers();
std::span<const fault_layer> access_fault_layers();
std::span<const fault_layer> client_fault_layers();
std::span<const fault_layer> call_fault_layers();
std::span<const fault_layer> turn_fault_layers();
std::span<const fault_layer> task_fault_layers();

}  // namespace toolwire::reference_server::detail
