// Variations: behaviour that SPEC allows but the reference does not show by default, so
// that `toolwire serve --variation NAME` can prove the suite never fails a legitimate
// implementation (the mirror of the faults, which prove it fails a wrong one).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string_view>

#include "toolwire/reference_server/web/model_backend.hpp"
#include "toolwire/reference_server/web/server.hpp"

namespace toolwire::reference_server::variations {

enum class variation {
  extra_fields,            // C-6
  uuid_ids,                // SES-1, REG-9, CALL-1, TASK-1: ids are opaque
  other_texts,             // C-2, SES-4, MODEL-4, CALL-8: free texts
  json_charset,            // C-1
  pretty_json,             // C-1
  extra_headers,           // C-6
  connection_close,        // C-1 (HTTP/1.1)
  chunked_bodies,          // C-1 (HTTP/1.1)
  sse_keepalive_1s,        // SES-3
  sse_preamble,            // SES-3
  sse_compact_frames,      // SES-3
  departure_reordered,     // LIFE-5
  model_history,           // MODEL-1, MODEL-3
  model_history_failed,    // MODEL-1, MODEL-3
  model_reserialised,      // MODEL-1
  model_system_prompt,     // MODEL-1
  model_request_extras,    // MODEL-1
  model_text_parts,        // MODEL-3
  tool_lists_reversed,     // SES-4, TOOLS-1
  pending_calls_reversed,  // TASK-3
  slow_responses,          // C-1: SPEC bounds no response time
  slow_events,             // SES-3: nor when an event reaches the stream
  late_timers,             // CALL-3, CALL-5, TASK-7, REG-6: within the profile's tolerance
  slow_model_calls,        // MODEL-1: nor when a model request leaves
};

//! A slow variation's delay at `where` for the `n`-th time it is asked: seeded jitter of
//! 5..50 ms (slow_responses, slow_events, slow_model_calls) or 0..100 ms (late_timers), the
//! same sequence in every run. Why not std::uniform_int_distribution: its mapping differs
//! across standard libraries.
std::chrono::milliseconds slow_delay(variation slow, std::uint64_t n);

struct variation_info {
  variation id;
  std::string_view name;      // as given to --variation
  std::string_view spec_ids;  // the SPEC rules that allow it, e.g. "C-6"
  std::string_view summary;   // one sentence: what the server does differently
};

//! Every variation, in declaration order.
std::span<const variation_info> all_variations();

const variation_info& describe(variation id);

std::optional<variation> parse_variation(std::string_view name);

using variation_set = std::set<variation>;

//! Makes a server configuration present the core as `set` says: its wire policy and,
//! for sse_keepalive_1s, its keep-alive interval. An empty set changes nothing.
void apply(const variation_set& set, web::server_config& config);

//! Wraps a model backend so that the requests it sends vary as `set` says (the model_*
//! variations, and other_texts for the error texts the model reads). Returns `inner`
//! itself when `set` asks for nothing on the model side.
std::unique_ptr<web::model_backend> wrap_backend(const variation_set& set,
                                                 std::unique_ptr<web::model_backend> inner);

}  // namespace toolwire::reference_server::variations
