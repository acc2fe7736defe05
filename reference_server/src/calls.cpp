// Calls to client tools: dispatch (CALL-1), ack and its deadlines (CALL-3), results
// (CALL-4), exactly-once settlement (CALL-5, CALL-6), addressing (CALL-7), and the calls
// TOOLS-5 fails at once. Every status change goes through the call table (lifecycle.hpp).
#include <utility>

#include "core_state.hpp"
#include "policy.hpp"

namespace toolwire::reference_server::detail {

using protocol::outcome;

namespace {

void arm_deadline(state& s, const session_record& session, const call_record& call) {
  schedule(s, call.serial, call.deadline, {timer_kind::call_deadline, session.id, call.id});
}

//! CALL-7: the call must exist and belong to the client in the path; else 404.
outcome<call_record*> find_call(const state& s, session_record& session, const std::string& cid,
                                const std::string& call_id) {
  auto call = session.calls.find(call_id);
  if (call == session.calls.end() || !s.policy->may_answer(call->second, cid)) {
    return protocol::not_found("no call '" + call_id + "' on client '" + cid + "'");
  }
  return &call->second;
}

client_record* live_client(session_record& session, const std::string& cid) {
  auto found = find_client(session, cid);
  return found ? *found : nullptr;
}

//! Removes a call from its client's open set (not from the timer table).
void leave_open_calls(session_record& session, const call_record& call) {
  if (client_record* client = live_client(session, call.client_id)) {
    client->open_calls.erase(call.serial);
  }
}

//! Removes a call from its client's open set and from the timer table.
void close_call(state& s, session_record& session, call_record& call) {
  cancel(s, call.serial);
  leave_open_calls(session, call);
}

//! Hands the call's outcome to the turn step that made it, if that step is still current.
void report_to_turn(state& s, session_record& session, const call_record& call,
                    tool_outcome outcome, time_ms now) {
  if (!session.turn || session.turn->id != call.turn_id || session.turn->steps != call.step) {
    return;
  }
  settle_slot(s, session, call.slot, std::move(outcome), now);
}

//! CALL-6: the answer to an ack or a result that the call's status refuses (it is settled).
protocol::api_error settled_conflict(const std::string& call_id, call_status status) {
  return protocol::conflict("call '" + call_id + "' is already " + std::string(to_string(status)) +
                            " (CALL-6)");
}

}  // namespace

// -- the clean answers of the call rules' decision points (policy.hpp) --------------------

bool rule_policy::may_answer(const call_record& call, const std::string& client_id) const {
  return call.client_id == client_id;
}

std::string rule_policy::tool_as_dispatched(const client_record&, const tool_spec& tool) const {
  return tool.name;
}

time_ms rule_policy::first_deadline(const state& s, time_ms now) const {
  return now + s.config.ack_timeout_ms;
}

std::optional<time_ms> rule_policy::deadline_once_acked(const state& s, const call_record& call,
                                                        time_ms) const {
  return call.dispatched_at + s.config.result_timeout_ms;
}

outcome<json> rule_policy::answer_to_settled_ack(const call_record& call) const {
  return settled_conflict(call.id, call.status);
}

bool rule_policy::result_acks_before_read() const {
  return false;
}

outcome<protocol::result_request> rule_policy::read_result(const json& body) const {
  return protocol::parse_result_request(body);
}

const call_record& rule_policy::call_settled_by_result(const session_record&, const std::string&,
                                                       const call_record& addressed) const {
  return addressed;
}

bool rule_policy::settled_result_announced_again(const call_record&) const {
  return false;
}

bool rule_policy::result_cancels_deadline() const {
  return true;
}

std::optional<failure_reason> rule_policy::failure_at_settled_deadline(const state&,
                                                                       const call_record&) const {
  return std::nullopt;
}

bool rule_policy::completion_announced_with_result() const {
  return true;
}

// -- the call rules --------------------------------------------------------------------------

void extend_deadline(state& s, const session_record& session, call_record& call, time_ms now) {
  const auto deadline = s.policy->deadline_once_acked(s, call, now);
  if (!deadline) return;
  call.deadline = *deadline;
  arm_deadline(s, session, call);
}

void emit_completed(state& s, session_record& session, const call_record& call, bool is_error,
                    time_ms now) {
  emit(s, session, protocol::client_tool_completed{call.id, call.client_id, is_error}, now);
}

void emit_failed(state& s, session_record& session, const call_record& call, failure_reason reason,
                 time_ms now) {
  emit(s, session,
       protocol::client_tool_failed{call.id, call.client_id, call.tool,
                                    std::string(to_string(reason))},
       now);
}

void dispatch_call(state& s, session_record& session, client_record& client, const tool_spec& tool,
                   json arguments, std::size_t slot, time_ms now) {
  call_record call;
  call.serial = s.serial();
  call.id = "call_" + std::to_string(s.next_call++);
  call.client_id = client.id;
  call.tool = tool.name;
  call.turn_id = session.turn->id;
  call.step = session.turn->steps;
  call.slot = slot;
  call.dispatched_at = now;
  call.deadline = s.policy->first_deadline(s, now);
  session.turn->slots[slot].call_id = call.id;
  client.open_calls.emplace(call.serial, call.id);
  arm_deadline(s, session, call);

  emit(s, session,
       protocol::client_tool_dispatched{call.id, client.id,
                                        s.policy->tool_as_dispatched(client, tool),
                                        std::move(arguments), call.turn_id},
       now);
  session.calls.emplace(call.id, std::move(call));
}

outcome<json> ack(state& s, session_record& session, const std::string& cid,
                  const std::string& call_id, time_ms now) {
  auto client = find_client(std::as_const(session), cid);  // LIFE-4 before anything else
  if (!client) return client.error();
  auto found = find_call(s, session, cid, call_id);
  if (!found) return found.error();
  call_record& call = **found;
  if (!allows(call.status, call_event::acked)) {
    refusal_noted(s, call.status, call_event::acked);
    return s.policy->answer_to_settled_ack(call);
  }
  const bool first_ack = call.status == call_status::dispatched;
  move_noted(s, call.status, call_event::acked);
  if (first_ack) extend_deadline(s, session, call, now);
  touch_ttl_on_call_traffic(s, session, **client, now);
  return json{{"call_id", call.id}, {"status", "acked"}};
}

outcome<json> post_result(state& s, session_record& session, const std::string& cid,
                          const std::string& call_id, const json& body, time_ms now) {
  auto client = find_client(std::as_const(session), cid);  // LIFE-4 before anything else
  if (!client) return client.error();
  auto found = find_call(s, session, cid, call_id);
  if (!found) return found.error();
  // C-3: nothing changes before the result is read, unless the policy counts it as an ack.
  if (s.policy->result_acks_before_read() && (*found)->status == call_status::dispatched) {
    move((*found)->status, call_event::acked);
    extend_deadline(s, session, **found, now);
  }
  auto request = s.policy->read_result(body);
  if (!request) return request.error();

  call_record* call = *found;
  if (const call_record& settled = s.policy->call_settled_by_result(session, cid, *call);
      &settled != call) {
    call = &session.calls.at(settled.id);
  }
  const bool is_error = std::holds_alternative<protocol::tool_error>(request->outcome);
  if (!allows(call->status, call_event::result_posted)) {
    refusal_noted(s, call->status, call_event::result_posted);
    // CALL-6: 409, unless the policy answers a repeated result as a new one.
    if (!s.policy->settled_result_announced_again(*call)) {
      return settled_conflict(call->id, call->status);
    }
    emit_completed(s, session, *call, is_error, now);
    return json{{"call_id", call->id}, {"status", "completed"}};
  }

  move_noted(s, call->status, call_event::result_posted);
  if (s.policy->result_cancels_deadline()) {  // CALL-5
    close_call(s, session, *call);
  } else {
    leave_open_calls(session, *call);
  }
  touch_ttl_on_call_traffic(s, session, **client, now);
  // SES-5: announced now, or (by a policy that defers it) when the step is over.
  if (s.policy->completion_announced_with_result())
    emit_completed(s, session, *call, is_error, now);
  report_to_turn(s, session, *call, std::move(request->outcome), now);
  return json{{"call_id", call_id}, {"status", "completed"}};
}

void fail_call(state& s, session_record& session, call_record& call, failure_reason reason,
               time_ms now) {
  move_noted(s, call.status, cause_of(reason));
  close_call(s, session, call);
  emit_failed(s, session, call, reason, now);
  const std::string name(to_string(reason));
  report_to_turn(s, session, call,
                 protocol::tool_error{"the call to '" + call.tool + "' failed: " + name, name},
                 now);
}

void fail_unavailable_call(state& s, session_record& session, const client_record& client,
                           const std::string& tool, std::size_t slot, time_ms now) {
  call_record call;
  // Why no serial: the call has no timer and is in no client's open set.
  call.id = "call_" + std::to_string(s.next_call++);
  call.client_id = client.id;
  call.tool = tool;
  call.turn_id = session.turn->id;
  call.step = session.turn->steps;
  call.slot = slot;
  call.dispatched_at = now;
  // Why a record at all: the call exists and is settled, so a later ack or result on its
  // id is 409 (CALL-6), not 404.
  move_noted(s, call.status, call_event::tool_unavailable);
  session.turn->slots[slot].call_id = call.id;
  emit_failed(s, session, call, failure_reason::tool_unavailable, now);
  session.calls.emplace(call.id, std::move(call));
}

void on_call_deadline(state& s, session_record& session, const std::string& call_id, time_ms now) {
  auto call = session.calls.find(call_id);
  if (call == session.calls.end()) return;
  const call_record& c = call->second;
  if (!allows(c.status, call_event::deadline_passed)) {  // settled before its deadline
    // CALL-5: a result cancels the deadline, so this is a policy that left it armed.
    if (auto reason = s.policy->failure_at_settled_deadline(s, c)) {
      emit_failed(s, session, c, *reason, now);
    }
    return;
  }
  fail_call(
      s, session, call->second,
      c.status == call_status::acked ? failure_reason::result_timeout : failure_reason::ack_timeout,
      now);
}

}  // namespace toolwire::reference_server::detail
