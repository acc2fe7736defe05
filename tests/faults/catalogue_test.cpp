// Tests for the fault catalogue itself, and that every catalogued fault has its test here.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>

#include "toolwire/reference_server/faults.hpp"

using toolwire::reference_server::all_faults;
using toolwire::reference_server::describe;
using toolwire::reference_server::fault;
using toolwire::reference_server::parse_fault;

namespace {

//! Every rule ID of SPEC.md, in its order (63 rules), then the CORS capability's (issue 22).
const std::set<std::string> spec_ids = {
    "C-1",     "C-2",     "C-3",     "C-4",     "C-5",     "C-6",    "AUTH-1",  "AUTH-2",
    "AUTH-3",  "AUTH-4",  "AUTH-5",  "SES-1",   "SES-2",   "SES-3",  "SES-4",   "SES-5",
    "REG-1",   "REG-2",   "REG-3",   "REG-4",   "REG-5",   "REG-6",  "REG-7",   "REG-8",
    "REG-9",   "LIFE-1",  "LIFE-2",  "LIFE-3",  "LIFE-4",  "LIFE-5", "LIFE-6",  "TOOLS-1",
    "TOOLS-2", "TOOLS-3", "TOOLS-4", "TOOLS-5", "TOOLS-6", "CALL-1", "CALL-2",  "CALL-3",
    "CALL-4",  "CALL-5",  "CALL-6",  "CALL-7",  "CALL-8",  "CALL-9", "CLOCK-1", "CLOCK-2",
    "CLOCK-3", "MODEL-1", "MODEL-2", "MODEL-3", "MODEL-4", "TASK-1", "TASK-2",  "TASK-3",
    "TASK-4",  "TASK-5",  "TASK-6",  "TASK-7",  "TASK-8",  "TASK-9", "TASK-10",
    "CORS-1",  "CORS-2",  "CORS-3",
};

//! The test of this folder that shows each fault breaking its rule. A fault added to the
//! catalogue without a row here (and a test of that name) fails "every catalogued fault
//! has its test".
const std::map<fault, std::string> fault_tests = {
    {fault::no_collision_counter, "fault no_collision_counter breaks REG-5"},
    {fault::registered_event_wrong_name, "fault registered_event_wrong_name breaks REG-9"},
    {fault::description_limit_in_bytes, "fault description_limit_in_bytes breaks REG-2"},
    {fault::invalid_tool_name_accepted, "fault invalid_tool_name_accepted breaks REG-1"},
    {fault::ping_does_not_extend, "fault ping_does_not_extend breaks LIFE-2"},
    {fault::ttl_boundary_inclusive, "fault ttl_boundary_inclusive breaks LIFE-3"},
    {fault::ack_extends_ttl, "fault ack_extends_ttl breaks LIFE-6"},
    {fault::vanished_calls_left_open, "fault vanished_calls_left_open breaks LIFE-5"},
    {fault::departed_client_tools_offered, "fault departed_client_tools_offered breaks LIFE-4"},
    {fault::put_merges_tools, "fault put_merges_tools breaks TOOLS-1"},
    {fault::invalid_put_clears_tools, "fault invalid_put_clears_tools breaks C-3"},
    {fault::withdrawn_tool_offered, "fault withdrawn_tool_offered breaks TOOLS-3"},
    {fault::unavailable_tool_dispatched, "fault unavailable_tool_dispatched breaks TOOLS-5"},
    {fault::newly_live_tool_refused, "fault newly_live_tool_refused breaks TOOLS-5"},
    {fault::dispatch_namespaced_tool, "fault dispatch_namespaced_tool breaks CALL-1"},
    {fault::ack_does_not_extend_deadline, "fault ack_does_not_extend_deadline breaks CALL-3"},
    {fault::double_result_accepted, "fault double_result_accepted breaks CALL-6"},
    {fault::results_matched_by_position, "fault results_matched_by_position breaks CALL-9"},
    {fault::next_step_before_all_settled, "fault next_step_before_all_settled breaks CALL-9"},
    {fault::string_content_serialized, "fault string_content_serialized breaks CALL-8"},
    {fault::concurrent_turns_accepted, "fault concurrent_turns_accepted breaks SES-2"},
    {fault::last_event_id_ignored, "fault last_event_id_ignored breaks SES-3"},
    {fault::event_seq_gaps, "fault event_seq_gaps breaks SES-3"},
    {fault::foreign_session_token_accepted, "fault foreign_session_token_accepted breaks AUTH-3"},
    {fault::partial_tool_results_accepted, "fault partial_tool_results_accepted breaks TASK-4"},
    {fault::undeclared_tool_surfaced, "fault undeclared_tool_surfaced breaks TASK-8"},
    {fault::interrupt_never_times_out, "fault interrupt_never_times_out breaks TASK-7"},
    {fault::task_output_prefixed, "fault task_output_prefixed breaks TASK-6"},
    {fault::task_requeued_as_pending, "fault task_requeued_as_pending breaks TASK-5"},
    {fault::malformed_json_treated_as_empty, "fault malformed_json_treated_as_empty breaks C-1"},
    {fault::error_body_is_string, "fault error_body_is_string breaks C-2"},
    {fault::rejected_result_acks_call, "fault rejected_result_acks_call breaks C-3"},
    {fault::access_token_accepted_everywhere, "fault access_token_accepted_everywhere breaks C-5"},
    {fault::unknown_fields_rejected, "fault unknown_fields_rejected breaks C-6"},
    {fault::api_key_rejected_on_client_routes,
     "fault api_key_rejected_on_client_routes breaks AUTH-1"},
    {fault::unknown_credential_is_403, "fault unknown_credential_is_403 breaks AUTH-2"},
    {fault::session_token_creates_session, "fault session_token_creates_session breaks AUTH-4"},
    {fault::access_token_query_ignored, "fault access_token_query_ignored breaks AUTH-5"},
    {fault::session_created_with_200, "fault session_created_with_200 breaks SES-1"},
    {fault::left_reason_named_deleted, "fault left_reason_named_deleted breaks SES-4"},
    {fault::completed_event_deferred, "fault completed_event_deferred breaks SES-5"},
    {fault::duplicate_tool_names_collapsed, "fault duplicate_tool_names_collapsed breaks REG-3"},
    {fault::client_name_unchecked, "fault client_name_unchecked breaks REG-4"},
    {fault::ttl_upper_bound_unchecked, "fault ttl_upper_bound_unchecked breaks REG-8"},
    {fault::never_client_given_default_ttl, "fault never_client_given_default_ttl breaks LIFE-1"},
    {fault::second_delete_accepted, "fault second_delete_accepted breaks LIFE-4"},
    {fault::put_tools_unvalidated, "fault put_tools_unvalidated breaks TOOLS-2"},
    {fault::withdrawn_tool_calls_failed, "fault withdrawn_tool_calls_failed breaks TOOLS-4"},
    {fault::unresolved_call_never_settled, "fault unresolved_call_never_settled breaks TOOLS-5"},
    {fault::put_applied_in_two_phases, "fault put_applied_in_two_phases breaks TOOLS-6"},
    {fault::arguments_as_text, "fault arguments_as_text breaks CALL-1"},
    {fault::model_name_uses_requested_name, "fault model_name_uses_requested_name breaks CALL-2"},
    {fault::result_timeout_from_ack, "fault result_timeout_from_ack breaks CALL-3"},
    {fault::ack_timeout_not_enforced, "fault ack_timeout_not_enforced breaks CALL-3"},
    {fault::error_result_reported_as_success,
     "fault error_result_reported_as_success breaks CALL-4"},
    {fault::empty_result_accepted, "fault empty_result_accepted breaks CALL-4"},
    {fault::non_string_content_rejected, "fault non_string_content_rejected breaks CALL-4"},
    {fault::content_preferred_over_error, "fault content_preferred_over_error breaks CALL-4"},
    {fault::deadline_not_cancelled_on_result,
     "fault deadline_not_cancelled_on_result breaks CALL-5"},
    {fault::ack_after_settle_accepted, "fault ack_after_settle_accepted breaks CALL-6"},
    {fault::wrong_client_result_accepted, "fault wrong_client_result_accepted breaks CALL-7"},
    {fault::error_result_message_only, "fault error_result_message_only breaks CALL-8"},
    {fault::tool_message_uses_our_call_id, "fault tool_message_uses_our_call_id breaks MODEL-1"},
    {fault::only_first_tool_call_taken, "fault only_first_tool_call_taken breaks MODEL-2"},
    {fault::user_text_trimmed, "fault user_text_trimmed breaks MODEL-3"},
    {fault::model_failure_hangs_turn, "fault model_failure_hangs_turn breaks MODEL-4"},
    {fault::unknown_assistant_accepted, "fault unknown_assistant_accepted breaks TASK-1"},
    {fault::assistant_id_coerced, "fault assistant_id_coerced breaks TASK-1"},
    {fault::task_tool_description_optional, "fault task_tool_description_optional breaks TASK-1"},
    {fault::task_status_renamed, "fault task_status_renamed breaks TASK-2"},
    {fault::pending_shows_model_call_ids, "fault pending_shows_model_call_ids breaks TASK-3"},
    {fault::tool_results_items_applied_one_by_one,
     "fault tool_results_items_applied_one_by_one breaks TASK-4"},
    {fault::task_409_checked_after_items, "fault task_409_checked_after_items breaks TASK-4"},
    {fault::tool_results_status_unchecked, "fault tool_results_status_unchecked breaks TASK-4"},
    {fault::tool_results_unknown_task_409, "fault tool_results_unknown_task_409 breaks TASK-4"},
    {fault::interrupt_deadline_from_creation,
     "fault interrupt_deadline_from_creation breaks TASK-7"},
    {fault::task_call_ids_restart_each_round,
     "fault task_call_ids_restart_each_round breaks TASK-9"},
    {fault::task_tools_offered_prefixed, "fault task_tools_offered_prefixed breaks TASK-10"},
    {fault::api_key_scopes_ignored, "fault api_key_scopes_ignored breaks AUTH-2"},
    {fault::session_token_accepted_on_tasks, "fault session_token_accepted_on_tasks breaks AUTH-2"},
    {fault::unknown_session_is_403, "fault unknown_session_is_403 breaks AUTH-2"},
    {fault::last_event_id_zero_rejected, "fault last_event_id_zero_rejected breaks SES-3"},
    {fault::invalid_last_event_id_replays_all,
     "fault invalid_last_event_id_replays_all breaks SES-3"},
    {fault::lifetime_defaults_to_never, "fault lifetime_defaults_to_never breaks REG-1"},
    {fault::tool_fields_defaulted, "fault tool_fields_defaulted breaks REG-1"},
    {fault::parameters_not_checked, "fault parameters_not_checked breaks REG-1"},
    {fault::parameters_type_required, "fault parameters_type_required breaks REG-1"},
    {fault::empty_description_rejected, "fault empty_description_rejected breaks REG-1"},
    {fault::tools_required_at_registration, "fault tools_required_at_registration breaks REG-1"},
    {fault::name_length_off_by_one, "fault name_length_off_by_one breaks REG-1"},
    {fault::description_limit_off_by_one, "fault description_limit_off_by_one breaks REG-2"},
    {fault::tool_names_unique_per_session, "fault tool_names_unique_per_session breaks REG-3"},
    {fault::non_string_names_stringified, "fault non_string_names_stringified breaks REG-4"},
    {fault::name_counter_global, "fault name_counter_global breaks REG-5"},
    {fault::ttl_lower_bound_unchecked, "fault ttl_lower_bound_unchecked breaks REG-8"},
    {fault::ttl_fraction_truncated, "fault ttl_fraction_truncated breaks REG-8"},
    {fault::name_charset_without_dash, "fault name_charset_without_dash breaks REG-1"},
    {fault::schema_keywords_limited, "fault schema_keywords_limited breaks REG-1"},
    {fault::non_object_tools_skipped, "fault non_object_tools_skipped breaks REG-1"},
    {fault::long_description_truncated, "fault long_description_truncated breaks REG-1"},
    {fault::client_name_defaulted, "fault client_name_defaulted breaks REG-4"},
    {fault::session_token_rejected_on_messages,
     "fault session_token_rejected_on_messages breaks AUTH-1"},
    {fault::session_token_rejected_on_delete,
     "fault session_token_rejected_on_delete breaks AUTH-1"},
    {fault::missing_credential_is_400, "fault missing_credential_is_400 breaks AUTH-2"},
    {fault::limited_key_refused_on_workspace_routes,
     "fault limited_key_refused_on_workspace_routes breaks AUTH-2"},
    {fault::non_object_body_is_422, "fault non_object_body_is_422 breaks C-2"},
    {fault::conflict_typed_invalid_state, "fault conflict_typed_invalid_state breaks C-2"},
    {fault::not_found_typed_unknown_resource, "fault not_found_typed_unknown_resource breaks C-2"},
    {fault::malformed_json_is_500, "fault malformed_json_is_500 breaks C-2"},
    {fault::rejected_message_starts_turn, "fault rejected_message_starts_turn breaks C-3"},
    {fault::rejected_registration_registers_client,
     "fault rejected_registration_registers_client breaks C-3"},
    {fault::put_tools_extends_ttl, "fault put_tools_extends_ttl breaks LIFE-6"},
    {fault::client_name_length_exclusive, "fault client_name_length_exclusive breaks REG-4"},
    {fault::ttl_upper_bound_exclusive, "fault ttl_upper_bound_exclusive breaks REG-8"},
    {fault::second_session_answered_200, "fault second_session_answered_200 breaks SES-1"},
    {fault::last_event_id_beyond_latest_rejected,
     "fault last_event_id_beyond_latest_rejected breaks SES-3"},
    {fault::task_duplicate_tools_collapsed, "fault task_duplicate_tools_collapsed breaks TASK-1"},
    {fault::zero_advance_rejected, "fault zero_advance_rejected breaks CLOCK-1"},
    {fault::negative_advance_accepted, "fault negative_advance_accepted breaks CLOCK-1"},
    {fault::result_after_timeout_accepted, "fault result_after_timeout_accepted breaks CALL-6"},
    {fault::completed_event_without_client_id,
     "fault completed_event_without_client_id breaks CALL-4"},
    {fault::completed_event_is_error_as_text,
     "fault completed_event_is_error_as_text breaks SES-4"},
    {fault::failed_event_without_tool, "fault failed_event_without_tool breaks SES-4"},
    {fault::turn_failed_named_turn_error, "fault turn_failed_named_turn_error breaks SES-4"},
    {fault::turn_started_omitted, "fault turn_started_omitted breaks SES-4"},
    {fault::seq_skips_after_tools_update, "fault seq_skips_after_tools_update breaks SES-3"},
    {fault::api_key_registration_201_without_name,
     "fault api_key_registration_201_without_name breaks REG-9"},
    {fault::result_requires_ack, "fault result_requires_ack breaks CALL-3"},
    {fault::interrupt_deadline_early, "fault interrupt_deadline_early breaks TASK-7"},
    {fault::model_steps_take_virtual_time, "fault model_steps_take_virtual_time breaks CLOCK-3"},
    {fault::advance_fires_timers_late, "fault advance_fires_timers_late breaks CLOCK-2"},
    {fault::cors_preflight_needs_credential, "fault cors_preflight_needs_credential breaks CORS-1"},
    {fault::cors_authorization_header_not_allowed,
     "fault cors_authorization_header_not_allowed breaks CORS-1"},
    {fault::cors_errors_not_allowed, "fault cors_errors_not_allowed breaks CORS-2"},
    {fault::cors_any_origin_allowed, "fault cors_any_origin_allowed breaks CORS-3"},
};

//! The names of every TEST_CASE linked into this executable.
std::set<std::string> registered_test_names() {
  std::set<std::string> names;
  for (const auto& test : Catch::getRegistryHub().getTestCaseRegistry().getAllTests()) {
    names.insert(test.name);
  }
  return names;
}

}  // namespace

