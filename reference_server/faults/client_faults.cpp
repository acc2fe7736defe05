// Faults of the client rules (registration, names, TTLs, tool lists, departures): the
// faulty answers of policy.hpp's client decision points. Each fault is named with the rule
// it breaks; without its fault, each override gives the clean answer.
#include <algorithm>
#include <string_view>
#include <utility>

#include "faulty_policy.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::reference_server::detail {

using protocol::outcome;

namespace {

bool offers(const std::vector<tool_spec>& tools, const std::string& name) {
  return std::any_of(tools.begin(), tools.end(),
                     [&](const tool_spec& t) { return t.name == name; });
}

//! `text` cut after 4096 code points (fault long_description_truncated).
std::string truncated(const std::string& text) {
  std::size_t points = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool starts_point = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (starts_point && points++ == protocol::max_description_code_points) return text.substr(0, i);
  }
  return text;
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

//! The seconds of a TTL lifetime in `body`, or null.
json ttl_seconds(const json& body) {
  if (!body.is_object() || !body.contains("lifetime") || !body["lifetime"].is_object() ||
      !body["lifetime"].contains("data") || !body["lifetime"]["data"].is_object()) {
    return nullptr;
  }
  return body["lifetime"]["data"].value("seconds", json(nullptr));
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
    fail_call(s, session, session.calls.at(call_id), failure_reason::tool_unavailable, now);
}

}  // namespace

// -- relaxing what validation sees (REG-1..4, REG-8, TOOLS-2) --------------------------------

json collapsed_duplicate_tools(json body, const std::string& key) {
  if (!body.is_object()) return body;
  auto tools = body.find(key);
  if (tools == body.end() || !tools->is_array()) return body;
  json kept = json::array();
  for (const auto& tool : *tools) {
    const bool named = tool.is_object() && tool.contains("name") && tool["name"].is_string();
    auto same = std::find_if(kept.begin(), kept.end(), [&](const json& k) {
      return named && k.is_object() && k.value("name", json()) == tool["name"];
    });
    if (same != kept.end()) {
      *same = tool;
    } else {
      kept.push_back(tool);
    }
  }
  *tools = std::move(kept);
  return body;
}

json tool_name_stand_ins::replace(json body, const std::string& key) {
  if (!body.is_object() || !body.contains(key) || !body[key].is_array()) return body;
  for (auto& tool : body[key]) {
    if (!tool.is_object() || !tool.contains("name") || !tool["name"].is_string()) continue;
    const std::string name = tool["name"].get<std::string>();
    if (protocol::is_valid_name(name)) continue;
    // Why one stand-in per distinct name: a name declared twice must still be refused (REG-3).
    auto known = std::find_if(stand_in_for_.begin(), stand_in_for_.end(),
                              [&](const auto& entry) { return entry.second == name; });
    if (known == stand_in_for_.end()) {
      stand_in_for_.emplace_back("stand_in_" + std::to_string(stand_in_for_.size()), name);
      known = std::prev(stand_in_for_.end());
    }
    tool["name"] = known->first;
  }
  return body;
}

void tool_name_stand_ins::restore(std::vector<tool_spec>& tools) const {
  for (auto& tool : tools) {
    for (const auto& [stand_in, name] : stand_in_for_)
      if (tool.name == stand_in) tool.name = name;
  }
}

namespace {

//! `text` in single quotes, as refusals quote names. Why appends, not `"'" + ... + "'"`:
//! g++ 12 at -O3 reports a false -Wrestrict inside the inlined operator+ (GCC PR 105329).
std::string single_quoted(std::string_view text) {
  std::string result;
  result.reserve(text.size() + 2);
  result.append("'").append(text).append("'");
  return result;
}

}  // namespace

protocol::api_error tool_name_stand_ins::restore(protocol::api_error error) const {
  for (const auto& [stand_in, name] : stand_in_for_) {
    const std::string as_quoted = single_quoted(stand_in);
    if (auto at = error.message.find(as_quoted); at != std::string::npos) {
      error.message.replace(at, as_quoted.size(), single_quoted(protocol::escape_bytes(name)));
    }
  }
  return error;
}

