// The catalogue of injectable faults: name, the SPEC rule each breaks, one sentence.
#include "toolwire/reference_server/faults.hpp"

#include <algorithm>
#include <array>

namespace toolwire::reference {

namespace {

constexpr std::array<fault_info, 28> catalogue{{
    {fault::no_collision_counter, "no_collision_counter", "REG-5",
     "A second client with a live name gets the same name, no counter appended."},
    {fault::registered_event_wrong_name, "registered_event_wrong_name", "REG-9",
     "client_registered reports the requested name instead of the assigned one."},
    {fault::description_limit_in_bytes, "description_limit_in_bytes", "REG-2",
     "The 4096-character description limit counts UTF-8 bytes, not code points."},
    {fault::invalid_tool_name_accepted, "invalid_tool_name_accepted", "REG-1",
     "Tool names are not checked for length or characters."},
    {fault::ping_does_not_extend, "ping_does_not_extend", "LIFE-2",
     "Pings are answered but do not push the TTL expiry back."},
    {fault::ttl_boundary_inclusive, "ttl_boundary_inclusive", "LIFE-3",
     "A ping at exactly expires_at still finds the client alive and extends it."},
    {fault::ack_extends_ttl, "ack_extends_ttl", "LIFE-6",
     "Acks and results refresh the client's TTL as if they were pings."},
    {fault::vanished_calls_left_open, "vanished_calls_left_open", "LIFE-5",
     "Calls of a client that ends stay open until their deadline instead of failing at once."},
    {fault::departed_client_tools_offered, "departed_client_tools_offered", "LIFE-4",
     "Tools of clients that left or expired are still offered to the model."},
    {fault::put_merges_tools, "put_merges_tools", "TOOLS-1",
     "PUT tools merges the new list into the old one instead of replacing it."},
    {fault::invalid_put_clears_tools, "invalid_put_clears_tools", "C-3",
     "A PUT that fails validation still clears the client's tool list."},
    {fault::withdrawn_tool_offered, "withdrawn_tool_offered", "TOOLS-3",
     "Tools withdrawn by a PUT keep being offered to the model."},
    {fault::unavailable_tool_dispatched, "unavailable_tool_dispatched", "TOOLS-5",
     "A model call to a tool withdrawn since the step began is dispatched anyway."},
    {fault::dispatch_namespaced_tool, "dispatch_namespaced_tool", "CALL-1",
     "client_tool_dispatched carries the model's namespaced tool name, not the declared one."},
    {fault::ack_does_not_extend_deadline, "ack_does_not_extend_deadline", "CALL-3",
     "An acked call keeps the short ack deadline instead of the result deadline."},
    {fault::double_result_accepted, "double_result_accepted", "CALL-6",
     "A second result for a completed call is answered 200 and announced again."},
    {fault::results_matched_by_position, "results_matched_by_position", "CALL-9",
     "A result settles the client's oldest open call, not the call it names."},
    {fault::next_step_before_all_settled, "next_step_before_all_settled", "CALL-9",
     "The next model step starts as soon as one call of the step settles."},
    {fault::string_content_serialized, "string_content_serialized", "CALL-8",
     "String content reaches the model JSON-quoted instead of as the string itself."},
    {fault::concurrent_turns_accepted, "concurrent_turns_accepted", "SES-2",
     "A message while a turn runs is accepted and starts a second turn."},
    {fault::last_event_id_ignored, "last_event_id_ignored", "SES-3",
     "A stream opened with Last-Event-ID does not replay the events after it."},
    {fault::event_seq_gaps, "event_seq_gaps", "SES-3",
     "Every client_tool_completed also uses up a sequence number that is never sent."},
    {fault::foreign_session_token_accepted, "foreign_session_token_accepted", "AUTH-3",
     "A session token is accepted on the routes of every other session."},
    {fault::partial_tool_results_accepted, "partial_tool_results_accepted", "TASK-4",
     "tool-results that cover only some pending calls are accepted."},
    {fault::undeclared_tool_surfaced, "undeclared_tool_surfaced", "TASK-8",
     "A model call to a tool the task did not declare is surfaced as pending."},
    {fault::interrupt_never_times_out, "interrupt_never_times_out", "TASK-7",
     "An interrupted task waits for tool results forever."},
    {fault::task_output_prefixed, "task_output_prefixed", "TASK-6",
     "Client tool calls appear in the task output under a prefixed name."},
    {fault::task_requeued_as_pending, "task_requeued_as_pending", "TASK-5",
     "Accepted tool results send the task back to pending instead of processing."},
}};

}  // namespace

std::span<const fault_info> all_faults() {
  return catalogue;
}

const fault_info& describe(fault id) {
  return *std::find_if(catalogue.begin(), catalogue.end(),
                       [id](const fault_info& info) { return info.id == id; });
}

std::optional<fault> parse_fault(std::string_view name) {
  for (const auto& info : catalogue) {
    if (info.name == name) return info.id;
  }
  return std::nullopt;
}

}  // namespace toolwire::reference