TEST_CASE("the fault catalogue is well formed and cites real SPEC rules", "[faults][catalogue]") {
  REQUIRE(spec_ids.size() == 66);
  const auto faults = all_faults();
  CHECK(faults.size() >= 12);

  std::set<std::string> names;
  std::set<fault> ids;
  for (const auto& info : faults) {
    const std::string name(info.name);
    const std::string spec_id(info.spec_id);
    CAPTURE(name, spec_id);
    CHECK_FALSE(name.empty());
    CHECK(names.insert(name).second);
    CHECK(ids.insert(info.id).second);
    CHECK(spec_ids.count(spec_id) == 1);
    CHECK_FALSE(info.summary.empty());
    CHECK(describe(info.id).name == info.name);

    // parse_fault round-trips the name.
    const auto parsed = parse_fault(info.name);
    REQUIRE(parsed.has_value());
    CHECK(*parsed == info.id);
  }
}

TEST_CASE("parse_fault rejects names that are not in the catalogue", "[faults][catalogue]") {
  for (const char* unknown : {"", "no_such_fault", "NO_COLLISION_COUNTER", " no_collision_counter",
                              "no_collision_counter ", "no-collision-counter", "REG-5"}) {
    CAPTURE(unknown);
    CHECK_FALSE(parse_fault(unknown).has_value());
  }
}

TEST_CASE("every catalogued fault has its test", "[faults][catalogue]") {
  std::set<std::string> catalogued;
  for (const auto& info : all_faults()) {
    catalogued.insert(std::string(info.name));
  }
  std::set<std::string> tested;
  for (const auto& row : fault_tests) {
    tested.insert(std::string(describe(row.first).name));
  }
  CHECK(tested == catalogued);

  const auto registered = registered_test_names();
  for (const auto& info : all_faults()) {
    const std::string expected =
        "fault " + std::string(info.name) + " breaks " + std::string(info.spec_id);
    CAPTURE(expected);
    const auto row = fault_tests.find(info.id);
    REQUIRE(row != fault_tests.end());
    CHECK(row->second == expected);
    CHECK(registered.count(expected) == 1);
  }
}
