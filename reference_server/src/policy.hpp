// The decision points of the core's rules that a fault may answer differently: named
// hooks, grouped by area, each citing its rule. The core calls them where SPEC decides
// something (how a body reads, when a TTL is over, who may answer a call, what a step
// offers the model); the clean answer of each, the SPEC's own, is defined next to its rule
// (core.cpp for access, clients.cpp, calls.cpp, turns.cpp, tasks.cpp). Each hook decides
// and does nothing: it is const, sees the state const, and returns a value the rule file
// acts on, so what a rule does reads top to bottom in its file
// (tests/design/policy_decides.sh). Faulty answers live apart, in reference_server/faults/,
// one layer per fault (policy_layer.hpp); the rule files name no fault. Why a class, not
// the rules themselves swapped out: each hook is one decision, so a fault replaces that
// decision and nothing else of the rule around it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core_state.hpp"
#include "toolwire/protocol/validation.hpp"

namespace toolwire::reference_server::detail {

//! What becomes of an event the rules made (SES-3, SES-4): `sent` is logged and sent under
//! the session's next number, after `numbers_skipped` numbers that are never sent.
struct event_shape {
  std::optional<session_event> sent;
  std::uint64_t numbers_skipped = 0;
};

//! TASK-4: what a tool-results body settles: the results applied, in order, then the
//! refusal answered, if any. The SPEC's answer applies all of them or none.
struct round_settlement {
  std::vector<protocol::tool_result_item> applied;
  std::optional<api_error> refusal;
};

//! TOOLS-5: what becomes of a model call of a tool that is not offered now.
enum class unoffered_call {
  settled_unavailable,  //!< the SPEC's answer: failed at once as tool_unavailable
  dispatched,           //!< sent to the live client the name designates anyway
  left_open,            //!< never settled
};

class rule_policy {
 public:
  virtual ~rule_policy() = default;

  // -- events (SES-3, SES-4) ----------------------------------------------------------------
  //! SES-3, SES-4: an event is sent as the rules made it, under the session's next number,
  //! none skipped; `previous` is the type of the last one.
  virtual event_shape shape_event(session_event event, const std::string& previous) const;

  // -- access (AUTH-2, AUTH-4, LIFE-4, SES-3) ------------------------------------------------
  //! AUTH-2: a workspace key manages sessions only with the session.manage scope.
  virtual bool key_manages_sessions(const api_key& key) const;
  //! AUTH-2: an unknown credential is 401.
  virtual api_error unknown_credential_refusal() const;
  //! AUTH-2: a session token grants its own session only.
  virtual bool token_grants(const principal& who, const std::string& session_id) const;
  //! AUTH-2: a session that does not exist is 404 (after access is checked).
  virtual api_error missing_session_refusal(const std::string& session_id) const;
  //! AUTH-4: only a workspace key with session.manage creates sessions.
  virtual std::optional<api_error> refuse_session_creation(const principal& who) const;
  //! AUTH-2: the task routes need a workspace key.
  virtual std::optional<api_error> refuse_workspace_route(const principal& who) const;
  //! LIFE-4: a DELETE of a client that is not live is 404, even one that just left.
  virtual protocol::outcome<protocol::done> delete_of_absent_client(const session_record& session,
                                                                    const std::string& client_id,
                                                                    api_error not_found) const;
  //! SES-3: a stream resumes after the Last-Event-ID it was sent.
  virtual std::optional<std::uint64_t> resume_after(
      std::optional<std::uint64_t> last_event_id) const;

  // -- reading request bodies (REG-1..4, REG-8, TOOLS-2, TASK-1) ---------------------------
  //! POST .../clients: the request, or the 400 that refuses it.
  virtual protocol::outcome<protocol::register_request> read_registration(
      const session_record& session, const json& body) const;
  //! PUT .../clients/{cid}/tools, from `client`.
  virtual protocol::outcome<protocol::put_tools_request> read_tool_list(
      const session_record& session, const client_record& client, const json& body) const;
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
  //! C-3: a refused PUT changes nothing: the old list stays.
  virtual bool refused_put_keeps_tools() const;
  //! TOOLS-1: the new list replaces the old one at once.
  virtual std::vector<tool_spec> next_tool_list(const std::vector<tool_spec>& current,
                                                std::vector<tool_spec> requested) const;
  //! TOOLS-6: the list changes in one step; nothing is withdrawn before the rest.
  virtual bool tools_replaced_in_one_step() const;
  //! TOOLS-1: a withdrawn tool is forgotten; none is kept to be offered.
  virtual bool withdrawn_tools_forgotten() const;
  //! TOOLS-4: open calls of withdrawn tools go on.
  virtual bool withdrawn_tool_calls_go_on() const;

  // -- departures (LIFE-4, LIFE-5) -----------------------------------------------------------
  //! LIFE-5: a departed client's open calls fail now; the turn goes on without it.
  virtual bool departed_client_calls_fail() const;
  //! LIFE-4: a departed client is forgotten; nothing of it is kept.
  virtual bool departed_client_forgotten() const;

