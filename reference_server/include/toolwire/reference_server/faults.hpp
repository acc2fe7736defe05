// Fault injection: realistic defects that `toolwire serve --fault NAME` plants in the
// reference server, so that every conformance case can be shown to fail against one.
#pragma once

#include <optional>
#include <set>
#include <span>
#include <string_view>

namespace toolwire::reference {

enum class fault {
  no_collision_counter,            // REG-5
  registered_event_wrong_name,     // REG-9
  description_limit_in_bytes,      // REG-2
  invalid_tool_name_accepted,      // REG-1
  ping_does_not_extend,            // LIFE-2
  ttl_boundary_inclusive,          // LIFE-3
  ack_extends_ttl,                 // LIFE-6
  vanished_calls_left_open,        // LIFE-5
  departed_client_tools_offered,   // LIFE-4
  put_merges_tools,                // TOOLS-1
  invalid_put_clears_tools,        // C-3 / TOOLS-2
  withdrawn_tool_offered,          // TOOLS-3
  unavailable_tool_dispatched,     // TOOLS-5
  dispatch_namespaced_tool,        // CALL-1
  ack_does_not_extend_deadline,    // CALL-3
  double_result_accepted,          // CALL-6
  results_matched_by_position,     // CALL-9
  next_step_before_all_settled,    // CALL-9
  string_content_serialized,       // CALL-8
  concurrent_turns_accepted,       // SES-2
  last_event_id_ignored,           // SES-3
  event_seq_gaps,                  // SES-3
  foreign_session_token_accepted,  // AUTH-3
  partial_tool_results_accepted,   // TASK-4
  undeclared_tool_surfaced,        // TASK-8
  interrupt_never_times_out,       // TASK-7
  task_output_prefixed,            // TASK-6
  task_requeued_as_pending,        // TASK-5
};

struct fault_info {
  reference::fault id;
  std::string_view name;     // as given to --fault
  std::string_view spec_id;  // the SPEC rule it breaks
  std::string_view summary;  // one sentence
};

//! Every fault, in declaration order.
std::span<const fault_info> all_faults();

const fault_info& describe(fault id);

std::optional<fault> parse_fault(std::string_view name);

using fault_set = std::set<fault>;

}  // namespace toolwire::reference
