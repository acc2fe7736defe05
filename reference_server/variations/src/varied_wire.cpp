// The wire-level variations, one small function each, applied by varied_wire in a fixed
// order: texts, then ids, then extra fields (so an added field is never taken for an id).
#include "varied_wire.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>

#include "toolwire/protocol/events.hpp"

namespace toolwire::reference_server::variations::detail {

namespace {

namespace http = boost::beast::http;

//! Keys whose values are a client's or the model's own data (arguments, schemas): passed
//! through untouched, because CALL-1, TASK-6 and REG-1 want them as they were given.
bool payload_key(std::string_view key) {
  return key == "arguments" || key == "input" || key == "parameters" || key == "input_schema";
}

// -- uuid_ids ---------------------------------------------------------------------------

//! The reference's id forms (docs/reference-server.md): `ses_7`, `cli_2`, `call_4`,
//! `turn_1`, `tc_3`; task uuids are recognised by their key.
bool reference_id(std::string_view key, const std::string& value) {
  if (key == "uuid") return true;
  if (key != "id" && key != "client_id" && key != "call_id" && key != "turn_id") return false;
  for (std::string_view prefix : {"ses_", "cli_", "call_", "turn_", "tc_"}) {
    if (value.size() > prefix.size() && value.starts_with(prefix) &&
        std::all_of(value.begin() + static_cast<std::ptrdiff_t>(prefix.size()), value.end(),
                    [](char c) { return c >= '0' && c <= '9'; })) {
      return true;
    }
  }
  return false;
}

std::uint64_t fnv1a(std::string_view text, std::uint64_t seed) {
  std::uint64_t hash = 14695981039346656037ull ^ seed;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

template <class F>
void walk_ids(json& value, const F& rewrite) {
  if (value.is_array()) {
    for (auto& item : value)
      walk_ids(item, rewrite);
    return;
  }
  if (!value.is_object()) return;
  for (auto& [key, child] : value.items()) {
    if (payload_key(key)) continue;
    if (child.is_string()) {
      rewrite(key, child);
    } else {
      walk_ids(child, rewrite);
    }
  }
}

// -- extra_fields -----------------------------------------------------------------------

//! C-6: a field SPEC does not list in every object at every depth, array items included;
//! task output's tool calls also carry an `id`, as many implementations add.
void add_extra_fields(json& value) {
  if (value.is_array()) {
    for (auto& item : value)
      add_extra_fields(item);
    return;
  }
  if (!value.is_object()) return;
  for (auto& [key, child] : value.items()) {
    if (!payload_key(key)) add_extra_fields(child);
  }
  if (value.contains("tool_call") && value["tool_call"].is_object() &&
      !value["tool_call"].contains("id")) {
    value["tool_call"]["id"] =
        "call-" + std::to_string(fnv1a(value["tool_call"].dump(), 7) % 1000000);
  }
  value["x_extra"] = {{"note", "a field SPEC does not list"}, {"depth_marker", true}};
}

// -- other_texts ------------------------------------------------------------------------

//! C-2 names the error types, never the messages; a failed task's reason is named only
//! by TASK-7.
void other_texts_in_body(json& body) {
  if (!body.is_object() || !body.contains("error") || !body["error"].is_object()) return;
  json& error = body["error"];
  if (error.contains("message")) error["message"] = "Sorry: the server could not do that.";
  if (body.contains("status") && error.contains("reason") &&
      error["reason"] != "tool_results_timeout") {
    error["reason"] = "upstream_failure";
  }
}

// -- departure_reordered ----------------------------------------------------------------

bool departure_failure(const session_event& event, const std::string& client_id) {
  if (protocol::parse_event_type(event.type) != protocol::event_type::client_tool_failed ||
      event.data.value("client_id", "") != client_id) {
    return false;
  }
  const std::string reason = event.data.value("reason", "");
  return reason == "client_left" || reason == "client_expired";
}

//! LIFE-5 [P]: a departing client's client_unregistered and the client_tool_failed of its
//! open calls may come in either order. The reference sends client_unregistered first;
//! this sends it after them. Seqs stay where they are (SES-3): only the contents move.
void failures_before_departure(std::vector<session_event>& events) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (protocol::parse_event_type(events[i].type) != protocol::event_type::client_unregistered) {
      continue;
    }
    const std::string client_id = events[i].data.value("client_id", "");
    std::size_t end = i + 1;
    while (end < events.size() && departure_failure(events[end], client_id))
      ++end;
    if (end == i + 1) continue;
    std::vector<std::uint64_t> seqs;
    for (std::size_t k = i; k < end; ++k)
      seqs.push_back(events[k].seq);
    std::rotate(events.begin() + static_cast<std::ptrdiff_t>(i),
                events.begin() + static_cast<std::ptrdiff_t>(i + 1),
                events.begin() + static_cast<std::ptrdiff_t>(end));
    for (std::size_t k = i; k < end; ++k)
      events[k].seq = seqs[k - i];
    i = end - 1;
  }
}

// -- pending_calls_reversed -------------------------------------------------------------

//! TASK-3 lists a task's pending calls without ordering them; the reference lists them in
//! the model's order, this in the reverse.
void reverse_pending_calls(json& body) {
  if (!body.is_object() || !body.contains("pending_tool_calls")) return;
  json& pending = body["pending_tool_calls"];
  if (pending.is_array()) std::reverse(pending.begin(), pending.end());
}

std::string dump(const json& value, int indent = -1) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace

std::string id_map::variant_of(const std::string& reference_id) {
  const std::uint64_t a = fnv1a(reference_id, 0x9e3779b97f4a7c15ull);
  const std::uint64_t b = fnv1a(reference_id, 0xc2b2ae3d27d4eb4full);
  std::array<char, 40> text{};
  std::snprintf(text.data(), text.size(), "%08x-%04x-4%03x-a%03x-%012llx",
                static_cast<unsigned>(a >> 32), static_cast<unsigned>((a >> 16) & 0xffff),
                static_cast<unsigned>(a & 0xfff), static_cast<unsigned>((b >> 48) & 0xfff),
                static_cast<unsigned long long>(b & 0xffffffffffffull));
  std::string variant(text.data());
  reference_of_.emplace(variant, reference_id);
  return variant;
}

void id_map::to_variant(json& value) {
  walk_ids(value, [this](const std::string& key, json& text) {
    const std::string id = text.get<std::string>();
    if (reference_id(key, id)) text = variant_of(id);
  });
}

void id_map::to_reference(protocol::api_request& request) const {
  std::string path;
  std::size_t from = 0;
  while (from <= request.path.size()) {
    const std::size_t slash = std::min(request.path.find('/', from), request.path.size());
    const std::string segment = request.path.substr(from, slash - from);
    const auto known = reference_of_.find(segment);
    path += known == reference_of_.end() ? segment : known->second;
    if (slash < request.path.size()) path += '/';
    from = slash + 1;
  }
  request.path = std::move(path);
  json body = json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  bool changed = false;
  walk_ids(body, [&](const std::string& key, json& text) {
    if (key != "id") return;
    const auto known = reference_of_.find(text.get<std::string>());
    if (known == reference_of_.end()) return;
    text = known->second;
    changed = true;
  });
  // Why only when changed: the body's own bytes reach the router otherwise.
  if (changed) request.body = dump(body);
}

void varied_wire::inbound(protocol::api_request& request) {
  if (has(variation::uuid_ids)) ids_.to_reference(request);
}

void varied_wire::outbound(const protocol::api_request& /*request*/,
                           protocol::api_response& response) {
  if (response.body.is_null()) return;
  if (has(variation::other_texts)) other_texts_in_body(response.body);
  if (has(variation::pending_calls_reversed)) reverse_pending_calls(response.body);
  if (has(variation::uuid_ids)) ids_.to_variant(response.body);
  if (has(variation::extra_fields)) add_extra_fields(response.body);
}

void varied_wire::message(web::http_response& message) {
  const bool json_body =
      !message.body().empty() && message[http::field::content_type] == "application/json";
  if (json_body && has(variation::pretty_json)) {
    const json body = json::parse(message.body(), nullptr, false);
    if (!body.is_discarded()) message.body() = dump(body, 2) + "\n";
    message.prepare_payload();
  }
  if (json_body && has(variation::json_charset)) {
    message.set(http::field::content_type, "application/json; charset=utf-8");
  }
  if (has(variation::extra_headers)) {
    message.set("X-Request-Id", "req-" + std::to_string(++responses_));
    message.set("X-Powered-By", "toolwire-variation");
    message.set(http::field::cache_control, "no-store");
    message.set(http::field::vary, "Authorization");
  }
  if (has(variation::connection_close)) message.keep_alive(false);
  if (has(variation::chunked_bodies) && !message.body().empty()) message.chunked(true);
}

event_window varied_wire::events(const core& log, const std::string& session_id,
                                 std::uint64_t after) {
  event_window window = log.events_after(session_id, after);
  if (has(variation::departure_reordered) && !window.events.empty()) {
    // A departure that began at or before `after` is reordered as a whole: read from the
    // oldest retained event, so a seq shows the same event on every stream and replay.
    auto all = log.events_after(session_id, 0).events;
    failures_before_departure(all);
    std::erase_if(all, [after](const session_event& e) { return e.seq <= after; });
    window.events = std::move(all);
  }
  for (auto& event : window.events) {
    const auto type = protocol::parse_event_type(event.type);
    if (has(variation::other_texts) && type == protocol::event_type::turn_failed) {
      event.data["reason"] = "the model step did not succeed";  // SES-4 names no reason
    }
    if (has(variation::tool_lists_reversed) && type == protocol::event_type::client_tools_updated &&
        event.data.contains("tools") && event.data["tools"].is_array()) {
      auto& tools = event.data["tools"];
      std::reverse(tools.begin(), tools.end());
    }
    if (has(variation::uuid_ids)) ids_.to_variant(event.data);
    if (has(variation::extra_fields)) add_extra_fields(event.data);
  }
  return window;
}

std::string varied_wire::frame(const session_event& event) {
  if (!has(variation::sse_compact_frames)) return wire_policy::frame(event);
  // Fields in another order, no space after the colon, CRLF line ends: all one to SSE.
  return "event:" + event.type + "\r\nid:" + std::to_string(event.seq) +
         "\r\ndata:" + dump(event.data) + "\r\n\r\n";
}

std::string varied_wire::preamble() {
  if (!has(variation::sse_preamble)) return {};
  return ": session events follow\nretry: 3000\n\n";
}

std::chrono::milliseconds varied_wire::delay(web::slowness where) {
  const variation slow = [where] {
    switch (where) {
      case web::slowness::response:
        return variation::slow_responses;
      case web::slowness::events:
        return variation::slow_events;
      case web::slowness::timer:
        return variation::late_timers;
      case web::slowness::model_call:
        break;
    }
    return variation::slow_model_calls;
  }();
  if (!has(slow)) return std::chrono::milliseconds(0);
  return slow_delay(slow, delays_asked_[where]++);
}

}  // namespace toolwire::reference_server::variations::detail
