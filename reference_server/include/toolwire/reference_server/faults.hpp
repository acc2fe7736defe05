// Fault injection: realistic defects that `toolwire serve --fault NAME` plants in the
// reference server, so that every conformance case can be shown to fail against one.
#pragma once

#include <optional>
#include <set>
#include <span>
#include <string_view>

namespace toolwire::reference_server {

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
  newly_live_tool_refused,         // TOOLS-5
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
  // -- common conventions (section 0)
  malformed_json_treated_as_empty,   // C-1
  error_body_is_string,              // C-2
  rejected_result_acks_call,         // C-3
  access_token_accepted_everywhere,  // C-5
  unknown_fields_rejected,           // C-6
  // -- authentication and sessions (sections 1, 2)
  api_key_rejected_on_client_routes,  // AUTH-1
  unknown_credential_is_403,          // AUTH-2
  session_token_creates_session,      // AUTH-4
  access_token_query_ignored,         // AUTH-5
  session_created_with_200,           // SES-1
  left_reason_named_deleted,          // SES-4
  completed_event_deferred,           // SES-5
  // -- registration and lifetime (sections 3, 4)
  duplicate_tool_names_collapsed,  // REG-3
  client_name_unchecked,           // REG-4
  ttl_upper_bound_unchecked,       // REG-8
  never_client_given_default_ttl,  // LIFE-1
  second_delete_accepted,          // LIFE-4
  // -- tool lists (section 5)
  put_tools_unvalidated,          // TOOLS-2
  withdrawn_tool_calls_failed,    // TOOLS-4
  unresolved_call_never_settled,  // TOOLS-5
  put_applied_in_two_phases,      // TOOLS-6
  // -- calls (section 6)
  arguments_as_text,                 // CALL-1
  model_name_uses_requested_name,    // CALL-2
  result_timeout_from_ack,           // CALL-3
  ack_timeout_not_enforced,          // CALL-3
  error_result_reported_as_success,  // CALL-4
  empty_result_accepted,             // CALL-4
  non_string_content_rejected,       // CALL-4
  content_preferred_over_error,      // CALL-4
  deadline_not_cancelled_on_result,  // CALL-5
  ack_after_settle_accepted,         // CALL-6
  wrong_client_result_accepted,      // CALL-7
  error_result_message_only,         // CALL-8
  // -- the model interface (section 8)
  tool_message_uses_our_call_id,  // MODEL-1
  only_first_tool_call_taken,     // MODEL-2
  user_text_trimmed,              // MODEL-3
  model_failure_hangs_turn,       // MODEL-4
  // -- tasks (section 9)
  unknown_assistant_accepted,             // TASK-1
  assistant_id_coerced,                   // TASK-1
  task_tool_description_optional,         // TASK-1
  task_status_renamed,                    // TASK-2
  pending_shows_model_call_ids,           // TASK-3
  tool_results_items_applied_one_by_one,  // TASK-4
  task_409_checked_after_items,           // TASK-4
  tool_results_status_unchecked,          // TASK-4
  tool_results_unknown_task_409,          // TASK-4
  interrupt_deadline_from_creation,       // TASK-7
  task_call_ids_restart_each_round,       // TASK-9
  task_tools_offered_prefixed,            // TASK-10
  // -- validation at the edges, over- and under-strict (sections 1..3)
  api_key_scopes_ignored,             // AUTH-2
  session_token_accepted_on_tasks,    // AUTH-2
  unknown_session_is_403,             // AUTH-2
  last_event_id_zero_rejected,        // SES-3
  invalid_last_event_id_replays_all,  // SES-3
  lifetime_defaults_to_never,         // REG-1
  tool_fields_defaulted,              // REG-1
  parameters_not_checked,             // REG-1
  parameters_type_required,           // REG-1
  empty_description_rejected,         // REG-1
  tools_required_at_registration,     // REG-1
  name_length_off_by_one,             // REG-1
  name_charset_without_dash,          // REG-1
  schema_keywords_limited,            // REG-1
  non_object_tools_skipped,           // REG-1
  long_description_truncated,         // REG-1
  description_limit_off_by_one,       // REG-2
  tool_names_unique_per_session,      // REG-3
  non_string_names_stringified,       // REG-4
  client_name_defaulted,              // REG-4
  name_counter_global,                // REG-5
  ttl_lower_bound_unchecked,          // REG-8
  ttl_fraction_truncated,             // REG-8
  // -- faults that live on the wire, in event shapes, in the HTTP front end and its clock
  // (wire_faults.cpp, event_faults.cpp, http/): the rule files never name them
  session_token_rejected_on_messages,       // AUTH-1
  session_token_rejected_on_delete,         // AUTH-1
  missing_credential_is_400,                // AUTH-2
  limited_key_refused_on_workspace_routes,  // AUTH-2
  non_object_body_is_422,                   // C-2
  conflict_typed_invalid_state,             // C-2
  not_found_typed_unknown_resource,         // C-2
  malformed_json_is_500,                    // C-2
  rejected_message_starts_turn,             // C-3
  rejected_registration_registers_client,   // C-3
  put_tools_extends_ttl,                    // LIFE-6
  client_name_length_exclusive,             // REG-4
  ttl_upper_bound_exclusive,                // REG-8
  second_session_answered_200,              // SES-1
  last_event_id_beyond_latest_rejected,     // SES-3
  task_duplicate_tools_collapsed,           // TASK-1
  zero_advance_rejected,                    // CLOCK-1
  negative_advance_accepted,                // CLOCK-1
  result_after_timeout_accepted,            // CALL-6
  completed_event_without_client_id,        // CALL-4
  completed_event_is_error_as_text,         // SES-4
  failed_event_without_tool,                // SES-4
  turn_failed_named_turn_error,             // SES-4
  turn_started_omitted,                     // SES-4
  seq_skips_after_tools_update,             // SES-3
  api_key_registration_201_without_name,    // REG-9
  result_requires_ack,                      // CALL-3
  interrupt_deadline_early,                 // TASK-7
  model_steps_take_virtual_time,            // CLOCK-3
  advance_fires_timers_late,                // CLOCK-2
  // -- the CORS capability (CORS-1..3, docs/cors.md), around the router's cors.cpp
  cors_preflight_needs_credential,        // CORS-1
  cors_authorization_header_not_allowed,  // CORS-1
  cors_errors_not_allowed,                // CORS-2
  cors_any_origin_allowed,                // CORS-3
};

struct fault_info {
  reference_server::fault id;
  std::string_view name;     // as given to --fault
  std::string_view spec_id;  // the SPEC rule it breaks
  std::string_view summary;  // one sentence
};

//! Every fault, in declaration order.
std::span<const fault_info> all_faults();

const fault_info& describe(fault id);

std::optional<fault> parse_fault(std::string_view name);

using fault_set = std::set<fault>;

}  // namespace toolwire::reference_server
