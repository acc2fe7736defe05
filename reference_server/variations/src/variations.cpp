// The variation table, and how a set of variations is put around a server and its model.
#include "toolwire/reference_server/variations/variations.hpp"

#include <algorithm>
#include <array>

#include "varied_backend.hpp"
#include "varied_wire.hpp"

namespace toolwire::reference_server::variations {

namespace {

using enum variation;

constexpr std::array<variation_info, 24> table = {{
    {extra_fields, "extra_fields", "C-6",
     "Every object of every response body and event, array items included, carries a field "
     "SPEC does not list; task output tool calls carry an `id`."},
    {uuid_ids, "uuid_ids", "SES-1,SES-2,REG-9,CALL-1,TASK-1,TASK-3",
     "Session, client, call, turn and task ids are uuid-style strings (ids are opaque)."},
    {other_texts, "other_texts", "C-2,SES-4,MODEL-4,CALL-8,TASK-8",
     "Other error messages, turn_failed reasons, failed-task reasons (except TASK-7's), "
     "error texts the model reads, and the reason of the error a task's model gets for a "
     "tool that is not the task's (tool_unavailable): SPEC names none of these."},
    {json_charset, "json_charset", "C-1",
     "JSON responses say `Content-Type: application/json; charset=utf-8`."},
    {pretty_json, "pretty_json", "C-1", "JSON bodies are pretty-printed with a final newline."},
    {extra_headers, "extra_headers", "C-6",
     "Every response carries headers SPEC does not name (X-Request-Id, X-Powered-By, "
     "Cache-Control, Vary)."},
    {connection_close, "connection_close", "C-1",
     "Every response says `Connection: close` and the connection closes after it."},
    {chunked_bodies, "chunked_bodies", "C-1",
     "Response bodies use chunked transfer encoding instead of Content-Length."},
    {sse_keepalive_1s, "sse_keepalive_1s", "SES-3",
     "Event streams send a keep-alive comment after every second of silence."},
    {sse_preamble, "sse_preamble", "SES-3",
     "Event streams start with a comment line and a `retry:` field before any event."},
    {sse_compact_frames, "sse_compact_frames", "SES-3",
     "Event frames put `event:` before `id:`, omit the space after each colon and end "
     "lines with CRLF."},
    {departure_reordered, "departure_reordered", "LIFE-5",
     "A departing client's client_tool_failed events come before its client_unregistered "
     "(either order is allowed)."},
    {model_history, "model_history", "MODEL-1,MODEL-3",
     "Each model request of a turn carries the session's earlier turns: their user "
     "messages, the model's answers and every tool result."},
    {model_history_failed, "model_history_failed", "MODEL-1,MODEL-3",
     "As model_history, with the turns that failed as well: a failed turn's user message "
     "(which has no reply) and the steps it made before it failed."},
    {model_reserialised, "model_reserialised", "MODEL-1",
     "The model's earlier answers come back re-serialised: an assistant message without "
     "text has content \"\" instead of null, and tool call arguments are re-indented JSON."},
    {model_system_prompt, "model_system_prompt", "MODEL-1",
     "Each model request starts with a system prompt, repeated before the user message."},
    {model_request_extras, "model_request_extras", "MODEL-1",
     "Model requests carry other OpenAI fields: temperature, tool_choice, "
     "parallel_tool_calls, stream, user, and `strict` in each tool."},
    {model_text_parts, "model_text_parts", "MODEL-3",
     "The user's text reaches the model as a content array of one text part."},
    {tool_lists_reversed, "tool_lists_reversed", "SES-4,TOOLS-1",
     "client_tools_updated lists the tool names in reverse order (SPEC does not order "
     "them)."},
    {pending_calls_reversed, "pending_calls_reversed", "TASK-3",
     "An interrupted task lists its pending_tool_calls in the reverse of the model's order "
     "(SPEC does not order them)."},
    {slow_responses, "slow_responses", "C-1",
     "Each request waits 5-50 ms (seeded jitter) before the server handles it, as on a "
     "busy server."},
    {slow_events, "slow_events", "SES-3",
     "New events reach the event streams 5-50 ms (seeded jitter) after they happen."},
    {late_timers, "late_timers", "CALL-3,CALL-5,TASK-7,REG-6",
     "On a real clock, deadline timers fire up to 100 ms after the deadline (seeded jitter); "
     "a profile then states timing_tolerance_ms of at least 100."},
    {slow_model_calls, "slow_model_calls", "MODEL-1",
     "Each model request leaves 5-50 ms (seeded jitter) after the message, result or task "
     "that caused it."},
}};

bool at_the_model(variation v) {
  return v == model_history || v == model_history_failed || v == model_reserialised ||
         v == model_system_prompt || v == model_request_extras || v == model_text_parts ||
         v == other_texts;
}

std::uint64_t mixed(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

bool on_the_wire(variation v) {
  return (v == other_texts || !at_the_model(v)) && v != sse_keepalive_1s;
}

}  // namespace

std::span<const variation_info> all_variations() {
  return table;
}

const variation_info& describe(variation id) {
  return *std::find_if(table.begin(), table.end(), [id](const auto& i) { return i.id == id; });
}

std::optional<variation> parse_variation(std::string_view name) {
  for (const auto& info : table) {
    if (info.name == name) return info.id;
  }
  return std::nullopt;
}

std::chrono::milliseconds slow_delay(variation slow, std::uint64_t n) {
  const std::uint64_t draw = mixed(n * 4 + static_cast<std::uint64_t>(slow));
  if (slow == late_timers) return std::chrono::milliseconds(draw % 101);
  return std::chrono::milliseconds(5 + draw % 46);
}

void apply(const variation_set& set, web::server_config& config) {
  if (set.contains(sse_keepalive_1s)) config.keepalive = std::chrono::milliseconds(1'000);
  if (std::any_of(set.begin(), set.end(), on_the_wire)) {
    config.wire = std::make_shared<detail::varied_wire>(set);
  }
}

std::unique_ptr<web::model_backend> wrap_backend(const variation_set& set,
                                                 std::unique_ptr<web::model_backend> inner) {
  if (std::none_of(set.begin(), set.end(), at_the_model)) return inner;
  return std::make_unique<detail::varied_backend>(set, std::move(inner));
}

}  // namespace toolwire::reference_server::variations
