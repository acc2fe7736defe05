// The decision points of the core's rules that a fault may answer differently: a narrow,
// named hook interface. The core calls these hooks where SPEC decides something (how a
// body reads, when a TTL is over, what a tool-list replacement does to open calls); the
// clean answer of each, the SPEC's own, is defined next to its rule (clients.cpp,
// tasks.cpp). Faulty answers live apart, in reference_server/faults/, as an override of
// this class; the rule files name no fault.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core_state.hpp"
#include "toolwire/protocol/validation.hpp"

namespace toolwire::reference::detail {

class rule_policy {
 public:
  virtual ~rule_policy() = default;

  // -- reading request bodies (REG-1..4, REG-8, TOOLS-2, TASK-1) ---------------------------
  //! POST .../clients: the request, or the 400 that refuses it.
  virtual protocol::outcome<protocol::register_request> read_registration(
      const state& s, const session_record& session, const json& body) const;
  //! PUT .../clients/{cid}/tools, from `client`.
  virtual protocol::outcome<protocol::put_tools_request> read_tool_list(
      const state& s, const session_record& session, const client_record& client,
      const json& body) const;
  //! POST /api/tasks.
  virtual protocol::outcome<protocol::task_create_request> read_task_request(
      const json& body) const;

  // -- names (REG-5, REG-6) ------------------------------------------------------------------
  //! The requested name, or `<name>_<n>` with the smallest free n >= 2.
  virtual std::string assign_name(const state& s, const session_record& session,
                                  const std::string& requested) const;

  // -- lifetimes (LIFE-1..3, LIFE-6) ---------------------------------------------------------
  //! LIFE-1: the lifetime the client keeps, as it asked.
  virtual protocol::lifetime kept_lifetime(const protocol::lifetime& requested) const;
  //! LIFE-3: the instant a TTL client's expiry timer fires; it is gone at `expires_at`.
  virtual time_ms expiry_due(time_ms expires_at) const;
  //! LIFE-2: a ping restarts the TTL.
  virtual bool ping_restarts_ttl() const;
  //! LIFE-6: only a ping restarts it; an ack or a result does not.
  virtual bool call_traffic_restarts_ttl() const;

  // -- replacing a tool list (C-3, TOOLS-1, TOOLS-4, TOOLS-6) --------------------------------
  //! C-3: a refused PUT changes nothing.
  virtual void tool_list_refused(client_record& client) const;
  //! TOOLS-1: the new list replaces the old one at once.
  virtual std::vector<tool_spec> next_tool_list(const std::vector<tool_spec>& current,
                                                std::vector<tool_spec> requested) const;
  //! TOOLS-6: before the list changes, nothing happens (the change is one step).
  virtual void before_tools_replaced(state& s, session_record& session, client_record& client,
                                     const std::vector<tool_spec>& requested, time_ms now) const;
  //! TOOLS-4: after it, open calls of withdrawn tools go on; nothing else happens.
  virtual void after_tools_replaced(state& s, session_record& session, client_record& client,
                                    const std::vector<tool_spec>& previous, time_ms now) const;

  // -- departures (LIFE-4, LIFE-5) -----------------------------------------------------------
  //! LIFE-5: a departed client's open calls fail now; the turn goes on without it.
  virtual void fail_calls_of_departed(state& s, session_record& session,
                                      const client_record& client, departure why,
                                      time_ms now) const;
  //! LIFE-4: a departed client is forgotten; nothing of it is kept.
  virtual void keep_departed(session_record& session, client_record client) const;

  // -- tasks (TASK-*) ------------------------------------------------------------------------
  //! TASK-1: the configured assistant is the only one; any other id is 404.
  virtual bool knows_assistant(const state& s, std::int64_t assistant_id) const;
  //! MODEL-3, TASK-10: each input text reaches the model unchanged, as a user message.
  virtual std::string task_input_text(const state& s, std::string text) const;
  //! TASK-10: the model is offered a task's tool under its declared name, unprefixed.
  virtual std::string offered_task_tool_name(const tool_spec& tool) const;
  //! MODEL-4: a failed model step fails the task; nothing hangs.
  virtual bool model_failure_fails_task() const;
  //! MODEL-2: the task takes the model's answer whole, with every tool call in it.
  virtual protocol::model_answer task_answer_taken(const state& s,
                                                   protocol::model_answer answer) const;
  //! TASK-9: before a new round's calls get ids, nothing happens: ids go on, never reused.
  virtual void before_round_numbered(task_record& task) const;
  //! TASK-8: only a call of a tool the task declares is surfaced as pending.
  virtual bool surfaced_as_pending(const task_record& task, const std::string& tool) const;
  //! TASK-6: an output tool_call item names the tool as declared, without any prefix.
  virtual std::string output_tool_name(const std::string& declared) const;
  //! TASK-7: an interrupted task fails interrupt_timeout after `now`, when it was interrupted.
  virtual std::optional<time_ms> interrupt_deadline(const state& s, const task_record& task,
                                                    time_ms now) const;
  //! TASK-3: a pending call shows our id for it (TASK-9), not the model's.
  virtual std::string shown_pending_id(const task_record& task,
                                       const pending_tool_call& call) const;
  //! TASK-2, TASK-5: a task's GET shows the status it has.
  virtual std::string_view shown_status(const task_record& task) const;
  //! TASK-4: accepted tool-results answer that the task is processing again.
  virtual std::string_view status_after_tool_results() const;
  //! TASK-4: tool-results for a task that does not exist: 404, as for any unknown uuid.
  virtual protocol::api_error missing_task_refusal(const std::string& uuid) const;
  //! TASK-4: the status is checked before the items, so nothing of the body is read first.
  virtual protocol::outcome<protocol::done> check_before_status(const json& body) const;
  //! TASK-4, C-6: a tool-results body, its unknown fields ignored.
  virtual protocol::outcome<protocol::tool_results_request> read_tool_results(
      const state& s, const json& body) const;
  //! TASK-4: a tool-results body is read and checked whole, then applied at once; a
  //! refused one applies nothing.
  virtual protocol::outcome<protocol::done> settle_round(const state& s, task_record& task,
                                                         const json& body) const;
  //! TASK-4: tool-results may settle the round only when they answer every pending call.
  virtual protocol::outcome<protocol::done> check_round_covered(
      const task_record& task, const std::set<std::string>& answered) const;
  //! CALL-8: what the model gets for a task's tool result.
  virtual std::string task_model_content(const tool_outcome& outcome) const;
};

//! The SPEC's answers, shared by every core without faults.
std::shared_ptr<const rule_policy> clean_policy();

//! The policy of a core configured with `faults`: the clean one when there are none
//! (defined in reference_server/faults/, which knows the faulty answers).
std::shared_ptr<const rule_policy> policy_for(const fault_set& faults);

}  // namespace toolwire::reference::detail