namespace {

//! Faults of REG-1 and REG-4: a tool list as validation sees it, with what a fault lets
//! through made valid (stringified names, defaulted fields, replaced schemas).
json relaxed_tools(const fault_set& faults, json tools) {
  const auto has = [&](fault f) { return faults.count(f) != 0; };
  if (has(fault::non_object_tools_skipped)) {
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
    if (has(fault::non_string_names_stringified) && tool.contains("name") &&
        tool["name"].is_number()) {
      tool["name"] = protocol::safe_dump(tool["name"]);
    }
    if (has(fault::tool_fields_defaulted)) {
      if (!tool.contains("description")) tool["description"] = "";
      if (!tool.contains("parameters")) tool["parameters"] = {{"type", "object"}};
    }
    if (has(fault::long_description_truncated) && tool.contains("description") &&
        tool["description"].is_string()) {
      tool["description"] = truncated(tool["description"].get<std::string>());
    }
    if (has(fault::parameters_not_checked) && tool.contains("parameters") &&
        (!tool["parameters"].is_object() ||
         tool["parameters"].value("type", json("object")) != json("object"))) {
      tool["parameters"] = {{"type", "object"}};
    }
  }
  return tools;
}

//! A body's tool list under `key`, relaxed by the faults above and by the duplicate and
//! name faults (REG-1, REG-3); `names` remembers the stand-ins.
json relaxed_tool_body(const fault_set& faults, json body, const std::string& key,
                       tool_name_stand_ins& names) {
  if (faults.count(fault::duplicate_tool_names_collapsed)) {
    body = collapsed_duplicate_tools(std::move(body), key);
  }
  if (body.is_object() && body.contains(key)) body[key] = relaxed_tools(faults, body[key]);
  if (faults.count(fault::invalid_tool_name_accepted)) body = names.replace(std::move(body), key);
  return body;
}

//! Faults of REG-1, REG-4 and REG-8: the registration body as validation sees it, with
//! each unchecked value replaced by one that passes (restored after validation).
json relaxed_registration(const fault_set& faults, json body, tool_name_stand_ins& names) {
  const auto has = [&](fault f) { return faults.count(f) != 0; };
  if (!body.is_object()) return body;
  if (has(fault::client_name_defaulted) && !body.contains("name")) body["name"] = "client";
  auto name = body.find("name");
  if (has(fault::non_string_names_stringified) && name != body.end() && name->is_number()) {
    *name = protocol::safe_dump(*name);
  }
  if (has(fault::client_name_unchecked) && name != body.end() && name->is_string() &&
      !protocol::is_valid_name(name->get<std::string>())) {
    *name = "unchecked";
  }
  if (has(fault::lifetime_defaults_to_never)) {
    const json type = body.contains("lifetime") && body["lifetime"].is_object()
                          ? body["lifetime"].value("type", json(nullptr))
                          : json(nullptr);
    if (type != "never" && type != "ttl") body["lifetime"] = {{"type", "never"}};
  }
  body = relaxed_tool_body(faults, std::move(body), "tools", names);
  const json seconds = ttl_seconds(body);
  if (seconds.is_number()) {
    json& written = body["lifetime"]["data"]["seconds"];
    if (has(fault::ttl_fraction_truncated) && seconds.is_number_float()) {
      written = static_cast<std::int64_t>(seconds.get<double>());
    }
    if (has(fault::ttl_upper_bound_unchecked) && written.is_number_integer() &&
        written.get<std::int64_t>() > protocol::max_ttl_seconds) {
      written = protocol::max_ttl_seconds;
    }
    if (has(fault::ttl_lower_bound_unchecked) && written.is_number_integer() &&
        written.get<std::int64_t>() < 1) {
      written = 1;
    }
  }
  return body;
}

//! The name and TTL a fault let through, in place of the stand-ins validation saw.
void restore_relaxed(const fault_set& faults, const json& body,
                     protocol::register_request& request) {
  const auto has = [&](fault f) { return faults.count(f) != 0; };
  if (!body.is_object()) return;
  if (has(fault::client_name_unchecked) && body.value("name", json()).is_string()) {
    request.name = body["name"].get<std::string>();
  }
  const json seconds = ttl_seconds(body);
  if (request.lifetime.type == protocol::lifetime::kind::ttl && seconds.is_number_integer() &&
      (has(fault::ttl_upper_bound_unchecked) || has(fault::ttl_lower_bound_unchecked))) {
    const auto written = seconds.get<std::int64_t>();
    const bool over = written > protocol::max_ttl_seconds;
    if ((over && has(fault::ttl_upper_bound_unchecked)) ||
        (written < 1 && has(fault::ttl_lower_bound_unchecked))) {
      request.lifetime.seconds = written;
    }
  }
}

//! Faults of REG-1..3 that reject what is valid: a 400 for the first over-strict check a
//! validated list (and client name) fails; `self_id` is the client itself, if known.
std::optional<protocol::api_error> over_strict(const fault_set& faults,
                                               const session_record& session,
                                               const std::string& self_id,
                                               const std::vector<tool_spec>& tools,
                                               const std::string* client_name) {
  const auto has = [&](fault f) { return faults.count(f) != 0; };
  // Fault name_length_off_by_one: an exclusive range check, 1 < length < 64.
  auto at_a_limit = [&](const std::string& name) {
    return has(fault::name_length_off_by_one) &&
           (name.size() == 1 || name.size() == protocol::max_name_length);
  };
  auto has_dash = [&](const std::string& name) {
    return has(fault::name_charset_without_dash) && name.find('-') != std::string::npos;
  };
  if (client_name && (at_a_limit(*client_name) || has_dash(*client_name))) {
    return protocol::invalid_request("name: must be 2-63 characters of [A-Za-z0-9_]");
  }
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const tool_spec& tool = tools[i];
    if (at_a_limit(tool.name) || has_dash(tool.name)) {
      return protocol::invalid_request("tools: names must be 2-63 characters of [A-Za-z0-9_]");
    }
    // Fault description_limit_in_bytes: the 4096 limit counts bytes, not code points.
    if (has(fault::description_limit_in_bytes) &&
        tool.description.size() > protocol::max_description_code_points) {
      return protocol::invalid_request("tools[" + std::to_string(i) +
                                       "].description: must be at most 4096 characters (REG-2)");
    }
    if (has(fault::schema_keywords_limited)) {
      for (const auto& [key, value] : tool.parameters.items()) {
        if (key != "type" && key != "properties" && key != "required") {
          return protocol::invalid_request("tools: parameters." + key + " is not supported");
        }
      }
    }
    if (has(fault::empty_description_rejected) && tool.description.empty()) {
      return protocol::invalid_request("tools: description missing");
    }
    if (has(fault::description_limit_off_by_one) &&
        protocol::count_code_points(tool.description).value_or(0) ==
            protocol::max_description_code_points) {
      return protocol::invalid_request("tools: description must be under 4096 characters");
    }
    if (has(fault::parameters_type_required) && !tool.parameters.contains("type")) {
      return protocol::invalid_request("tools: parameters.type missing");
    }
    if (has(fault::tool_names_unique_per_session)) {
      for (const auto& [serial, other] : session.clients) {
        if (other.id != self_id && offers(other.tools, tool.name)) {
          return protocol::invalid_request("tools: '" + tool.name + "' is taken in this session");
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace

// -- the client decision points --------------------------------------------------------------

outcome<protocol::register_request> faulty_policy::read_registration(const session_record& session,
                                                                     const json& body) const {
  if (has(fault::unknown_fields_rejected)) {  // C-6
    if (auto unknown = unknown_field_refused(body, {"name", "lifetime", "tools"})) return *unknown;
  }
  tool_name_stand_ins names;
  auto request = protocol::parse_register_request(relaxed_registration(faults_, body, names));
  if (!request) return names.restore(request.error());
  names.restore(request->tools);
  restore_relaxed(faults_, body, *request);
  if (has(fault::tools_required_at_registration) && !body.contains("tools")) {
    return protocol::invalid_request("tools: missing");
  }
  if (auto error = over_strict(faults_, session, "", request->tools, &request->name)) {
    return *error;
  }
  return request;
}

outcome<protocol::put_tools_request> faulty_policy::read_tool_list(const session_record& session,
                                                                   const client_record& client,
                                                                   const json& body) const {
  if (has(fault::unknown_fields_rejected)) {  // C-6
    if (auto unknown = unknown_field_refused(body, {"tools"})) return *unknown;
  }
  tool_name_stand_ins names;
  auto request =
      protocol::parse_put_tools_request(relaxed_tool_body(faults_, body, "tools", names));
  if (request) names.restore(request->tools);
  if (!request) request = names.restore(request.error());
  if (!request && has(fault::put_tools_unvalidated)) {
    if (auto tools = unvalidated_tools(body))
      request = protocol::put_tools_request{std::move(*tools)};
  }
  if (request) {
    if (auto error = over_strict(faults_, session, client.id, request->tools, nullptr))
      return *error;
  }
  return request;
}

std::string faulty_policy::assign_name(const state& s, const session_record& session,
                                       const std::string& requested) const {
  // Fault no_collision_counter (REG-5): a taken name is given again.
  if (has(fault::no_collision_counter)) return requested;
  if (!has(fault::name_counter_global)) return rule_policy::assign_name(s, session, requested);
  // Fault name_counter_global (REG-6): a name counts as taken when any session has it.
  return first_free_name(requested, [&](const std::string& name) {
    return std::any_of(s.sessions.begin(), s.sessions.end(),
                       [&](const auto& entry) { return name_taken(entry.second, name); });
  });
}

protocol::lifetime faulty_policy::kept_lifetime(const protocol::lifetime& requested) const {
  // Fault never_client_given_default_ttl (LIFE-1): `never` is read as a 30 s TTL.
  if (requested.type == protocol::lifetime::kind::never &&
      has(fault::never_client_given_default_ttl)) {
    return {protocol::lifetime::kind::ttl, 30};
  }
  return requested;
}

time_ms faulty_policy::expiry_due(time_ms expires_at) const {
  // Fault ttl_boundary_inclusive (LIFE-3): still alive at exactly `expires_at`.
  return has(fault::ttl_boundary_inclusive) ? expires_at + 1 : expires_at;
}

bool faulty_policy::ping_restarts_ttl() const {
  // Fault ping_does_not_extend (LIFE-2): the ping is answered, the TTL keeps running.
  return !has(fault::ping_does_not_extend);
}

bool faulty_policy::call_traffic_restarts_ttl() const {
  // Fault ack_extends_ttl (LIFE-6).
  return has(fault::ack_extends_ttl);
}

void faulty_policy::tool_list_refused(client_record& client) const {
  // Fault invalid_put_clears_tools (C-3): the old list is dropped before validation fails.
  if (has(fault::invalid_put_clears_tools)) client.tools.clear();
}

std::vector<tool_spec> faulty_policy::next_tool_list(const std::vector<tool_spec>& current,
                                                     std::vector<tool_spec> requested) const {
  // Fault put_merges_tools (TOOLS-1).
  return has(fault::put_merges_tools) ? merged(current, requested) : requested;
}

void faulty_policy::before_tools_replaced(state& s, session_record& session, client_record& client,
                                          const std::vector<tool_spec>& requested,
                                          time_ms now) const {
  // Fault put_applied_in_two_phases (TOOLS-6): withdrawals (and their calls' failures,
  // which may start the next model step) come before the additions.
  if (!has(fault::put_applied_in_two_phases)) return;
  std::erase_if(client.tools, [&](const tool_spec& t) { return !offers(requested, t.name); });
  fail_withdrawn_calls(s, session, client, client.tools, now);
}

void faulty_policy::after_tools_replaced(state& s, session_record& session, client_record& client,
                                         const std::vector<tool_spec>& previous,
                                         time_ms now) const {
  // Fault withdrawn_tool_offered (TOOLS-1): a withdrawn tool is still offered to the model.
  if (has(fault::withdrawn_tool_offered)) {
    for (const auto& old_tool : previous)
      if (!offers(client.tools, old_tool.name)) client.withdrawn_tools.push_back(old_tool);
  }
  // Fault withdrawn_tool_calls_failed (TOOLS-4): open calls of withdrawn tools fail.
  if (has(fault::withdrawn_tool_calls_failed)) {
    fail_withdrawn_calls(s, session, client, client.tools, now);
  }
}

void faulty_policy::fail_calls_of_departed(state& s, session_record& session,
                                           const client_record& client, departure why,
                                           time_ms now) const {
  // Fault vanished_calls_left_open (LIFE-5).
  if (!has(fault::vanished_calls_left_open)) {
    rule_policy::fail_calls_of_departed(s, session, client, why, now);
  }
}

void faulty_policy::keep_departed(session_record& session, client_record client) const {
  // Fault departed_client_tools_offered (LIFE-4): the departed client's tools stay offered.
  if (!has(fault::departed_client_tools_offered)) return;
  client.open_calls.clear();
  const auto serial = client.serial;
  session.departed.emplace(serial, std::move(client));
}

}  // namespace toolwire::reference_server::detail
