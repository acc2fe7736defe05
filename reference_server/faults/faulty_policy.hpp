// The faulty answers of the core's decision points (../src/policy.hpp): each override asks
// whether its fault is on and otherwise gives the clean answer. One file per area holds
// the overrides and says which fault breaks which rule.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "policy.hpp"

namespace toolwire::reference_server::detail {

class faulty_policy final : public rule_policy {
 public:
  explicit faulty_policy(fault_set faults) : faults_(std::move(faults)) {}

  // event_faults.cpp
  bool shape_event(session_event& event, std::uint64_t& next_seq,
                   const std::string& previous) const override;

  // access_faults.cpp
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

  // client_faults.cpp
  protocol::outcome<protocol::register_request> read_registration(const session_record& session,
                                                                  const json& body) const override;
  protocol::outcome<protocol::put_tools_request> read_tool_list(const session_record& session,
                                                                const client_record& client,
                                                                const json& body) const override;
  std::string assign_name(const state& s, const session_record& session,
                          const std::string& requested) const override;
  protocol::lifetime kept_lifetime(const protocol::lifetime& requested) const override;
  time_ms expiry_due(time_ms expires_at) const override;
  bool ping_restarts_ttl() const override;
  bool call_traffic_restarts_ttl() const override;
  void tool_list_refused(client_record& client) const override;
  std::vector<tool_spec> next_tool_list(const std::vector<tool_spec>& current,
                                        std::vector<tool_spec> requested) const override;
  void before_tools_replaced(state& s, session_record& session, client_record& client,
                             const std::vector<tool_spec>& requested, time_ms now) const override;
  void after_tools_replaced(state& s, session_record& session, client_record& client,
                            const std::vector<tool_spec>& previous, time_ms now) const override;
  void fail_calls_of_departed(state& s, session_record& session, const client_record& client,
                              departure why, time_ms now) const override;
  void keep_departed(session_record& session, client_record client) const override;

  // call_faults.cpp
  bool may_answer(const call_record& call, const std::string& client_id) const override;
  std::string tool_as_dispatched(const client_record& client, const tool_spec& tool) const override;
  time_ms first_deadline(const state& s, time_ms now) const override;
  std::optional<time_ms> deadline_once_acked(const state& s, const call_record& call,
                                             time_ms now) const override;
  protocol::outcome<json> answer_to_settled_ack(const call_record& call) const override;
  void before_result_read(state& s, session_record& session, call_record& call,
                          time_ms now) const override;
  protocol::outcome<protocol::result_request> read_result(const json& body) const override;
  call_record& call_settled_by_result(session_record& session, const std::string& client_id,
                                      call_record& addressed) const override;
  protocol::outcome<json> answer_to_settled_result(state& s, session_record& session,
                                                   const call_record& call, bool is_error,
                                                   time_ms now) const override;
  void close_settled_call(state& s, session_record& session, call_record& call) const override;
  void deadline_of_settled_call(state& s, session_record& session, const call_record& call,
                                time_ms now) const override;
  void announce_completion(state& s, session_record& session, const call_record& call,
                           bool is_error, time_ms now) const override;

  // turn_faults.cpp
  protocol::outcome<protocol::message_request> read_message(const json& body) const override;
  std::optional<api_error> refuse_message(const session_record& session) const override;
  protocol::model_answer answer_as_taken(protocol::model_answer answer) const override;
  void model_step_failed(state& s, session_record& session, const std::string& why,
                         time_ms now) const override;
  std::vector<const client_record*> offering_clients(const session_record& session) const override;
  std::vector<const tool_spec*> tools_offered_by(const client_record& client) const override;
  const std::string& model_side_name(const client_record& client) const override;
  bool dispatches_live_tool(const turn_record& turn, const std::string& model_name) const override;
  void call_to_unoffered_tool(state& s, session_record& session, std::size_t slot,
                              client_record* client, const std::string& tool_name, json arguments,
                              time_ms now) const override;
  bool step_complete(const turn_record& turn) const override;
  std::string content_for_model(const tool_outcome& outcome) const override;
  const std::string& tool_call_id_for_model(const step_slot& slot) const override;
  void step_over(state& s, session_record& session, time_ms now) const override;

  // task_faults.cpp
  protocol::outcome<protocol::task_create_request> read_task_request(
      const json& body) const override;
  bool knows_assistant(const state& s, std::int64_t assistant_id) const override;
  std::string task_input_text(const state& s, std::string text) const override;
  std::string offered_task_tool_name(const tool_spec& tool) const override;
  bool model_failure_fails_task() const override;
  void before_round_numbered(task_record& task) const override;
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
  protocol::outcome<protocol::done> settle_round(const state& s, task_record& task,
                                                 const json& body) const override;
  protocol::outcome<protocol::done> check_round_covered(
      const task_record& task, const std::set<std::string>& answered) const override;
  std::string task_model_content(const tool_outcome& outcome) const override;

 private:
  bool has(fault f) const { return faults_.count(f) != 0; }

  fault_set faults_;
};

// -- shared by the areas' fault files -----------------------------------------------------------

//! Fault unknown_fields_rejected (C-6): the 400 for the first key of `body` outside `known`.
std::optional<api_error> unknown_field_refused(const json& body,
                                               std::initializer_list<std::string_view> known);

//! `text` without surrounding whitespace (fault user_text_trimmed, MODEL-3).
std::string trimmed(const std::string& text);

//! Fault duplicate_tool_names_collapsed (REG-3): `body[key]` with each repeated tool name
//! kept once, its last declaration winning.
json collapsed_duplicate_tools(json body, const std::string& key);

//! Fault invalid_tool_name_accepted (REG-1): validation sees each name outside the charset
//! or the length as a valid stand-in; `restore` puts the names back into what it parsed.
class tool_name_stand_ins {
 public:
  //! Replaces the invalid names in `body[key]` (a list of tool objects).
  json replace(json body, const std::string& key);
  void restore(std::vector<tool_spec>& tools) const;
  //! A refusal that quotes a stand-in quotes the name it stands for.
  protocol::api_error restore(protocol::api_error error) const;

 private:
  std::vector<std::pair<std::string, std::string>> stand_in_for_;  // (stand-in, name)
};

}  // namespace toolwire::reference_server::detail
