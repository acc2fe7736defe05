// The faulty answers of the core's decision points (../src/policy.hpp): each override asks
// whether its fault is on and otherwise gives the clean answer. One file per area holds
// the overrides and says which fault breaks which rule.
#pragma once

#include "policy.hpp"

namespace toolwire::reference::detail {

class faulty_policy final : public rule_policy {
 public:
  explicit faulty_policy(fault_set faults) : faults_(std::move(faults)) {}

  // client_faults.cpp
  protocol::outcome<protocol::register_request> read_registration(const state& s,
                                                                  const session_record& session,
                                                                  const json& body) const override;
  protocol::outcome<protocol::put_tools_request> read_tool_list(const state& s,
                                                                const session_record& session,
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

  // task_faults.cpp
  protocol::outcome<protocol::task_create_request> read_task_request(
      const json& body) const override;
  bool knows_assistant(const state& s, std::int64_t assistant_id) const override;
  std::string task_input_text(const state& s, std::string text) const override;
  std::string offered_task_tool_name(const tool_spec& tool) const override;
  bool model_failure_fails_task() const override;
  protocol::model_answer task_answer_taken(const state& s,
                                           protocol::model_answer answer) const override;
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
  protocol::outcome<protocol::done> check_before_status(const json& body) const override;
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

// -- shared by the areas' fault files (client_faults.cpp) -------------------------------------

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

}  // namespace toolwire::reference::detail
