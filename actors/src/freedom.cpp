// The table of implementation freedom and the views of a run that leave it out.
#include "toolwire/actors/freedom.hpp"

#include <array>

#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::actors::freedom {

namespace {

using enum kind;

constexpr std::array<info, 6> table = {{
    {error_message, "C-2,CALL-8",
     "The message of an error body, and of the error a model reads for a failed call."},
    {turn_failed_reason, "SES-4,MODEL-4", "The reason text of turn_failed."},
    {task_failure_reason, "TASK-5,TASK-7",
     "A failed task's reason, except TASK-7's tool_results_timeout."},
    {undeclared_tool_error, "TASK-8",
     "The error a model gets for a call to a tool that is neither the task's nor the "
     "assistant's: that it is an error is fixed, its reason and text are not."},
    {tool_list_order, "SES-4,TOOLS-1", "The order of the names in client_tools_updated."},
    {pending_call_order, "TASK-3", "The order of an interrupted task's pending_tool_calls."},
}};

}  // namespace

std::span<const info> all() {
  return table;
}

json fixed_tool_result(const json& content, bool reason_free) {
  if (!content.is_string()) return content;
  const json parsed = json::parse(content.get<std::string>(), nullptr, false);
  // A text that parses as a JSON string is not a serialization's spacing: CALL-8 passes
  // string content as it is, so "ok" and "\"ok\"" are two results (read as one, explore
  // could not find a server that JSON-quotes string content).
  if (parsed.is_discarded() || parsed.is_string()) return content;
  if (parsed.is_object() && parsed.contains("error")) {
    if (reason_free) return {{"error", true}};
    if (parsed["error"].is_object())
      return {{"error", protocol::string_at(parsed["error"], "reason")}};
  }
  return parsed;
}

std::string fixed_task_failure(std::string_view reason) {
  return reason == "tool_results_timeout" ? "tool_results_timeout" : "another reason";
}

bool free_event_field(protocol::event_type type, std::string_view field) {
  return type == protocol::event_type::turn_failed && field == "reason";
}

}  // namespace toolwire::actors::freedom
