// Faults of the call rules (dispatch, deadlines, acks, results, settlement): the faulty
// answers of policy.hpp's call decision points. Each fault is named with the rule it
// breaks; without its fault, each override gives the clean answer.
#include "faulty_policy.hpp"

namespace toolwire::reference_server::detail {

using protocol::outcome;

bool faulty_policy::may_answer(const call_record& call, const std::string& client_id) const {
  // Fault wrong_client_result_accepted (CALL-7): any client of the session may answer.
  return has(fault::wrong_client_result_accepted) || rule_policy::may_answer(call, client_id);
}

std::string faulty_policy::tool_as_dispatched(const client_record& client,
                                              const tool_spec& tool) const {
  // Fault dispatch_namespaced_tool (CALL-1): the client sees the model's name, not its own.
  if (has(fault::dispatch_namespaced_tool)) return client.name + "__" + tool.name;
  return rule_policy::tool_as_dispatched(client, tool);
}

time_ms faulty_policy::first_deadline(const state& s, time_ms now) const {
  // Fault ack_timeout_not_enforced (CALL-3): one deadline, the result one, for every call.
  if (has(fault::ack_timeout_not_enforced)) return now + s.config.result_timeout_ms;
  return rule_policy::first_deadline(s, now);
}

std::optional<time_ms> faulty_policy::deadline_once_acked(const state& s, const call_record& call,
                                                          time_ms now) const {
  // Fault ack_does_not_extend_deadline (CALL-3): the ack deadline stays.
  if (has(fault::ack_does_not_extend_deadline)) return std::nullopt;
  // Fault result_timeout_from_ack (CALL-3): the result deadline counts from the ack.
  if (has(fault::result_timeout_from_ack)) return now + s.config.result_timeout_ms;
  return rule_policy::deadline_once_acked(s, call, now);
}

outcome<json> faulty_policy::answer_to_settled_ack(const call_record& call) const {
  // Fault ack_after_settle_accepted (CALL-6): a late ack is answered as if the call were open.
  if (has(fault::ack_after_settle_accepted)) return json{{"call_id", call.id}, {"status", "acked"}};
  return rule_policy::answer_to_settled_ack(call);
}

void faulty_policy::before_result_read(state& s, session_record& session, call_record& call,
                                       time_ms now) const {
  // Fault rejected_result_acks_call (C-3): the result counts as an ack before it is read.
  if (has(fault::rejected_result_acks_call) && call.status == call_status::dispatched) {
    move(call.status, call_event::acked);
    extend_deadline(s, session, call, now);
  }
}

outcome<protocol::result_request> faulty_policy::read_result(const json& body) const {
  // Fault unknown_fields_rejected (C-6).
  if (has(fault::unknown_fields_rejected)) {
    if (auto known = unknown_field_refused(body, {"content", "error", "reason"})) return *known;
  }
  json relaxed = body;
  if (body.is_object()) {
    const bool content = body.contains("content");
    const bool error = body.contains("error");
    // Fault empty_result_accepted (CALL-4): neither content nor error reads as "".
    if (!content && !error && has(fault::empty_result_accepted)) relaxed["content"] = "";
    // Fault content_preferred_over_error (CALL-4): the error of a body with both is dropped.
    if (content && error && has(fault::content_preferred_over_error)) relaxed.erase("error");
  }
  auto request = rule_policy::read_result(relaxed);
  // Fault non_string_content_rejected (CALL-4): only string content is accepted.
  if (request && has(fault::non_string_content_rejected)) {
    if (const auto* content = std::get_if<json>(&request->outcome);
        content != nullptr && !content->is_string()) {
      return protocol::invalid_request("content: must be a string");
    }
  }
  return request;
}

call_record& faulty_policy::call_settled_by_result(session_record& session,
                                                   const std::string& client_id,
                                                   call_record& addressed) const {
  // Fault results_matched_by_position (CALL-7): the client's oldest open call takes it.
  if (!has(fault::results_matched_by_position) ||
      !allows(addressed.status, call_event::result_posted)) {
    return addressed;
  }
  auto client = find_client(session, client_id);
  if (!client || (*client)->open_calls.empty()) return addressed;
  return session.calls.at((*client)->open_calls.begin()->second);
}

outcome<json> faulty_policy::answer_to_settled_result(state& s, session_record& session,
                                                      const call_record& call, bool is_error,
                                                      time_ms now) const {
  // Fault double_result_accepted (CALL-6): a second result is acknowledged and announced
  // again; the call stays as it is.
  if (!has(fault::double_result_accepted) || call.status != call_status::completed) {
    return rule_policy::answer_to_settled_result(s, session, call, is_error, now);
  }
  emit_completed(s, session, call, is_error, now);
  return json{{"call_id", call.id}, {"status", "completed"}};
}

void faulty_policy::close_settled_call(state& s, session_record& session, call_record& call) const {
  // Fault deadline_not_cancelled_on_result (CALL-5): the call leaves its client's open
  // calls, but its deadline stays armed.
  if (!has(fault::deadline_not_cancelled_on_result)) {
    rule_policy::close_settled_call(s, session, call);
    return;
  }
  if (auto owner = find_client(session, call.client_id)) (*owner)->open_calls.erase(call.serial);
}

void faulty_policy::deadline_of_settled_call(state& s, session_record& session,
                                             const call_record& call, time_ms now) const {
  // Fault deadline_not_cancelled_on_result (CALL-5): the deadline a result did not cancel
  // announces a second settlement; the call stays completed.
  if (!has(fault::deadline_not_cancelled_on_result) || call.status != call_status::completed) {
    return;
  }
  const bool acked = call.deadline != call.dispatched_at + s.config.ack_timeout_ms;
  emit_failed(s, session, call,
              acked ? failure_reason::result_timeout : failure_reason::ack_timeout, now);
}

void faulty_policy::announce_completion(state& s, session_record& session, const call_record& call,
                                        bool is_error, time_ms now) const {
  // Fault completed_event_deferred (SES-5): the event waits for the step's end (step_over).
  if (!has(fault::completed_event_deferred)) {
    rule_policy::announce_completion(s, session, call, is_error, now);
  }
}

}  // namespace toolwire::reference_server::detail
