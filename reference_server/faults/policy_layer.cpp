// Which policy a core gets, and the layer every fault derives from: each decision passes
// to the policy beneath.
#include "policy_layer.hpp"

#include <algorithm>
#include <array>

namespace toolwire::reference_server::detail {

std::shared_ptr<const rule_policy> policy_for(const fault_set& faults) {
  std::shared_ptr<const rule_policy> policy = clean_policy();
  if (faults.empty()) return policy;
  const std::array areas{common_fault_layers(), event_fault_layers(), access_fault_layers(),
                         client_fault_layers(), call_fault_layers(),  turn_fault_layers(),
                         task_fault_layers()};
  for (const auto& area : areas) {
    for (const fault_layer& layer : area)
      if (faults.contains(layer.which)) policy = layer.wrap(std::move(policy));
  }
  return policy;
}

// -- every decision passes to the policy beneath ------------------------------------------------

event_shape policy_layer::shape_event(session_event event, const std::string& previous) const {
  return inner_->shape_event(std::move(event), previous);
}

bool policy_layer::key_manages_sessions(const api_key& key) const {
  return inner_->key_manages_sessions(key);
}

api_error policy_layer::unknown_credential_refusal() const {
  return inner_->unknown_credential_refusal();
}

bool policy_layer::token_grants(const principal& who, const std::string& session_id) const {
  return inner_->token_grants(who, session_id);
}

api_error policy_layer::missing_session_refusal(const std::string& session_id) const {
  return inner_->missing_session_refusal(session_id);
}

std::optional<api_error> policy_layer::refuse_session_creation(const principal& who) const {
  return inner_->refuse_session_creation(who);
}

std::optional<api_error> policy_layer::refuse_workspace_route(const principal& who) const {
  return inner_->refuse_workspace_route(who);
}

protocol::outcome<protocol::done> policy_layer::delete_of_absent_client(
    const session_record& session, const std::string& client_id, api_error not_found) const {
  return inner_->delete_of_absent_client(session, client_id, std::move(not_found));
}

std::optional<std::uint64_t> policy_layer::resume_after(
    std::optional<std::uint64_t> last_event_id) const {
  return inner_->resume_after(last_event_id);
}

protocol::outcome<protocol::register_request> policy_layer::read_registration(
    const session_record& session, const json& body) const {
  return inner_->read_registration(session, body);
}

protocol::outcome<protocol::put_tools_request> policy_layer::read_tool_list(
    const session_record& session, const client_record& client, const json& body) const {
  return inner_->read_tool_list(session, client, body);
}

protocol::outcome<protocol::task_create_request> policy_layer::read_task_request(
    const json& body) const {
  return inner_->read_task_request(body);
}

std::string policy_layer::assign_name(const state& s, const session_record& session,
                                      const std::string& requested) const {
  return inner_->assign_name(s, session, requested);
}

protocol::lifetime policy_layer::kept_lifetime(const protocol::lifetime& requested) const {
  return inner_->kept_lifetime(requested);
}

time_ms policy_layer::expiry_due(time_ms expires_at) const {
  return inner_->expiry_due(expires_at);
}

bool policy_layer::ping_restarts_ttl() const {
  return inner_->ping_restarts_ttl();
}

bool policy_layer::call_traffic_restarts_ttl() const {
  return inner_->call_traffic_restarts_ttl();
}

bool policy_layer::refused_put_keeps_tools() const {
  return inner_->refused_put_keeps_tools();
}

std::vector<tool_spec> policy_layer::next_tool_list(const std::vector<tool_spec>& current,
                                                    std::vector<tool_spec> requested) const {
  return inner_->next_tool_list(current, std::move(requested));
}

bool policy_layer::tools_replaced_in_one_step() const {
  return inner_->tools_replaced_in_one_step();
}

bool policy_layer::withdrawn_tools_forgotten() const {
  return inner_->withdrawn_tools_forgotten();
}

bool policy_layer::withdrawn_tool_calls_go_on() const {
  return inner_->withdrawn_tool_calls_go_on();
}

bool policy_layer::departed_client_calls_fail() const {
  return inner_->departed_client_calls_fail();
}

bool policy_layer::departed_client_forgotten() const {
  return inner_->departed_client_forgotten();
}

bool policy_layer::may_answer(const call_record& call, const std::string& client_id) const {
  return inner_->may_answer(call, client_id);
}

std::string policy_layer::tool_as_dispatched(const client_record& client,
                                             const tool_spec& tool) const {
  return inner_->tool_as_dispatched(client, tool);
}

time_ms policy_layer::first_deadline(const state& s, time_ms now) const {
  return inner_->first_deadline(s, now);
}

std::optional<time_ms> policy_layer::deadline_once_acked(const state& s, const call_record& call,
                                                         time_ms now) const {
  return inner_->deadline_once_acked(s, call, now);
}

protocol::outcome<json> policy_layer::answer_to_settled_ack(const call_record& call) const {
  return inner_->answer_to_settled_ack(call);
}

bool policy_layer::result_acks_before_read() const {
  return inner_->result_acks_before_read();
}

protocol::outcome<protocol::result_request> policy_layer::read_result(const json& body) const {
  return inner_->read_result(body);
}

const call_record& policy_layer::call_settled_by_result(const session_record& session,
                                                        const std::string& client_id,
                                                        const call_record& addressed) const {
  return inner_->call_settled_by_result(session, client_id, addressed);
}

bool policy_layer::settled_result_announced_again(const call_record& call) const {
  return inner_->settled_result_announced_again(call);
}

bool policy_layer::result_cancels_deadline() const {
  return inner_->result_cancels_deadline();
}

std::optional<failure_reason> policy_layer::failure_at_settled_deadline(
    const state& s, const call_record& call) const {
  return inner_->failure_at_settled_deadline(s, call);
}

bool policy_layer::completion_announced_with_result() const {
  return inner_->completion_announced_with_result();
}

protocol::outcome<protocol::message_request> policy_layer::read_message(const json& body) const {
  return inner_->read_message(body);
}

std::optional<api_error> policy_layer::refuse_message(const session_record& session) const {
  return inner_->refuse_message(session);
}

protocol::model_answer policy_layer::answer_as_taken(protocol::model_answer answer) const {
  return inner_->answer_as_taken(std::move(answer));
}

bool policy_layer::model_failure_fails_turn() const {
  return inner_->model_failure_fails_turn();
}

std::vector<const client_record*> policy_layer::offering_clients(
    const session_record& session) const {
  return inner_->offering_clients(session);
}

std::vector<const tool_spec*> policy_layer::tools_offered_by(const client_record& client) const {
  return inner_->tools_offered_by(client);
}

const std::string& policy_layer::model_side_name(const client_record& client) const {
  return inner_->model_side_name(client);
}

bool policy_layer::dispatches_live_tool(const turn_record& turn,
                                        const std::string& model_name) const {
  return inner_->dispatches_live_tool(turn, model_name);
}

unoffered_call policy_layer::call_to_unoffered_tool(bool names_live_client) const {
  return inner_->call_to_unoffered_tool(names_live_client);
}

bool policy_layer::step_complete(const turn_record& turn) const {
  return inner_->step_complete(turn);
}

std::string policy_layer::content_for_model(const tool_outcome& outcome) const {
  return inner_->content_for_model(outcome);
}

const std::string& policy_layer::tool_call_id_for_model(const step_slot& slot) const {
  return inner_->tool_call_id_for_model(slot);
}

bool policy_layer::knows_assistant(const state& s, std::int64_t assistant_id) const {
  return inner_->knows_assistant(s, assistant_id);
}

std::string policy_layer::task_input_text(const state& s, std::string text) const {
  return inner_->task_input_text(s, std::move(text));
}

std::string policy_layer::offered_task_tool_name(const tool_spec& tool) const {
  return inner_->offered_task_tool_name(tool);
}

bool policy_layer::model_failure_fails_task() const {
  return inner_->model_failure_fails_task();
}

bool policy_layer::call_ids_go_on_across_rounds() const {
  return inner_->call_ids_go_on_across_rounds();
}

bool policy_layer::surfaced_as_pending(const task_record& task, const std::string& tool) const {
  return inner_->surfaced_as_pending(task, tool);
}

std::string policy_layer::output_tool_name(const std::string& declared) const {
  return inner_->output_tool_name(declared);
}

std::optional<time_ms> policy_layer::interrupt_deadline(const state& s, const task_record& task,
                                                        time_ms now) const {
  return inner_->interrupt_deadline(s, task, now);
}

std::string policy_layer::shown_pending_id(const task_record& task,
                                           const pending_tool_call& call) const {
  return inner_->shown_pending_id(task, call);
}

std::string_view policy_layer::shown_status(const task_record& task) const {
  return inner_->shown_status(task);
}

std::string_view policy_layer::status_after_tool_results() const {
  return inner_->status_after_tool_results();
}

protocol::api_error policy_layer::missing_task_refusal(const std::string& uuid) const {
  return inner_->missing_task_refusal(uuid);
}

protocol::outcome<protocol::done> policy_layer::check_before_status(const task_record& task,
                                                                    const json& body) const {
  return inner_->check_before_status(task, body);
}

protocol::outcome<protocol::tool_results_request> policy_layer::read_tool_results(
    const state& s, const json& body) const {
  return inner_->read_tool_results(s, body);
}

round_settlement policy_layer::settle_round(const state& s, const task_record& task,
                                            const json& body) const {
  return inner_->settle_round(s, task, body);
}

protocol::outcome<protocol::done> policy_layer::check_round_covered(
    const task_record& task, const std::set<std::string>& answered) const {
  return inner_->check_round_covered(task, answered);
}

std::string policy_layer::task_model_content(const tool_outcome& outcome) const {
  return inner_->task_model_content(outcome);
}

}  // namespace toolwire::reference_server::detail

namespace toolwire::reference_server {

// Why here, not in core.cpp: the one accessor of the planted faults lives with them; the
// wire faults and the HTTP front end ask it.
bool core::has_fault(fault f) const {
  return state_->config.faults.count(f) != 0;
}

}  // namespace toolwire::reference_server
