// Parsing and validating request bodies: every input rule of SPEC (REG-1..4, REG-8,
// TOOLS-2, CALL-4, TASK-1, TASK-4, CLOCK-1). Errors name the field and the rule, e.g.
// `tools[2].name: must be 1-64 characters of [A-Za-z0-9_-] (REG-1)`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "toolwire/protocol/outcome.hpp"
#include "toolwire/protocol/types.hpp"

namespace toolwire::protocol {

inline constexpr std::size_t max_name_length = 64;
inline constexpr std::size_t max_description_code_points = 4096;
inline constexpr std::int64_t max_ttl_seconds = 86400;

//! REG-1 / REG-4: 1-64 characters of [A-Za-z0-9_-].
bool is_valid_name(std::string_view name);

//! Unicode code points in a UTF-8 string; nullopt when it is not valid UTF-8.
std::optional<std::size_t> count_code_points(std::string_view utf8);

//! Parses a body's text as JSON (C-1, C-2): invalid UTF-8, nesting deeper than
//! `max_json_depth`, numbers beyond a double and malformed JSON are 400 (safe_json.hpp).
outcome<json> parse_json_body(std::string_view body);

outcome<register_request> parse_register_request(const json& body);
outcome<put_tools_request> parse_put_tools_request(const json& body);
outcome<result_request> parse_result_request(const json& body);
outcome<message_request> parse_message_request(const json& body);
outcome<task_create_request> parse_task_create_request(const json& body);
//! Shape only (TASK-4 items); coverage of the pending calls is the core's check.
outcome<tool_results_request> parse_tool_results_request(const json& body);
outcome<advance_request> parse_advance_request(const json& body);
//! A Last-Event-ID header (SES-3): a non-negative integer in decimal, else nothing.
std::optional<std::uint64_t> parse_last_event_id(std::string_view text);

//! A web origin as a browser sends it in `Origin` (CORS-1..3): `http://` or `https://`, a
//! host (a name, an IPv4 address or an [IPv6] one) and an optional port from 1 to 65535,
//! nothing after it but one optional '/'. Gives it serialized the browser's way: scheme and
//! host in lowercase, no default port (80 for http, 443 for https), no '/'.
outcome<std::string> parse_origin(std::string_view text);

//! A tool list under `field` (e.g. "tools"): REG-1, REG-2, REG-3.
outcome<std::vector<tool_spec>> parse_tool_list(const json& list, std::string_view field);

}  // namespace toolwire::protocol
