// Clients of a session: registration and name assignment (REG-5, REG-6), pings and
// TTLs (LIFE-1..3, LIFE-6), tool-list replacement (TOOLS-1, TOOLS-2), departures (LIFE-4,
// LIFE-5).
#include <algorithm>

#include "core_state.hpp"
#include "toolwire/protocol/codec.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::reference::detail {

using protocol::outcome;

namespace {

protocol::validation_quirks quirks(const state& s) {
  protocol::validation_quirks q;
  q.description_limit_in_bytes = s.has(fault::description_limit_in_bytes);
  q.allow_any_tool_name = s.has(fault::invalid_tool_name_accepted);
  return q;
}

bool name_taken(const session_record& session, const std::string& name) {
  return std::any_of(session.clients.begin(), session.clients.end(),
                     [&](const auto& entry) { return entry.second.name == name; });
}

//! Whether `name` is taken in `session`; under fault name_counter_global, in any session.
bool name_taken(const state& s, const session_record& session, const std::string& name) {
  if (!s.has(fault::name_counter_global)) return name_taken(session, name);
  return std::any_of(s.sessions.begin(), s.sessions.end(),
                     [&](const auto& entry) { return name_taken(entry.second, name); });
}

//! REG-5: the requested name, or `<name>_<n>` with the smallest n >= 2 that is free.
std::string assign_name(const state& s, const session_record& session,
                        const std::string& requested) {
  if (!name_taken(s, session, requested) || s.has(fault::no_collision_counter)) return requested;
  for (std::uint64_t n = 2;; ++n) {
    std::string candidate = requested + "_" + std::to_string(n);
    if (!name_taken(s, session, candidate)) return candidate;
  }
}

//! LIFE-3: a client is gone at `t >= expires_at`, so its timer is due at `expires_at`.
time_ms expiry_due(const state& s, time_ms expires_at) {
  return s.has(fault::ttl_boundary_inclusive) ? expires_at + 1 : expires_at;
}

void arm_expiry(state& s, const session_record& session, client_record& client, time_ms now) {
  client.expires_at = now + client.lifetime.seconds * 1000;
  schedule(s, client.serial, expiry_due(s, *client.expires_at),
           {timer_kind::client_expiry, session.id, client.id});
}

json expires_at_json(const client_record& client) {
  return client.expires_at ? json(*client.expires_at) : json(nullptr);
}

json tool_names(const std::vector<tool_spec>& tools) {
  json names = json::array();
  for (const auto& tool : tools)
    names.push_back(tool.name);
  return names;
}

//! Fault put_merges_tools: the new list updates and adds, but never withdraws.
std::vector<tool_spec> merged(std::vector<tool_spec> old_tools,
                              const std::vector<tool_spec>& new_tools) {
  for (const auto& tool : new_tools) {
    auto same = std::find_if(old_tools.begin(), old_tools.end(),
                             [&](const tool_spec& t) { return t.name == tool.name; });
    if (same != old_tools.end()) {
      *same = tool;
    } else {
      old_tools.push_back(tool);
    }
  }
  return old_tools;
}

bool offers(const std::vector<tool_spec>& tools, const std::string& name);

//! `text` cut after 4096 code points (fault long_description_truncated).
std::string truncated(const std::string& text) {
  std::size_t points = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool starts_point = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (starts_point && points++ == protocol::max_description_code_points) return text.substr(0, i);
  }
  return text;
}

