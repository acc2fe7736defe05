// Faults of the call rules (dispatch, deadlines, acks, results, settlement): each a layer
// over the policy beneath it (policy_layer.hpp), named with the rule it breaks.
#include "policy_layer.hpp"

namespace toolwire::reference_server::detail {

namespace {

using protocol::outcome;

//! Fault wrong_client_result_accepted (CALL-7): any client of the session may answer.
class wrong_client_result_accepted final : public policy_layer {
  using policy_layer::policy_layer;
  bool may_answer(const call_record&, const std::string&) const override { return true; }
};

//! Fault dispatch_namespaced_tool (CALL-1): the client sees the model's name, not its own.
class dispatch_namespaced_tool final : public policy_layer {
  using policy_layer::policy_layer;
  std::string tool_as_dispatched(const client_record& client,
                                 const tool_spec& tool) const override {
    return client.name + "__" + tool.name;
  }
};

//! Fault ack_timeout_not_enforced (CALL-3): one deadline, the result one, for every call.
class ack_timeout_not_enforced final : public policy_layer {
  using policy_layer::policy_layer;
  time_ms first_deadline(const state& s, time_ms now) const override {
    return now + s.config.result_timeout_ms;
  }
};

//! Fault ack_does_not_extend_deadline (CALL-3): the ack deadline stays.
class ack_does_not_extend_deadline final : public policy_layer {
  using policy_layer::policy_layer;
  std::optional<time_ms> deadline_once_acked(const state&, const call_record&,
                                             time_ms) const override {
    return std::nullopt;
  }
};

//! Fault result_timeout_from_ack (CALL-3): the result deadline counts from the ack.
class result_timeout_from_ack final : public policy_layer {
  using policy_layer::policy_layer;
  std::optional<time_ms> deadline_once_acked(const state& s, const call_record&,
                                             time_ms now) const override {
    return now + s.config.result_timeout_ms;
  }
};

//! Fault ack_after_settle_accepted (CALL-6): a late ack is answered as if the call were open.
class ack_after_settle_accepted final : public policy_layer {
  using policy_layer::policy_layer;
  outcome<json> answer_to_settled_ack(const call_record& call) const override {
    return json{{"call_id", call.id}, {"status", "acked"}};
  }
};

//! Fault rejected_result_acks_call (C-3): the result counts as an ack before it is read.
class rejected_result_acks_call final : public policy_layer {
  using policy_layer::policy_layer;
  bool result_acks_before_read() const override { return true; }
};

//! Fault empty_result_accepted (CALL-4): neither content nor error reads as "".
class empty_result_accepted final : public policy_layer {
  using policy_layer::policy_layer;
  outcome<protocol::result_request> read_result(const json& body) const override {
    if (!body.is_object() || body.contains("content") || body.contains("error")) {
      return inner().read_result(body);
    }
    json relaxed = body;
    relaxed["content"] = "";
    return inner().read_result(relaxed);
  }
};

//! Fault content_preferred_over_error (CALL-4): the error of a body with both is dropped.
class content_preferred_over_error final : public policy_layer {
  using policy_layer::policy_layer;
  outcome<protocol::result_request> read_result(const json& body) const override {
    if (!body.is_object() || !body.contains("content") || !body.contains("error")) {
      return inner().read_result(body);
    }
    json relaxed = body;
    relaxed.erase("error");
    return inner().read_result(relaxed);
  }
};

//! Fault non_string_content_rejected (CALL-4): only string content is accepted.
class non_string_content_rejected final : public policy_layer {
  using policy_layer::policy_layer;
  outcome<protocol::result_request> read_result(const json& body) const override {
    auto request = inner().read_result(body);
    if (request) {
      if (const auto* content = std::get_if<json>(&request->outcome);
          content != nullptr && !content->is_string()) {
        return protocol::invalid_request("content: must be a string");
      }
    }
    return request;
  }
};

//! Fault results_matched_by_position (CALL-7): the client's oldest open call takes it.
class results_matched_by_position final : public policy_layer {
  using policy_layer::policy_layer;
  const call_record& call_settled_by_result(const session_record& session,
                                            const std::string& client_id,
                                            const call_record& addressed) const override {
    if (!allows(addressed.status, call_event::result_posted)) return addressed;
    const client_record* client = find_live_client(session, client_id);
    if (client == nullptr || client->open_calls.empty()) return addressed;
    auto oldest = session.calls.find(client->open_calls.begin()->second);
    return oldest == session.calls.end() ? addressed : oldest->second;
  }
};

//! Fault double_result_accepted (CALL-6): a second result is acknowledged and announced
//! again; the call stays as it is.
class double_result_accepted final : public policy_layer {
  using policy_layer::policy_layer;
  bool settled_result_announced_again(const call_record& call) const override {
    return call.status == call_status::completed;
  }
};

//! Fault deadline_not_cancelled_on_result (CALL-5): the call leaves its client's open
//! calls, but its deadline stays armed, and when it fires it announces a second settlement;
//! the call stays completed.
class deadline_not_cancelled_on_result final : public policy_layer {
  using policy_layer::policy_layer;
  bool result_cancels_deadline() const override { return false; }
  std::optional<failure_reason> failure_at_settled_deadline(
      const state& s, const call_record& call) const override {
    if (call.status != call_status::completed) return inner().failure_at_settled_deadline(s, call);
    const bool acked = call.deadline != call.dispatched_at + s.config.ack_timeout_ms;
    return acked ? failure_reason::result_timeout : failure_reason::ack_timeout;
  }
};

//! Fault completed_event_deferred (SES-5): the event waits for the step's end.
class completed_event_deferred final : public policy_layer {
  using policy_layer::policy_layer;
  bool completion_announced_with_result() const override { return false; }
};

constexpr fault_layer call_layers[]{
    {fault::wrong_client_result_accepted, layered<wrong_client_result_accepted>},
    {fault::dispatch_namespaced_tool, layered<dispatch_namespaced_tool>},
    {fault::ack_timeout_not_enforced, layered<ack_timeout_not_enforced>},
    {fault::ack_does_not_extend_deadline, layered<ack_does_not_extend_deadline>},
    {fault::result_timeout_from_ack, layered<result_timeout_from_ack>},
    {fault::ack_after_settle_accepted, layered<ack_after_settle_accepted>},
    {fault::rejected_result_acks_call, layered<rejected_result_acks_call>},
    {fault::empty_result_accepted, layered<empty_result_accepted>},
    {fault::content_preferred_over_error, layered<content_preferred_over_error>},
    {fault::non_string_content_rejected, layered<non_string_content_rejected>},
    {fault::results_matched_by_position, layered<results_matched_by_position>},
    {fault::double_result_accepted, layered<double_result_accepted>},
    {fault::deadline_not_cancelled_on_result, layered<deadline_not_cancelled_on_result>},
    {fault::completed_event_deferred, layered<completed_event_deferred>},
};

}  // namespace

std::span<const fault_layer> call_fault_layers() {
  return call_layers;
}

}  // namespace toolwire::reference_server::detail
