// Calls to client tools: dispatch (CALL-1), ack and its deadlines (CALL-3), results
// (CALL-4), exactly-once settlement (CALL-5, CALL-6), addressing (CALL-7), and the calls
// TOOLS-5 fails at once. Every status change goes through the call table (lifecycle.hpp).
#include "core_state.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::reference::detail {

using protocol::outcome;

namespace {

void arm_deadline(state& s, const session_record& session, const call_record& call) {
  schedule(s, call.serial, call.deadline, {timer_kind::call_deadline, session.id, call.id});
}

//! CALL-7: the call must exist and belong to the client in the path; else 404.
outcome<call_record*> find_call(const state& s, session_record& session, const std::string& cid,
                                const std::string& call_id) {
  auto call = session.calls.find(call_id);
  // Fault wrong_client_result_accepted: any client of the session may answer (CALL-7).
  const bool owner_checked = !s.has(fault::wrong_client_result_accepted);
  if (call == session.calls.end() || (owner_checked && call->second.client_id != cid)) {
    return protocol::not_found("no call '" + call_id + "' on client '" + cid + "'");
  }
  return &call->second;
}

client_record* live_client(session_record& session, const std::string& cid) {
  auto found = find_client(session, cid);
  return found ? *found : nullptr;
}

//! Removes a call from its client's open set and from the timer table.
void close_call(state& s, session_record& session, call_record& call) {
  cancel(s, call.serial);
  if (client_record* client = live_client(session, call.client_id)) {
    client->open_calls.erase(call.serial);
  }
}

//! Hands the call's outcome to the turn step that made it, if that step is still current.
void report_to_turn(state& s, session_record& session, const call_record& call,
                    tool_outcome outcome, time_ms now) {
  if (!session.turn || session.turn->id != call.turn_id || session.turn->steps != call.step) {
    return;
  }
  settle_slot(s, session, call.slot, std::move(outcome), now);
}

//! CALL-3: an acked call gets the longer deadline, counted from dispatch.
void extend_deadline(state& s, const session_record& session, call_record& call, time_ms now) {
  // Fault result_timeout_from_ack: the result deadline counts from the ack.
  const time_ms from = s.has(fault::result_timeout_from_ack) ? now : call.dispatched_at;
  call.deadline = from + s.config.result_timeout_ms;
  arm_deadline(s, session, call);
}

//! The result body as validation sees it. Faults of CALL-4: empty_result_accepted reads a
//! body with neither content nor error as empty content; content_preferred_over_error
//! drops the error of a body with both.
json result_body_by_fault(const state& s, const json& body) {
  if (!body.is_object()) return body;
  const bool content = body.contains("content");
  const bool error = body.contains("error");
  json relaxed = body;
  if (!content && !error && s.has(fault::empty_result_accepted)) relaxed["content"] = "";
  if (content && error && s.has(fault::content_preferred_over_error)) relaxed.erase("error");
  return relaxed;
}

//! Fault results_matched_by_position: the client's oldest open call takes the result.
call_record* oldest_open_call(session_record& session, const std::string& cid) {
  client_record* client = live_client(session, cid);
  if (client == nullptr || client->open_calls.empty()) return nullptr;
  return &session.calls.at(client->open_calls.begin()->second);
}

//! CALL-6: the answer to an ack or a result that the call's status refuses (it is settled).
protocol::api_error settled_conflict(const std::string& call_id, call_status status) {
  return protocol::conflict("call '" + call_id + "' is already " + std::string(to_string(status)) +
                            " (CALL-6)");
}

//! The cause behind a failure reason. Why by reason: the callers name a failure by its
//! SPEC reason, which is what the event and the model get, and each reason has one cause.
call_event failure_cause(const std::string& reason) {
  if (reason == "ack_timeout" || reason == "result_timeout") return call_event::deadline_passed;
  if (reason == "client_left" || reason == "client_expired") return call_event::client_gone;
  if (reason == "tool_unavailable") return call_event::tool_unavailable;
  throw std::logic_error("call: no cause for the failure reason '" + reason + "'");
}

void emit_failed(state& s, session_record& session, const call_record& call,
                 const std::string& reason, time_ms now) {
  emit(s, session, "client_tool_failed",
       {{"call_id", call.id},
        {"client_id", call.client_id},
        {"tool", call.tool},
        {"reason", reason}},
       now);
}

}  // namespace

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
  // Fault ack_timeout_not_enforced: one deadline, the result one, for every call (CALL-3).
  call.deadline = now + (s.has(fault::ack_timeout_not_enforced) ? s.config.result_timeout_ms
                                                                : s.config.ack_timeout_ms);
  session.turn->slots[slot].call_id = call.id;
  client.open_calls.emplace(call.serial, call.id);
  arm_deadline(s, session, call);

  // Fault dispatch_namespaced_tool: the client sees the model's name, not its own (CALL-1).
  const std::string shown_tool =
      s.has(fault::dispatch_namespaced_tool) ? client.name + "__" + tool.name : tool.name;
  // Fault arguments_as_text: the arguments go out as the model's JSON text (CALL-1).
  if (s.has(fault::arguments_as_text)) arguments = protocol::safe_dump(arguments);
  emit(s, session, "client_tool_dispatched",
       {{"call_id", call.id},
        {"client_id", client.id},
        {"tool", shown_tool},
        {"arguments", std::move(arguments)},
        {"turn_id", call.turn_id}},
       now);
  session.calls.emplace(call.id, std::move(call));
}