  // -- calls (CALL-1, CALL-3..7, SES-5) -------------------------------------------------------
  //! CALL-7: only the client a call was dispatched to may ack or answer it.
  virtual bool may_answer(const call_record& call, const std::string& client_id) const;
  //! CALL-1: the tool a dispatch event names: the client's own name for it.
  virtual std::string tool_as_dispatched(const client_record& client, const tool_spec& tool) const;
  //! CALL-3: the deadline of a call dispatched at `now`: the ack deadline.
  virtual time_ms first_deadline(const state& s, time_ms now) const;
  //! CALL-3: the deadline once the call is acked, counted from dispatch; none keeps it.
  virtual std::optional<time_ms> deadline_once_acked(const state& s, const call_record& call,
                                                     time_ms now) const;
  //! CALL-6: an ack on a settled call is 409.
  virtual protocol::outcome<json> answer_to_settled_ack(const call_record& call) const;
  //! C-3: a result changes nothing before it is read and accepted; it is no ack.
  virtual bool result_acks_before_read() const;
  //! CALL-4: the result body, or the 400 that refuses it.
  virtual protocol::outcome<protocol::result_request> read_result(const json& body) const;
  //! CALL-7: a result settles the call its path names.
  virtual const call_record& call_settled_by_result(const session_record& session,
                                                    const std::string& client_id,
                                                    const call_record& addressed) const;
  //! CALL-6: a result on a settled call is 409 and changes nothing; it is not announced.
  virtual bool settled_result_announced_again(const call_record& call) const;
  //! CALL-5: a settled call's deadline is cancelled with it.
  virtual bool result_cancels_deadline() const;
  //! CALL-5: so a deadline never fires on a settled call; if one did, it would settle
  //! nothing: no failure is announced.
  virtual std::optional<failure_reason> failure_at_settled_deadline(const state& s,
                                                                    const call_record& call) const;
  //! SES-5: a call's client_tool_completed event comes with its result, not at the step's end.
  virtual bool completion_announced_with_result() const;

  // -- model turns (SES-2, MODEL-1..4, CALL-2, CALL-8, CALL-9, TOOLS-1, TOOLS-5) ------------
  //! MODEL-3: a message body; its text reaches the model as written.
  virtual protocol::outcome<protocol::message_request> read_message(const json& body) const;
  //! SES-2: one turn at a time; a message while one runs is 409.
  virtual std::optional<api_error> refuse_message(const session_record& session) const;
  //! MODEL-2: the model's answer as a step (of a turn or a task) takes it: every tool call.
  virtual protocol::model_answer answer_as_taken(protocol::model_answer answer) const;
  //! MODEL-4: a model step that failed fails the turn.
  virtual bool model_failure_fails_turn() const;
  //! TOOLS-3, LIFE-4: the clients whose tools a step offers: the live ones, in order.
  virtual std::vector<const client_record*> offering_clients(const session_record& session) const;
  //! TOOLS-1: the tools a client offers: its current list.
  virtual std::vector<const tool_spec*> tools_offered_by(const client_record& client) const;
  //! CALL-2: the client part of a model-side tool name: the client's assigned name.
  virtual const std::string& model_side_name(const client_record& client) const;
  //! TOOLS-5: whether a call naming a tool that is live now is dispatched: yes, also when
  //! the tool became live during the step (registered or PUT after the step's request).
  virtual bool dispatches_live_tool(const turn_record& turn, const std::string& model_name) const;
  //! TOOLS-5: a model call of a tool not offered now is settled at once;
  //! `names_live_client` says whether its name designates a live client.
  virtual unoffered_call call_to_unoffered_tool(bool names_live_client) const;
  //! CALL-9: a step is over once every call of it has its outcome.
  virtual bool step_complete(const turn_record& turn) const;
  //! CALL-8: what the model gets for an outcome.
  virtual std::string content_for_model(const tool_outcome& outcome) const;
  //! MODEL-1: a tool message answers the model's own call id.
  virtual const std::string& tool_call_id_for_model(const step_slot& slot) const;

  // -- tasks (TASK-*) ------------------------------------------------------------------------
  //! TASK-1: the configured assistant is the only one; any other id is 404.
  virtual bool knows_assistant(const state& s, std::int64_t assistant_id) const;
  //! MODEL-3, TASK-10: each input text reaches the model unchanged, as a user message.
  virtual std::string task_input_text(const state& s, std::string text) const;
  //! TASK-10: the model is offered a task's tool under its declared name, unprefixed.
  virtual std::string offered_task_tool_name(const tool_spec& tool) const;
  //! MODEL-4: a failed model step fails the task; nothing hangs.
  virtual bool model_failure_fails_task() const;
  //! TASK-9: a new round's call ids go on from the last round's; none is reused.
  virtual bool call_ids_go_on_across_rounds() const;
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
  virtual protocol::outcome<protocol::done> check_before_status(const task_record& task,
                                                                const json& body) const;
  //! TASK-4, C-6: a tool-results body, its unknown fields ignored.
  virtual protocol::outcome<protocol::tool_results_request> read_tool_results(
      const state& s, const json& body) const;
  //! TASK-4: a tool-results body is read and checked whole, then applied at once; a
  //! refused one applies nothing.
  virtual round_settlement settle_round(const state& s, const task_record& task,
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

}  // namespace toolwire::reference_server::detail
