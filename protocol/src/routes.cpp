// The route table (SPEC sections 1-9) and the one way to read and write its paths.
#include "toolwire/protocol/routes.hpp"

#include <algorithm>
#include <array>

namespace toolwire::protocol {

namespace {

using access = route_access;
using body = route_body;

//! The segments of a path after its leading '/'. Why a fixed array: every request is
//! matched, and a vector was an allocation per request; no route has half as many
//! segments, so a path with more than `most` fits none, and reads as longer than any.
struct path_segments {
  static constexpr std::size_t most = 16;
  std::array<std::string_view, most> parts{};
  std::size_t count = 0;
  bool too_many = false;

  std::size_t size() const { return too_many ? most + 1 : count; }
  std::string_view operator[](std::size_t i) const { return parts[i]; }
};

path_segments segments_of(std::string_view path) {
  path_segments segments;
  std::size_t start = 1;  // skip the leading '/'
  while (start <= path.size()) {
    if (segments.count == path_segments::most) {
      segments.too_many = true;
      break;
    }
    const std::size_t end = std::min(path.find('/', start), path.size());
    segments.parts[segments.count++] = path.substr(start, end - start);
    start = end + 1;
  }
  return segments;
}

//! Whether `wanted` (a pattern's segments) fits `parts`; fills `ids` with what its `{…}`
//! stand for, and only when it fits.
bool fits(const path_segments& wanted, const path_segments& parts, std::vector<std::string>* ids) {
  if (wanted.size() != parts.size()) return false;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (wanted[i].starts_with('{')) {
      if (parts[i].empty()) return false;  // an id is never empty
    } else if (wanted[i] != parts[i]) {
      return false;
    }
  }
  if (ids != nullptr) {
    ids->clear();
    ids->reserve(parts.size());
    for (std::size_t i = 0; i < parts.size(); ++i)
      if (wanted[i].starts_with('{')) ids->emplace_back(parts[i]);
  }
  return true;
}

}  // namespace

const std::vector<route_info>& routes() {
  // clang-format off
  // Why one row a line: the table is read across (a route's method, path, body, callers,
  // the event a success implies and how it is named, the model work it starts, its rules).
  static const std::vector<route_info> table = {
    {route_id::create_session, "POST", "/v1/sessions", body::json_if_any, access::manage_key,
     0, "", "", 0, {"SES-1", "AUTH-4"}},
    {route_id::register_client, "POST", "/v1/sessions/{sid}/clients", body::json,
     access::session_or_manage_key, 201, "client_registered", "client_id", 0,
     {"REG-1", "REG-5", "REG-8"}},
    {route_id::delete_client, "DELETE", "/v1/sessions/{sid}/clients/{cid}", body::none,
     access::session_or_manage_key, 204, "client_unregistered", "client_id", 0,
     {"LIFE-1", "LIFE-4"}},
    {route_id::ping, "POST", "/v1/sessions/{sid}/clients/{cid}/ping", body::none,
     access::session_or_manage_key, 0, "", "", 0, {"LIFE-2", "LIFE-3"}},
    {route_id::put_tools, "PUT", "/v1/sessions/{sid}/clients/{cid}/tools", body::json,
     access::session_or_manage_key, 0, "", "", 0, {"TOOLS-1", "TOOLS-2"}},
    {route_id::ack, "POST", "/v1/sessions/{sid}/clients/{cid}/calls/{call_id}/ack", body::none,
     access::session_or_manage_key, 0, "", "", 0, {"CALL-3", "CALL-6", "CALL-7"}},
    {route_id::post_result, "POST", "/v1/sessions/{sid}/clients/{cid}/calls/{call_id}/result",
     body::json, access::session_or_manage_key, 200, "client_tool_completed", "call_id", 0,
     {"CALL-4", "CALL-6", "CALL-7"}},
    {route_id::post_message, "POST", "/v1/sessions/{sid}/messages", body::json,
     access::session_or_manage_key, 0, "", "", 202, {"SES-2"}},
    {route_id::open_events, "GET", "/v1/sessions/{sid}/events", body::none,
     access::session_or_manage_key, 0, "", "", 0, {"SES-3", "AUTH-5"}},
    {route_id::create_task, "POST", "/api/tasks", body::json, access::any_api_key,
     0, "", "", 201, {"TASK-1"}},
    {route_id::get_task, "GET", "/api/tasks/{uuid}", body::none, access::any_api_key,
     0, "", "", 0, {"TASK-2", "TASK-3", "TASK-6", "TASK-7"}},
    {route_id::post_tool_results, "POST", "/api/tasks/{uuid}/tool-results", body::json,
     access::any_api_key, 0, "", "", 200, {"TASK-4", "TASK-5"}},
    {route_id::get_clock, "GET", "/v1/_test/clock", body::none, access::any_api_key,
     0, "", "", 0, {"CLOCK-1"}},
    {route_id::advance_clock, "POST", "/v1/_test/clock/advance", body::own, access::any_api_key,
     0, "", "", 0, {"CLOCK-1", "CLOCK-2"}},
  };
  // clang-format on
  return table;
}

const route_info& route_of(route_id id) {
  return routes()[static_cast<std::size_t>(id)];
}

namespace {

//! Each route's pattern split into segments, in the table's order. Why once: every request
//! is matched against the table, and splitting the patterns again at each request was
//! about a twentieth of the server's work on a ping (docs/benchmarks.md).
const std::vector<path_segments>& pattern_segments() {
  static const auto segments = [] {
    std::vector<path_segments> all;
    for (const auto& route : routes())
      all.push_back(segments_of(route.pattern));
    return all;
  }();
  return segments;
}

}  // namespace

std::optional<route_match> match_route(std::string_view method, std::string_view path) {
  const auto parts = segments_of(path);
  const auto& table = routes();
  const auto& wanted = pattern_segments();
  route_match found;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].method == method && fits(wanted[i], parts, &found.ids)) {
      found.route = &table[i];
      return found;
    }
  }
  return std::nullopt;
}

std::vector<std::string_view> methods_at(std::string_view path) {
  const auto parts = segments_of(path);
  const auto& table = routes();
  const auto& wanted = pattern_segments();
  std::vector<std::string_view> methods;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (fits(wanted[i], parts, nullptr)) methods.push_back(table[i].method);
  }
  return methods;
}

std::string route_path(route_id id, std::initializer_list<std::string_view> ids) {
  return route_path(id, std::vector<std::string_view>(ids));
}

std::string route_shown(route_id id) {
  const auto& route = route_of(id);
  return std::string(route.method) + " " + std::string(route.pattern);
}

std::string route_path(route_id id, const std::vector<std::string_view>& ids) {
  const std::string_view pattern = route_of(id).pattern;
  std::string path;
  auto next = ids.begin();
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const std::size_t close = pattern[i] == '{' ? pattern.find('}', i) : std::string_view::npos;
    if (close != std::string_view::npos && next != ids.end()) {
      path += *next++;
      i = close;
    } else {
      path += pattern[i];
    }
  }
  return path;
}

std::string implied_event_id(const route_match& match, const json& answer) {
  const std::string key(match.route->implied_event_key);
  if (answer.is_object()) {
    const auto named = answer.find(key);
    if (named != answer.end() && named->is_string()) return named->get<std::string>();
  }
  return match.ids.empty() ? "" : match.ids.back();
}

bool under_a_session(std::string_view path) {
  const auto parts = segments_of(path);
  return parts.size() >= 3 && parts[0] == "v1" && parts[1] == "sessions";
}

}  // namespace toolwire::protocol