outcome<json> ack(state& s, session_record& session, const std::string& cid,
                  const std::string& call_id, time_ms now) {
  auto client = find_client(session, cid);  // LIFE-4 before anything else
  if (!client) return client.error();
  auto found = find_call(s, session, cid, call_id);
  if (!found) return found.error();
  call_record& call = **found;
  const bool ack_applies = allows(call.status, call_event::acked);
  // Fault ack_after_settle_accepted: a late ack is answered as if the call were open.
  if (!ack_applies && s.has(fault::ack_after_settle_accepted)) {
    return json{{"call_id", call.id}, {"status", "acked"}};
  }
  if (!ack_applies) return settled_conflict(call_id, call.status);
  const bool first_ack = call.status == call_status::dispatched;
  move(call.status, call_event::acked);
  if (first_ack && !s.has(fault::ack_does_not_extend_deadline)) {
    extend_deadline(s, session, call, now);
  }
  touch_ttl_on_call_traffic(s, session, **client, now);
  return json{{"call_id", call.id}, {"status", "acked"}};
}

outcome<json> post_result(state& s, session_record& session, const std::string& cid,
                          const std::string& call_id, const json& body, time_ms now) {
  auto client = find_client(session, cid);  // LIFE-4 before anything else
  if (!client) return client.error();
  auto found = find_call(s, session, cid, call_id);
  if (!found) return found.error();
  // Fault rejected_result_acks_call: the result counts as an ack before it is validated (C-3).
  if (s.has(fault::rejected_result_acks_call) && (*found)->status == call_status::dispatched) {
    move((*found)->status, call_event::acked);
    extend_deadline(s, session, **found, now);
  }
  if (auto known = reject_unknown_fields_by_fault(s, body, {"content", "error", "reason"});
      !known) {
    return known.error();
  }
  auto request = protocol::parse_result_request(result_body_by_fault(s, body));
  if (!request) return request.error();
  // Fault non_string_content_rejected: only string content is accepted (CALL-4).
  if (const auto* content = std::get_if<json>(&request->outcome);
      content != nullptr && !content->is_string() && s.has(fault::non_string_content_rejected)) {
    return protocol::invalid_request("content: must be a string");
  }

  call_record* call = *found;
  if (s.has(fault::results_matched_by_position) &&
      allows(call->status, call_event::result_posted)) {
    if (call_record* oldest = oldest_open_call(session, cid)) call = oldest;
  }
  // Fault error_result_reported_as_success: is_error is always false (CALL-4).
  const bool is_error = std::holds_alternative<protocol::tool_error>(request->outcome) &&
                        !s.has(fault::error_result_reported_as_success);
  if (!allows(call->status, call_event::result_posted)) {
    // Fault double_result_accepted: a second result is acknowledged and announced again;
    // the call stays as it is.
    if (!s.has(fault::double_result_accepted) || call->status != call_status::completed) {
      return settled_conflict(call_id, call->status);
    }
    emit(s, session, "client_tool_completed",
         {{"call_id", call->id}, {"client_id", call->client_id}, {"is_error", is_error}}, now);
    return json{{"call_id", call->id}, {"status", "completed"}};
  }

  move(call->status, call_event::result_posted);
  if (s.has(fault::deadline_not_cancelled_on_result)) {
    // Fault deadline_not_cancelled_on_result: the call leaves its client's open set, but
    // its deadline stays armed (CALL-5).
    if (client_record* owner = live_client(session, call->client_id)) {
      owner->open_calls.erase(call->serial);
    }
  } else {
    close_call(s, session, *call);
  }
  touch_ttl_on_call_traffic(s, session, **client, now);
  // Fault completed_event_deferred: the event waits for the step's last settlement (SES-5).
  if (!s.has(fault::completed_event_deferred)) {
    emit(s, session, "client_tool_completed",
         {{"call_id", call->id}, {"client_id", call->client_id}, {"is_error", is_error}}, now);
  }
  report_to_turn(s, session, *call, std::move(request->outcome), now);
  return json{{"call_id", call_id}, {"status", "completed"}};
}

void fail_call(state& s, session_record& session, call_record& call, const std::string& reason,
               time_ms now) {
  move(call.status, failure_cause(reason));
  close_call(s, session, call);
  emit_failed(s, session, call, reason, now);
  report_to_turn(s, session, call,
                 protocol::tool_error{"the call to '" + call.tool + "' failed: " + reason, reason},
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
  move(call.status, call_event::tool_unavailable);
  session.turn->slots[slot].call_id = call.id;
  emit_failed(s, session, call, "tool_unavailable", now);
  session.calls.emplace(call.id, std::move(call));
}

void on_call_deadline(state& s, session_record& session, const std::string& call_id, time_ms now) {
  auto call = session.calls.find(call_id);
  if (call == session.calls.end()) return;
  const call_record& c = call->second;
  if (c.status == call_status::completed && s.has(fault::deadline_not_cancelled_on_result)) {
    // The call stays completed: the fault only announces a second settlement.
    const bool acked = c.deadline != c.dispatched_at + s.config.ack_timeout_ms;
    emit_failed(s, session, c, acked ? "result_timeout" : "ack_timeout", now);
    return;
  }
  if (!allows(c.status, call_event::deadline_passed)) return;  // settled before its deadline
  const char* reason = c.status == call_status::acked ? "result_timeout" : "ack_timeout";
  fail_call(s, session, call->second, reason, now);
}

}  // namespace toolwire::reference::detail