//! Faults of REG-1 and REG-4: a tool list as validation sees it, with what a fault lets
//! through made valid (stringified names, defaulted fields, replaced schemas).
json relaxed_tools(const state& s, json tools) {
  if (s.has(fault::non_object_tools_skipped)) {
    json kept = json::array();
    if (tools.is_array()) {
      for (const auto& tool : tools)
        if (tool.is_object()) kept.push_back(tool);
    }
    tools = std::move(kept);
  }
  if (!tools.is_array()) return tools;
  for (auto& tool : tools) {
    if (!tool.is_object()) continue;
    if (s.has(fault::non_string_names_stringified) && tool.contains("name") &&
        tool["name"].is_number()) {
      tool["name"] = protocol::safe_dump(tool["name"]);
    }
    if (s.has(fault::tool_fields_defaulted)) {
      if (!tool.contains("description")) tool["description"] = "";
      if (!tool.contains("parameters")) tool["parameters"] = {{"type", "object"}};
    }
    if (s.has(fault::long_description_truncated) && tool.contains("description") &&
        tool["description"].is_string()) {
      tool["description"] = truncated(tool["description"].get<std::string>());
    }
    if (s.has(fault::parameters_not_checked) && tool.contains("parameters") &&
        (!tool["parameters"].is_object() ||
         tool["parameters"].value("type", json("object")) != json("object"))) {
      tool["parameters"] = {{"type", "object"}};
    }
  }
  return tools;
}

//! The seconds of a TTL lifetime in `body`, or null.
json ttl_seconds(const json& body) {
  if (!body.is_object() || !body.contains("lifetime") || !body["lifetime"].is_object() ||
      !body["lifetime"].contains("data") || !body["lifetime"]["data"].is_object()) {
    return nullptr;
  }
  return body["lifetime"]["data"].value("seconds", json(nullptr));
}

//! Faults of REG-1, REG-4 and REG-8: the registration body as validation sees it, with
//! each unchecked value replaced by one that passes (restored after validation).
json relaxed_registration(const state& s, json body) {
  if (!body.is_object()) return body;
  if (s.has(fault::client_name_defaulted) && !body.contains("name")) body["name"] = "client";
  auto name = body.find("name");
  if (s.has(fault::non_string_names_stringified) && name != body.end() && name->is_number()) {
    *name = protocol::safe_dump(*name);
  }
  if (s.has(fault::client_name_unchecked) && name != body.end() && name->is_string() &&
      !protocol::is_valid_name(name->get<std::string>())) {
    *name = "unchecked";
  }
  if (s.has(fault::lifetime_defaults_to_never)) {
    const json type = body.contains("lifetime") && body["lifetime"].is_object()
                          ? body["lifetime"].value("type", json(nullptr))
                          : json(nullptr);
    if (type != "never" && type != "ttl") body["lifetime"] = {{"type", "never"}};
  }
  if (body.contains("tools")) body["tools"] = relaxed_tools(s, body["tools"]);
  const json seconds = ttl_seconds(body);
  if (seconds.is_number()) {
    json& written = body["lifetime"]["data"]["seconds"];
    if (s.has(fault::ttl_fraction_truncated) && seconds.is_number_float()) {
      written = static_cast<std::int64_t>(seconds.get<double>());
    }
    if (s.has(fault::ttl_upper_bound_unchecked) && written.is_number_integer() &&
        written.get<std::int64_t>() > protocol::max_ttl_seconds) {
      written = protocol::max_ttl_seconds;
    }
    if (s.has(fault::ttl_lower_bound_unchecked) && written.is_number_integer() &&
        written.get<std::int64_t>() < 1) {
      written = 1;
    }
  }
  return body;
}

//! The name and TTL a fault let through, in place of the stand-ins validation saw.
void restore_relaxed(const state& s, const json& body, protocol::register_request& request) {
  if (!body.is_object()) return;
  if (s.has(fault::client_name_unchecked) && body.value("name", json()).is_string()) {
    request.name = body["name"].get<std::string>();
  }
  const json seconds = ttl_seconds(body);
  if (request.lifetime.type == protocol::lifetime::kind::ttl && seconds.is_number_integer() &&
      (s.has(fault::ttl_upper_bound_unchecked) || s.has(fault::ttl_lower_bound_unchecked))) {
    const auto written = seconds.get<std::int64_t>();
    const bool over = written > protocol::max_ttl_seconds;
    if ((over && s.has(fault::ttl_upper_bound_unchecked)) ||
        (written < 1 && s.has(fault::ttl_lower_bound_unchecked))) {
      request.lifetime.seconds = written;
    }
  }
}

