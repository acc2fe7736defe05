// The SES-4 events' names and JSON codecs.
#include "toolwire/protocol/events.hpp"

#include <type_traits>

#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::protocol {
namespace {

//! The wire names, indexed by `event_type`. One table, so a name is spelled once.
constexpr std::array<std::string_view, all_event_types.size()> event_names = {
    "client_registered",  "client_tools_updated",   "client_unregistered",
    "turn_started",       "client_tool_dispatched", "client_tool_completed",
    "client_tool_failed", "turn_completed",         "turn_failed",
    "stream_gap",
};

// Why: type_of is the variant's index, and the names are indexed by the enum; the three
// lists must stay in one order.
static_assert(std::variant_size_v<event> == all_event_types.size());
static_assert(
    std::is_same_v<
        std::variant_alternative_t<static_cast<std::size_t>(event_type::client_tool_failed), event>,
        client_tool_failed>);
static_assert(std::is_same_v<
              std::variant_alternative_t<static_cast<std::size_t>(event_type::stream_gap), event>,
              stream_gap>);

json data_of(const client_registered& e) {
  return {{"client_id", e.client_id}, {"name", e.name}, {"requested_name", e.requested_name}};
}
json data_of(const client_tools_updated& e) {
  return {{"client_id", e.client_id}, {"tools", e.tools}};
}
json data_of(const client_unregistered& e) {
  return {{"client_id", e.client_id}, {"name", e.name}, {"reason", e.reason}};
}
json data_of(const turn_started& e) {
  return {{"turn_id", e.turn_id}};
}
json data_of(const client_tool_dispatched& e) {
  return {{"call_id", e.call_id},
          {"client_id", e.client_id},
          {"tool", e.tool},
          {"arguments", e.arguments},
          {"turn_id", e.turn_id}};
}
json data_of(const client_tool_completed& e) {
  return {{"call_id", e.call_id}, {"client_id", e.client_id}, {"is_error", e.is_error}};
}
json data_of(const client_tool_failed& e) {
  return {
      {"call_id", e.call_id}, {"client_id", e.client_id}, {"tool", e.tool}, {"reason", e.reason}};
}
json data_of(const turn_completed& e) {
  return {{"turn_id", e.turn_id}, {"output", e.output}};
}
json data_of(const turn_failed& e) {
  return {{"turn_id", e.turn_id}, {"reason", e.reason}};
}
json data_of(const stream_gap& e) {
  return {{"oldest_seq", e.oldest_seq}};
}

bool bool_at(const json& data, std::string_view key) {
  const json& member = member_at(data, key);
  return member.is_boolean() && member.get<bool>();
}

std::uint64_t count_at(const json& data, std::string_view key) {
  const json& member = member_at(data, key);
  return member.is_number_unsigned() ? member.get<std::uint64_t>() : 0;
}

}  // namespace

std::string_view to_string(event_type type) {
  return event_names.at(static_cast<std::size_t>(type));
}

std::optional<event_type> parse_event_type(std::string_view name) {
  for (const event_type type : all_event_types) {
    if (to_string(type) == name) return type;
  }
  return std::nullopt;
}

event_type type_of(const event& e) {
  return all_event_types.at(e.index());
}

json to_json(const event& e) {
  return std::visit([](const auto& alternative) { return data_of(alternative); }, e);
}

std::optional<event> read_event(std::string_view type, const json& data) {
  const auto known = parse_event_type(type);
  if (!known) return std::nullopt;
  const auto text = [&](std::string_view key) { return string_at(data, key); };
  switch (*known) {
    case event_type::client_registered:
      return client_registered{text("client_id"), text("name"), text("requested_name")};
    case event_type::client_tools_updated:
      return client_tools_updated{text("client_id"), strings_in(member_at(data, "tools"))};
    case event_type::client_unregistered:
      return client_unregistered{text("client_id"), text("name"), text("reason")};
    case event_type::turn_started:
      return turn_started{text("turn_id")};
    case event_type::client_tool_dispatched:
      return client_tool_dispatched{text("call_id"), text("client_id"), text("tool"),
                                    member_at(data, "arguments"), text("turn_id")};
    case event_type::client_tool_completed:
      return client_tool_completed{text("call_id"), text("client_id"), bool_at(data, "is_error")};
    case event_type::client_tool_failed:
      return client_tool_failed{text("call_id"), text("client_id"), text("tool"), text("reason")};
    case event_type::turn_completed:
      return turn_completed{text("turn_id"), text("output")};
    case event_type::turn_failed:
      return turn_failed{text("turn_id"), text("reason")};
    case event_type::stream_gap:
      return stream_gap{count_at(data, "oldest_seq")};
  }
  return std::nullopt;  // unreachable: the switch covers every enumerator
}

}  // namespace toolwire::protocol
