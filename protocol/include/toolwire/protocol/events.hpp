// The SES-4 events: one struct per event type, their names, and their JSON codecs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "toolwire/protocol/types.hpp"

namespace toolwire::protocol {

//! The event types of SES-4, in the SPEC's order. Why an enum: an event's type is compared
//! in the core, the faults, the invariants, the expectations and the remote harness; a
//! misspelt string there compares false silently, a misspelt enumerator does not compile.
enum class event_type {
  client_registered,
  client_tools_updated,
  client_unregistered,
  turn_started,
  client_tool_dispatched,
  client_tool_completed,
  client_tool_failed,
  turn_completed,
  turn_failed,
  stream_gap,
};

//! Every event type once, for loops over all of them (the tests, the name table).
inline constexpr std::array all_event_types = {
    event_type::client_registered,
    event_type::client_tools_updated,
    event_type::client_unregistered,
    event_type::turn_started,
    event_type::client_tool_dispatched,
    event_type::client_tool_completed,
    event_type::client_tool_failed,
    event_type::turn_completed,
    event_type::turn_failed,
    event_type::stream_gap,
};

//! The wire name of `type` (SES-3's `event:` line), e.g. "client_tool_failed".
std::string_view to_string(event_type type);

//! The type a wire name stands for; nullopt for any other name (a misnamed or extra event
//! of another implementation), which no comparison with an enumerator then matches.
std::optional<event_type> parse_event_type(std::string_view name);

//! True when `name` is the wire name of `type`: a shorthand for readers that hold the wire
//! form and ask about one type.
inline bool is(std::string_view name, event_type type) {
  return name == to_string(type);
}

// The events' data (SES-4). Field names are the wire's. Equality is memberwise (the
// round-trip tests compare what was written with what was read).

struct client_registered {
  std::string client_id;
  std::string name;
  std::string requested_name;
  bool operator==(const client_registered&) const = default;
};

struct client_tools_updated {
  std::string client_id;
  std::vector<std::string> tools;  // names only
  bool operator==(const client_tools_updated&) const = default;
};

struct client_unregistered {
  std::string client_id;
  std::string name;
  std::string reason;  // "left" | "expired"
  bool operator==(const client_unregistered&) const = default;
};

struct turn_started {
  std::string turn_id;
  bool operator==(const turn_started&) const = default;
};

struct client_tool_dispatched {
  std::string call_id;
  std::string client_id;
  std::string tool;
  json arguments;  // any JSON: the model's arguments as the core dispatched them
  std::string turn_id;
  bool operator==(const client_tool_dispatched&) const = default;
};

struct client_tool_completed {
  std::string call_id;
  std::string client_id;
  bool is_error = false;
  bool operator==(const client_tool_completed&) const = default;
};

struct client_tool_failed {
  std::string call_id;
  std::string client_id;
  std::string tool;
  std::string reason;
  bool operator==(const client_tool_failed&) const = default;
};

struct turn_completed {
  std::string turn_id;
  std::string output;  // the model's final text
  bool operator==(const turn_completed&) const = default;
};

struct turn_failed {
  std::string turn_id;
  std::string reason;
  bool operator==(const turn_failed&) const = default;
};

struct stream_gap {
  std::uint64_t oldest_seq = 0;
  bool operator==(const stream_gap&) const = default;
};

//! One SES-4 event; the alternatives are in `event_type`'s order, so `index()` is the type.
using event = std::variant<client_registered, client_tools_updated, client_unregistered,
                           turn_started, client_tool_dispatched, client_tool_completed,
                           client_tool_failed, turn_completed, turn_failed, stream_gap>;

//! The type of `e`.
event_type type_of(const event& e);

//! The event's data object, with exactly the fields SES-4 lists (the type goes on the
//! `event:` line, not in the data).
json to_json(const event& e);

//! Reads an event's data as another implementation sent it. Tolerant, never throws: an
//! unknown `type` is nullopt; a field that is absent or of the wrong type reads as empty
//! ("" / no tools / false / 0 / null arguments), and fields SES-4 does not list are
//! ignored (C-6). Why tolerant: the harness reads any target's events, and judging what a
//! field holds is the invariants' job, which read the data themselves where they must.
std::optional<event> read_event(std::string_view type, const json& data);

}  // namespace toolwire::protocol