//! Faults of REG-1..3 that reject what is valid: a 400 for the first over-strict check a
//! validated list (and client name) fails; `self_id` is the client itself, if known.
std::optional<protocol::api_error> over_strict_by_fault(const state& s,
                                                        const session_record& session,
                                                        const std::string& self_id,
                                                        const std::vector<tool_spec>& tools,
                                                        const std::string* client_name) {
  // Fault name_length_off_by_one: an exclusive range check, 1 < length < 64.
  auto at_a_limit = [&](const std::string& name) {
    return s.has(fault::name_length_off_by_one) &&
           (name.size() == 1 || name.size() == protocol::max_name_length);
  };
  auto has_dash = [&](const std::string& name) {
    return s.has(fault::name_charset_without_dash) && name.find('-') != std::string::npos;
  };
  if (client_name && (at_a_limit(*client_name) || has_dash(*client_name))) {
    return protocol::invalid_request("name: must be 2-63 characters of [A-Za-z0-9_]");
  }
  for (const auto& tool : tools) {
    if (at_a_limit(tool.name) || has_dash(tool.name)) {
      return protocol::invalid_request("tools: names must be 2-63 characters of [A-Za-z0-9_]");
    }
    if (s.has(fault::schema_keywords_limited)) {
      for (const auto& [key, value] : tool.parameters.items()) {
        if (key != "type" && key != "properties" && key != "required") {
          return protocol::invalid_request("tools: parameters." + key + " is not supported");
        }
      }
    }
    if (s.has(fault::empty_description_rejected) && tool.description.empty()) {
      return protocol::invalid_request("tools: description missing");
    }
    if (s.has(fault::description_limit_off_by_one) &&
        protocol::count_code_points(tool.description).value_or(0) ==
            protocol::max_description_code_points) {
      return protocol::invalid_request("tools: description must be under 4096 characters");
    }
    if (s.has(fault::parameters_type_required) && !tool.parameters.contains("type")) {
      return protocol::invalid_request("tools: parameters.type missing");
    }
    if (s.has(fault::tool_names_unique_per_session)) {
      for (const auto& [serial, other] : session.clients) {
        if (other.id != self_id && offers(other.tools, tool.name)) {
          return protocol::invalid_request("tools: '" + tool.name + "' is taken in this session");
        }
      }
    }
  }
  return std::nullopt;
}

//! Fault put_tools_unvalidated (TOOLS-2): the list as sent, when it is a list of named
//! objects; nothing else is checked.
std::optional<std::vector<tool_spec>> unvalidated_tools(const json& body) {
  if (!body.is_object() || !body.contains("tools") || !body["tools"].is_array()) {
    return std::nullopt;
  }
  std::vector<tool_spec> tools;
  for (const auto& item : body["tools"]) {
    if (!item.is_object() || !item.contains("name") || !item["name"].is_string()) {
      return std::nullopt;
    }
    const json description = item.value("description", json(""));
    tools.push_back({item["name"].get<std::string>(),
                     description.is_string() ? description.get<std::string>()
                                             : protocol::safe_dump(description),
                     item.value("parameters", json::object())});
  }
  return tools;
}

bool offers(const std::vector<tool_spec>& tools, const std::string& name) {
  return std::any_of(tools.begin(), tools.end(),
                     [&](const tool_spec& t) { return t.name == name; });
}

