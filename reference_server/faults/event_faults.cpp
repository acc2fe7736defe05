// The faults planted in events and in the core's configuration (see event_faults.hpp).
#include "event_faults.hpp"

#include "faulty_policy.hpp"

#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::reference_server::detail {

bool reshape_event(const fault_set& faults, session_event& event, std::uint64_t& next_seq,
                   const std::string& previous) {
  const auto has = [&](fault f) { return faults.contains(f); };
  using protocol::event_type;
  // Parsed once: each fault below asks about the event's type.
  const auto type = protocol::parse_event_type(event.type);
  // Fault event_seq_gaps: an internal bookkeeping event consumes a number (SES-3).
  if (has(fault::event_seq_gaps) && type == event_type::client_tool_completed) ++next_seq;
  // Fault seq_skips_after_tools_update (SES-3): the update counts itself twice.
  if (has(fault::seq_skips_after_tools_update) &&
      protocol::parse_event_type(previous) == event_type::client_tools_updated)
    ++next_seq;
  // Fault turn_started_omitted (SES-4).
  if (has(fault::turn_started_omitted) && type == event_type::turn_started) return false;
  // Fault turn_failed_named_turn_error (SES-4).
  if (has(fault::turn_failed_named_turn_error) && type == event_type::turn_failed) {
    event.type = "turn_error";
  }
  auto& data = event.data;
  // Fault arguments_as_text (CALL-1): the arguments go out as the model's JSON text.
  if (type == event_type::client_tool_dispatched && has(fault::arguments_as_text) &&
      data.contains("arguments")) {
    data["arguments"] = protocol::safe_dump(data["arguments"]);
  }
  // Fault error_result_reported_as_success (CALL-4): is_error is always false.
  if (type == event_type::client_tool_completed && has(fault::error_result_reported_as_success) &&
      data.contains("is_error")) {
    data["is_error"] = false;
  }
  if (type == event_type::client_tool_completed) {
    // Faults completed_event_without_client_id (CALL-4), completed_event_is_error_as_text
    // (SES-4).
    if (has(fault::completed_event_without_client_id)) data.erase("client_id");
    if (has(fault::completed_event_is_error_as_text) && data.contains("is_error") &&
        data["is_error"].is_boolean()) {
      data["is_error"] = data["is_error"].get<bool>() ? "true" : "false";
    }
  }
  // Fault registered_event_wrong_name (REG-9): the event reports the requested name.
  if (type == event_type::client_registered && has(fault::registered_event_wrong_name) &&
      data.contains("requested_name")) {
    data["name"] = data["requested_name"];
  }
  // Fault left_reason_named_deleted (SES-4): a DELETE is reported as "deleted".
  if (type == event_type::client_unregistered && has(fault::left_reason_named_deleted) &&
      data.value("reason", json()) == "left") {
    data["reason"] = "deleted";
  }
  // Fault failed_event_without_tool (SES-4).
  if (type == event_type::client_tool_failed && has(fault::failed_event_without_tool)) {
    data.erase("tool");
  }
  return true;
}

bool faulty_policy::shape_event(session_event& event, std::uint64_t& next_seq,
                                const std::string& previous) const {
  return reshape_event(faults_, event, next_seq, previous);
}

core_config with_config_faults(core_config config) {
  // Fault interrupt_deadline_early (TASK-7): a tenth of the timeout is lost to rounding.
  if (config.faults.contains(fault::interrupt_deadline_early)) {
    config.interrupt_timeout_ms = config.interrupt_timeout_ms / 10 * 9;  // cannot overflow
  }
  return config;
}

}  // namespace toolwire::reference_server::detail
