// What SPEC leaves to the implementation, in one table. The catalog's expectations
// (expectations.cpp) and explore's observations (observations.cpp) read a run's tool
// results, failures and events through these functions, so a freedom granted to one
// comparison is granted to every one (docs/implementation-freedom.md, "Free in every
// comparison").
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/types.hpp"

namespace toolwire::actors::freedom {

using protocol::json;

enum class kind {
  error_message,          // C-2, CALL-8: the message of an error body or of a tool error
  turn_failed_reason,     // SES-4, MODEL-4: turn_failed's reason is a text
  task_failure_reason,    // TASK-5: a failed task's reason, except TASK-7's
  undeclared_tool_error,  // TASK-8: what error the model gets for a tool that is not the task's
  tool_list_order,        // SES-4, TOOLS-1: client_tools_updated lists names in any order
  pending_call_order,     // TASK-3: pending_tool_calls in any order
};

struct info {
  kind id;
  std::string_view spec_ids;
  std::string_view what;  // one sentence: what an implementation may choose
};

//! Every freedom, in declaration order.
std::span<const info> all();

//! A tool result the model received, as far as SPEC fixes it: a text that is a JSON object,
//! array, number or literal is its value (CALL-8: any spacing or key order of the
//! serialization is the same value), while a text that parses as a JSON string stays the
//! text (string content reaches the model as it is, not quoted); an
//! error `{"error": {"reason", "message"}}` is `{"error": <reason>}` (the message is free
//! text); where the reason is free too (`reason_free`: TASK-8, a call to a tool that is not
//! the task's), `{"error": true}`.
json fixed_tool_result(const json& content, bool reason_free);

//! A failed task's reason as SPEC fixes it: TASK-7's `tool_results_timeout`, or
//! "another reason" for every other.
std::string fixed_task_failure(std::string_view reason);

//! Whether `field` of an event of `type` is the implementation's to choose (turn_failed's
//! reason); such a field is left out of every comparison.
bool free_event_field(protocol::event_type type, std::string_view field);

}  // namespace toolwire::actors::freedom