//! Faults withdrawn_tool_calls_failed (TOOLS-4) and put_applied_in_two_phases (TOOLS-6):
//! fails the client's open calls of tools that `kept` no longer offers.
void fail_withdrawn_calls(state& s, session_record& session, client_record& client,
                          const std::vector<tool_spec>& kept, time_ms now) {
  std::vector<std::string> withdrawn;
  for (const auto& [serial, call_id] : client.open_calls) {
    auto call = session.calls.find(call_id);
    // Only where the call table lets tool_unavailable apply (an un-acked call): an acked
    // one stays open, since a fault makes no move the table refuses.
    if (call != session.calls.end() && !offers(kept, call->second.tool) &&
        allows(call->second.status, call_event::tool_unavailable)) {
      withdrawn.push_back(call_id);
    }
  }
  for (const auto& call_id : withdrawn)
    fail_call(s, session, session.calls.at(call_id), "tool_unavailable", now);
}

}  // namespace

outcome<session_record*> find_session(state& s, const std::string& sid) {
  auto found = s.sessions.find(sid);
  if (found == s.sessions.end()) return protocol::not_found("no session '" + sid + "'");
  return &found->second;
}

outcome<client_record*> find_client(session_record& session, const std::string& cid) {
  auto serial = session.client_serials.find(cid);
  if (serial == session.client_serials.end()) {
    return protocol::not_found("no live client '" + cid + "' in session '" + session.id + "'");
  }
  return &session.clients.at(serial->second);
}

outcome<json> register_client(state& s, session_record& session, const json& body, time_ms now) {
  if (auto known = reject_unknown_fields_by_fault(s, body, {"name", "lifetime", "tools"}); !known) {
    return known.error();
  }
  auto request = protocol::parse_register_request(
      relaxed_registration(s, collapse_duplicate_tools_by_fault(s, body, "tools")), quirks(s));
  if (!request) return request.error();
  restore_relaxed(s, body, *request);
  if (s.has(fault::tools_required_at_registration) && !body.contains("tools")) {
    return protocol::invalid_request("tools: missing");
  }
  if (auto error = over_strict_by_fault(s, session, "", request->tools, &request->name)) {
    return *error;
  }

  client_record client;
  client.serial = s.serial();
  client.id = "cli_" + std::to_string(s.next_client++);
  client.requested_name = request->name;
  client.name = assign_name(s, session, request->name);
  client.lifetime = request->lifetime;
  // Fault never_client_given_default_ttl: `never` is read as a 30 s TTL (LIFE-1).
  if (client.lifetime.type == protocol::lifetime::kind::never &&
      s.has(fault::never_client_given_default_ttl)) {
    client.lifetime = {protocol::lifetime::kind::ttl, 30};
  }
  client.tools = std::move(request->tools);
  if (client.lifetime.type == protocol::lifetime::kind::ttl) arm_expiry(s, session, client, now);

  // Fault registered_event_wrong_name: the event reports the requested name (REG-9).
  const std::string event_name =
      s.has(fault::registered_event_wrong_name) ? client.requested_name : client.name;
  emit(s, session, "client_registered",
       {{"client_id", client.id}, {"name", event_name}, {"requested_name", client.requested_name}},
       now);

  json response = {{"client_id", client.id},
                   {"name", client.name},
                   {"requested_name", client.requested_name},
                   {"lifetime", protocol::to_json(request->lifetime)},
                   {"tools", protocol::to_json(client.tools)},
                   {"expires_at_ms", expires_at_json(client)}};
  session.client_serials.emplace(client.id, client.serial);
  session.clients.emplace(client.serial, std::move(client));
  return response;
}

outcome<json> ping(state& s, session_record& session, const std::string& cid, time_ms now) {
  auto client = find_client(session, cid);
  if (!client) return client.error();
  client_record& c = **client;
  // Fault ping_does_not_extend: the ping is answered but the TTL keeps running (LIFE-2).
  if (c.lifetime.type == protocol::lifetime::kind::ttl && !s.has(fault::ping_does_not_extend)) {
    arm_expiry(s, session, c, now);
  }
  return json{{"expires_at_ms", expires_at_json(c)}};
}

outcome<json> put_tools(state& s, session_record& session, const std::string& cid, const json& body,
                        time_ms now) {
  auto client = find_client(session, cid);
  if (!client) return client.error();
  client_record& c = **client;
  if (auto known = reject_unknown_fields_by_fault(s, body, {"tools"}); !known) return known.error();
  json relaxed = collapse_duplicate_tools_by_fault(s, body, "tools");
  if (relaxed.is_object() && relaxed.contains("tools")) {
    relaxed["tools"] = relaxed_tools(s, relaxed["tools"]);
  }
  auto request = protocol::parse_put_tools_request(relaxed, quirks(s));
  if (!request && s.has(fault::put_tools_unvalidated)) {
    if (auto tools = unvalidated_tools(body))
      request = protocol::put_tools_request{std::move(*tools)};
  }
  if (request) {
    if (auto error = over_strict_by_fault(s, session, c.id, request->tools, nullptr)) {
      request = *error;
    }
  }
  if (!request) {
    // Fault invalid_put_clears_tools: the old list is dropped before validation fails (C-3).
    if (s.has(fault::invalid_put_clears_tools)) c.tools.clear();
    return request.error();
  }
  // Fault put_applied_in_two_phases: withdrawals (and their calls' failures, which may
  // start the next model step) come before the additions (TOOLS-6).
  if (s.has(fault::put_applied_in_two_phases)) {
    std::erase_if(c.tools, [&](const tool_spec& t) { return !offers(request->tools, t.name); });
    fail_withdrawn_calls(s, session, c, c.tools, now);
  }
  std::vector<tool_spec> next =
      s.has(fault::put_merges_tools) ? merged(c.tools, request->tools) : std::move(request->tools);
  for (const auto& old_tool : c.tools) {
    const bool kept = std::any_of(next.begin(), next.end(),
                                  [&](const tool_spec& t) { return t.name == old_tool.name; });
    if (!kept && s.has(fault::withdrawn_tool_offered)) c.withdrawn_tools.push_back(old_tool);
  }
  c.tools = std::move(next);
  emit(s, session, "client_tools_updated", {{"client_id", c.id}, {"tools", tool_names(c.tools)}},
       now);
  if (s.has(fault::withdrawn_tool_calls_failed)) fail_withdrawn_calls(s, session, c, c.tools, now);
  return json{{"client_id", c.id}, {"tools", protocol::to_json(c.tools)}};
}

void end_client(state& s, session_record& session, std::uint64_t serial, departure why,
                time_ms now) {
  auto node = session.clients.extract(serial);
  client_record client = std::move(node.mapped());
  move(client.status, why == departure::left ? client_event::deleted : client_event::ttl_lapsed);
  session.client_serials.erase(client.id);
  cancel(s, client.serial);
  // Fault left_reason_named_deleted: a DELETE is reported as "deleted" (SES-4).
  const char* left = s.has(fault::left_reason_named_deleted) ? "deleted" : "left";
  const char* reason = why == departure::left ? left : "expired";
  emit(s, session, "client_unregistered",
       {{"client_id", client.id}, {"name", client.name}, {"reason", reason}}, now);
  // LIFE-5: the client's open calls fail now; the turn goes on without it.
  if (!s.has(fault::vanished_calls_left_open)) {
    const std::string call_reason = why == departure::left ? "client_left" : "client_expired";
    for (const auto& [call_serial, call_id] : client.open_calls) {
      auto call = session.calls.find(call_id);
      if (call != session.calls.end()) fail_call(s, session, call->second, call_reason, now);
    }
  }
  if (s.has(fault::departed_client_tools_offered)) {
    client.open_calls.clear();
    session.departed.emplace(client.serial, std::move(client));
  }
}

void touch_ttl_by_fault(state& s, const session_record& session, client_record& client,
                        time_ms now) {
  if (s.has(fault::ack_extends_ttl) && client.lifetime.type == protocol::lifetime::kind::ttl) {
    arm_expiry(s, session, client, now);
  }
}

}  // namespace toolwire::reference::detail
