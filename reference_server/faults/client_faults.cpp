// Faults of the client rules (registration, names, TTLs, tool lists, departures): each a
// layer over the policy beneath it (policy_layer.hpp), named with the rule it breaks.
#include <algorithm>
#include <string_view>
#include <utility>

#include "policy_layer.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::reference_server::detail {

namespace {

using protocol::outcome;

//! `text` in single quotes, as refusals quote names. Why appends, not `"'" + ... + "'"`:
//! g++ 12 at -O3 reports a false -Wrestrict inside the inlined operator+ (GCC PR 105329).
std::string single_quoted(std::string_view text) {
  std::string result;
  result.reserve(text.size() + 2);
  result.append("'").append(text).append("'");
  return result;
}

// -- what validation sees: faults that let through what the SPEC refuses -------------------------

//! A fault that relaxes a client's tool list (`tools` at registration and in a PUT) before
//! the policy beneath reads it.
class tool_list_relaxation : public policy_layer {
 public:
  using policy_layer::policy_layer;

  outcome<protocol::register_request> read_registration(const session_record& session,
                                                        const json& body) const override {
    return inner().read_registration(session, relaxed(body));
  }

  outcome<protocol::put_tools_request> read_tool_list(const session_record& session,
                                                      const client_record& client,
                                                      const json& body) const override {
    return inner().read_tool_list(session, client, relaxed(body));
  }

 private:
  //! `tools`, the list as sent (of any type), as validation is to see it.
  virtual json relax(json tools) const = 0;

  json relaxed(const json& body) const {
    if (!body.is_object() || !body.contains("tools")) return body;
    json copy = body;
    copy["tools"] = relax(std::move(copy["tools"]));
    return copy;
  }
};

//! Fault non_object_tools_skipped (REG-1): list items that are not objects are dropped.
class non_object_tools_skipped final : public tool_list_relaxation {
  using tool_list_relaxation::tool_list_relaxation;
  json relax(json tools) const override {
    json kept = json::array();
    if (tools.is_array()) {
      for (auto& tool : tools)
        if (tool.is_object()) kept.push_back(std::move(tool));
    }
    return kept;
  }
};

//! Fault non_string_names_stringified (REG-1): a number given as a name (of the client or
//! of a tool) is read as its text.
class non_string_names_stringified final : public tool_list_relaxation {
  using tool_list_relaxation::tool_list_relaxation;

  outcome<protocol::register_request> read_registration(const session_record& session,
                                                        const json& body) const override {
    if (!body.is_object() || !body.contains("name") || !body["name"].is_number()) {
      return tool_list_relaxation::read_registration(session, body);
    }
    json relaxed = body;
    relaxed["name"] = protocol::safe_dump(body["name"]);
    return tool_list_relaxation::read_registration(session, relaxed);
  }

  json relax(json tools) const override {
    if (!tools.is_array()) return tools;
    for (auto& tool : tools) {
      if (tool.is_object() && tool.contains("name") && tool["name"].is_number()) {
        tool["name"] = protocol::safe_dump(tool["name"]);
      }
    }
    return tools;
  }
};

//! Fault tool_fields_defaulted (REG-1): a missing description or parameters is defaulted.
class tool_fields_defaulted final : public tool_list_relaxation {
  using tool_list_relaxation::tool_list_relaxation;
  json relax(json tools) const override {
    if (!tools.is_array()) return tools;
    for (auto& tool : tools) {
      if (!tool.is_object()) continue;
      if (!tool.contains("description")) tool["description"] = "";
      if (!tool.contains("parameters")) tool["parameters"] = {{"type", "object"}};
    }
    return tools;
  }
};

//! Fault long_description_truncated (REG-2): a description is cut after 4096 code points
//! instead of being refused.
class long_description_truncated final : public tool_list_relaxation {
  using tool_list_relaxation::tool_list_relaxation;
  json relax(json tools) const override {
    if (!tools.is_array()) return tools;
    for (auto& tool : tools) {
      if (tool.is_object() && tool.contains("description") && tool["description"].is_string()) {
        tool["description"] = truncated(tool["description"].get<std::string>());
      }
    }
    return tools;
  }

  static std::string truncated(const std::string& text) {
    std::size_t points = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const bool starts_point = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
      if (starts_point && points++ == protocol::max_description_code_points) {
        return text.substr(0, i);
      }
    }
    return text;
  }
};

//! Fault parameters_not_checked (REG-4): any parameters pass as an object schema.
class parameters_not_checked final : public tool_list_relaxation {
  using tool_list_relaxation::tool_list_relaxation;
  json relax(json tools) const override {
    if (!tools.is_array()) return tools;
    for (auto& tool : tools) {
      if (tool.is_object() && tool.contains("parameters") &&
          (!tool["parameters"].is_object() ||
           tool["parameters"].value("type", json("object")) != json("object"))) {
        tool["parameters"] = {{"type", "object"}};
      }
    }
    return tools;
  }
};

//! Fault duplicate_tool_names_collapsed (REG-3): a tool list (of a client or of a task)
//! keeps each repeated name once, its last declaration winning.
class duplicate_tool_names_collapsed final : public policy_layer {
  using policy_layer::policy_layer;

  outcome<protocol::register_request> read_registration(const session_record& session,
                                                        const json& body) const override {
    return inner().read_registration(session, collapsed(body, "tools"));
  }

  outcome<protocol::put_tools_request> read_tool_list(const session_record& session,
                                                      const client_record& client,
                                                      const json& body) const override {
    return inner().read_tool_list(session, client, collapsed(body, "tools"));
  }

  outcome<protocol::task_create_request> read_task_request(const json& body) const override {
    return inner().read_task_request(collapsed(body, "client_tools"));
  }

  static json collapsed(json body, const std::string& key) {
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
};

//! Fault invalid_tool_name_accepted (REG-1): a tool name outside the charset or the length
//! is accepted (of a client or of a task). Validation sees a valid stand-in for each, and
//! the names are put back into what it read, and into a refusal that quotes one.
class invalid_tool_name_accepted final : public policy_layer {
  using policy_layer::policy_layer;

  outcome<protocol::register_request> read_registration(const session_record& session,
                                                        const json& body) const override {
    stand_ins names;
    auto request = inner().read_registration(session, names.replace(body, "tools"));
    if (!request) return names.restore(request.error());
    names.restore(request->tools);
    return request;
  }

  outcome<protocol::put_tools_request> read_tool_list(const session_record& session,
                                                      const client_record& client,
                                                      const json& body) const override {
    stand_ins names;
    auto request = inner().read_tool_list(session, client, names.replace(body, "tools"));
    if (!request) return names.restore(request.error());
    names.restore(request->tools);
    return request;
  }

  outcome<protocol::task_create_request> read_task_request(const json& body) const override {
    stand_ins names;
    auto request = inner().read_task_request(names.replace(body, "client_tools"));
    if (!request) return names.restore(request.error());
    names.restore(request->client_tools);
    return request;
  }

  class stand_ins {
   public:
    //! `body` with the invalid names in `body[key]` (a list of tool objects) replaced.
    json replace(json body, const std::string& key) {
      if (!body.is_object() || !body.contains(key) || !body[key].is_array()) return body;
      for (auto& tool : body[key]) {
        if (!tool.is_object() || !tool.contains("name") || !tool["name"].is_string()) continue;
        const std::string name = tool["name"].get<std::string>();
        if (protocol::is_valid_name(name)) continue;
        // Why one stand-in per distinct name: a name declared twice must still be refused
        // (REG-3).
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

    void restore(std::vector<tool_spec>& tools) const {
      for (auto& tool : tools) {
        for (const auto& [stand_in, name] : stand_in_for_)
          if (tool.name == stand_in) tool.name = name;
      }
    }

    protocol::api_error restore(protocol::api_error error) const {
      for (const auto& [stand_in, name] : stand_in_for_) {
        const std::string as_quoted = single_quoted(stand_in);
        if (auto at = error.message.find(as_quoted); at != std::string::npos) {
          error.message.replace(at, as_quoted.size(), single_quoted(protocol::escape_bytes(name)));
        }
      }
      return error;
    }

   private:
    std::vector<std::pair<std::string, std::string>> stand_in_for_;  // (stand-in, name)
  };
};

//! Fault client_name_defaulted (REG-1): a registration without a name is named "client".
class client_name_defaulted final : public policy_layer {
  using policy_layer::policy_layer;
  outcome<protocol::register_request> read_registration(const session_record& session,
                                                        const json& body) const override {
    if (!body.is_object() || body.contains("name")) return inner().read_registration(session, body);
    json relaxed = body;
    relaxed["name"] = "client";
    return inner().read_registration(session, relaxed);
  }
};

//! Fault client_name_unchecked (REG-1): a client name outside the charset or the length is
//! accepted as sent.
class client_name_unchecked final : public policy_layer {
  using policy_layer::policy_layer;
  outcome<protocol::register_request> read_registration(const session_record& session,
                                                        const json& body) const override {
    if (!body.is_object() || !body.contains("name") || !body["name"].is_string()) {
      return inner().read_registration(session, body);
    }
    const std::string name = body["name"].get<std::string>();
    json relaxed = body;
    if (!protocol::is_valid_name(name)) relaxed["name"] = "unchecked";
    auto request = inner().read_registration(session, relaxed);
    if (request) request->name = name;
    return request;
  }
};

//! Fault lifetime_defaults_to_never (REG-8): a missing or unknown lifetime reads as never.
class lifetime_defaults_to_never final : public policy_layer {
  using policy_layer::policy_layer;
  outcome<protocol::register_request> read_registration(const session_record& session,
                                                        const json& body) const override {
    if (!body.is_object()) return inner().read_registration(session, body);
    const json type = body.contains("lifetime") && body["lifetime"].is_object()
                          ? body["lifetime"].value("type", json(nullptr))
                          : json(nullptr);
    if (type == "never" || type == "ttl") return inner().read_registration(session, body);
    json relaxed = body;
    relaxed["lifetime"] = {{"type", "never"}};
    return inner().read_registration(session, relaxed);
  }
};

//! The seconds of a TTL lifetime in `body`, or null.
json ttl_seconds(const json& body) {
  if (!body.is_object() || !body.contains("lifetime") || !body["lifetime"].is_object() ||
      !body["lifetime"].contains("data") || !body["lifetime"]["data"].is_object()) {
    return nullptr;
  }
  return body["lifetime"]["data"].value("seconds", json(nullptr));
}

//! Fault ttl_fraction_truncated (LIFE-1): fractional seconds are cut to whole ones.
class ttl_fraction_truncated final : public policy_layer {
  using policy_layer::policy_layer;
  outcome<protocol::register_request> read_registration(const session_record& session,
                                                        const json& body) const override {
    const json seconds = ttl_seconds(body);
    if (!seconds.is_number_float()) return inner().read_registration(session, body);
    json relaxed = body;
    relaxed["lifetime"]["data"]["seconds"] = static_cast<std::int64_t>(seconds.get<double>());
    return inner().read_registration(session, relaxed);
  }
};

//! A fault that lets a whole number of TTL seconds out of range through: validation sees
//! `stand_in`, and the TTL kept is the one sent.
class ttl_bound_unchecked : public policy_layer {
 public:
  using policy_layer::policy_layer;

  outcome<protocol::register_request> read_registration(const session_record& session,
                                                        const json& body) const override {
    const json seconds = ttl_seconds(body);
    if (!seconds.is_number_integer() || !out_of_range(seconds.get<std::int64_t>())) {
      return inner().read_registration(session, body);
    }
    json relaxed = body;
    relaxed["lifetime"]["data"]["seconds"] = stand_in();
    auto request = inner().read_registration(session, relaxed);
    if (request && request->lifetime.type == protocol::lifetime::kind::ttl) {
      request->lifetime.seconds = seconds.get<std::int64_t>();
    }
    return request;
  }

 private:
  virtual bool out_of_range(std::int64_t seconds) const = 0;
  virtual std::int64_t stand_in() const = 0;
};

//! Fault ttl_upper_bound_unchecked (LIFE-1): a TTL over the maximum is kept.
class ttl_upper_bound_unchecked final : public ttl_bound_unchecked {
  using ttl_bound_unchecked::ttl_bound_unchecked;
  bool out_of_range(std::int64_t seconds) const override {
    return seconds > protocol::max_ttl_seconds;
  }
  std::int64_t stand_in() const override { return protocol::max_ttl_seconds; }
};

//! Fault ttl_lower_bound_unchecked (LIFE-1): a TTL under one second is kept.
class ttl_lower_bound_unchecked final : public ttl_bound_unchecked {
  using ttl_bound_unchecked::ttl_bound_unchecked;
  bool out_of_range(std::int64_t seconds) const override { return seconds < 1; }
  std::int64_t stand_in() const override { return 1; }
};

//! Fault put_tools_unvalidated (TOOLS-2): a PUT's list is taken as sent when it is a list
//! of named objects; nothing else is checked.
class put_tools_unvalidated final : public policy_layer {
  using policy_layer::policy_layer;
  outcome<protocol::put_tools_request> read_tool_list(const session_record& session,
                                                      const client_record& client,
                                                      const json& body) const override {
    auto request = inner().read_tool_list(session, client, body);
    if (request) return request;
    if (auto tools = as_sent(body)) return protocol::put_tools_request{std::move(*tools)};
    return request;
  }

  static std::optional<std::vector<tool_spec>> as_sent(const json& body) {
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
};

// -- what validation sees: faults that refuse what the SPEC accepts -------------------------------

//! A fault that refuses, after the policy beneath read them, client names or tools (at
//! registration and in a PUT) the SPEC accepts.
class over_strict_layer : public policy_layer {
 public:
  using policy_layer::policy_layer;

  outcome<protocol::register_request> read_registration(const session_record& session,
                                                        const json& body) const override {
    auto request = inner().read_registration(session, body);
    if (!request) return request;
    if (auto refused = refuse_client_name(request->name)) return *refused;
    if (auto refused = refuse_tools(session, "", request->tools)) return *refused;
    return request;
  }

  outcome<protocol::put_tools_request> read_tool_list(const session_record& session,
                                                      const client_record& client,
                                                      const json& body) const override {
    auto request = inner().read_tool_list(session, client, body);
    if (!request) return request;
    if (auto refused = refuse_tools(session, client.id, request->tools)) return *refused;
    return request;
  }

 private:
  virtual std::optional<api_error> refuse_client_name(const std::string&) const {
    return std::nullopt;
  }
  //! `self_id` is the client that declares `tool`, when it is registered already.
  virtual std::optional<api_error> refuse_tool(const session_record& session,
                                               const std::string& self_id, std::size_t index,
                                               const tool_spec& tool) const = 0;

  std::optional<api_error> refuse_tools(const session_record& session, const std::string& self_id,
                                        const std::vector<tool_spec>& tools) const {
    for (std::size_t i = 0; i < tools.size(); ++i)
      if (auto refused = refuse_tool(session, self_id, i, tools[i])) return refused;
    return std::nullopt;
  }
};

//! A fault of the name rule (REG-1), for the client's name and its tools' names alike.
class name_rule_layer : public over_strict_layer {
 public:
  using over_strict_layer::over_strict_layer;

 private:
  virtual bool refuses(const std::string& name) const = 0;

  std::optional<api_error> refuse_client_name(const std::string& name) const override {
    if (!refuses(name)) return std::nullopt;
    return protocol::invalid_request("name: must be 2-63 characters of [A-Za-z0-9_]");
  }
  std::optional<api_error> refuse_tool(const session_record&, const std::string&, std::size_t,
                                       const tool_spec& tool) const override {
    if (!refuses(tool.name)) return std::nullopt;
    return protocol::invalid_request("tools: names must be 2-63 characters of [A-Za-z0-9_]");
  }
};

//! Fault name_length_off_by_one (REG-1): an exclusive range check, 1 < length < 64.
class name_length_off_by_one final : public name_rule_layer {
  using name_rule_layer::name_rule_layer;
  bool refuses(const std::string& name) const override {
    return name.size() == 1 || name.size() == protocol::max_name_length;
  }
};

//! Fault name_charset_without_dash (REG-1): '-' is refused.
class name_charset_without_dash final : public name_rule_layer {
  using name_rule_layer::name_rule_layer;
  bool refuses(const std::string& name) const override {
    return name.find('-') != std::string::npos;
  }
};

//! Fault description_limit_in_bytes (REG-2): the 4096 limit counts bytes, not code points.
class description_limit_in_bytes final : public over_strict_layer {
  using over_strict_layer::over_strict_layer;
  std::optional<api_error> refuse_tool(const session_record&, const std::string&, std::size_t i,
                                       const tool_spec& tool) const override {
    if (tool.description.size() <= protocol::max_description_code_points) return std::nullopt;
    return protocol::invalid_request("tools[" + std::to_string(i) +
                                     "].description: must be at most 4096 characters (REG-2)");
  }
};

//! Fault description_limit_off_by_one (REG-2): exactly 4096 code points is refused.
class description_limit_off_by_one final : public over_strict_layer {
  using over_strict_layer::over_strict_layer;
  std::optional<api_error> refuse_tool(const session_record&, const std::string&, std::size_t,
                                       const tool_spec& tool) const override {
    if (protocol::count_code_points(tool.description).value_or(0) !=
        protocol::max_description_code_points) {
      return std::nullopt;
    }
    return protocol::invalid_request("tools: description must be under 4096 characters");
  }
};

//! Fault empty_description_rejected (REG-2): an empty description is refused.
class empty_description_rejected final : public over_strict_layer {
  using over_strict_layer::over_strict_layer;
  std::optional<api_error> refuse_tool(const session_record&, const std::string&, std::size_t,
                                       const tool_spec& tool) const override {
    if (!tool.description.empty()) return std::nullopt;
    return protocol::invalid_request("tools: description missing");
  }
};

//! Fault schema_keywords_limited (REG-4): parameters may use only type, properties and
//! required.
class schema_keywords_limited final : public over_strict_layer {
  using over_strict_layer::over_strict_layer;
  std::optional<api_error> refuse_tool(const session_record&, const std::string&, std::size_t,
                                       const tool_spec& tool) const override {
    for (const auto& [key, value] : tool.parameters.items()) {
      if (key != "type" && key != "properties" && key != "required") {
        return protocol::invalid_request("tools: parameters." + key + " is not supported");
      }
    }
    return std::nullopt;
  }
};

//! Fault parameters_type_required (REG-4): parameters without "type" are refused.
class parameters_type_required final : public over_strict_layer {
  using over_strict_layer::over_strict_layer;
  std::optional<api_error> refuse_tool(const session_record&, const std::string&, std::size_t,
                                       const tool_spec& tool) const override {
    if (tool.parameters.contains("type")) return std::nullopt;
    return protocol::invalid_request("tools: parameters.type missing");
  }
};

//! Fault tool_names_unique_per_session (REG-3): a tool name another client of the session
//! declares is refused.
class tool_names_unique_per_session final : public over_strict_layer {
  using over_strict_layer::over_strict_layer;
  std::optional<api_error> refuse_tool(const session_record& session, const std::string& self_id,
                                       std::size_t, const tool_spec& tool) const override {
    for (const auto& [serial, other] : session.clients) {
      if (other.id != self_id && declares_tool(other.tools, tool.name)) {
        return protocol::invalid_request("tools: '" + tool.name + "' is taken in this session");
      }
    }
    return std::nullopt;
  }
};

//! Fault tools_required_at_registration (REG-1): a registration without tools is refused.
class tools_required_at_registration final : public policy_layer {
  using policy_layer::policy_layer;
  outcome<protocol::register_request> read_registration(const session_record& session,
                                                        const json& body) const override {
    auto request = inner().read_registration(session, body);
    if (request && !body.contains("tools")) return protocol::invalid_request("tools: missing");
    return request;
  }
};

// -- names and lifetimes --------------------------------------------------------------------------

//! Fault no_collision_counter (REG-5): a taken name is given again.
class no_collision_counter final : public policy_layer {
  using policy_layer::policy_layer;
  std::string assign_name(const state&, const session_record&,
                          const std::string& requested) const override {
    return requested;
  }
};

//! Fault name_counter_global (REG-6): a name counts as taken when any session has it.
class name_counter_global final : public policy_layer {
  using policy_layer::policy_layer;
  std::string assign_name(const state& s, const session_record&,
                          const std::string& requested) const override {
    return first_free_name(requested, [&](const std::string& name) {
      return std::any_of(s.sessions.begin(), s.sessions.end(),
                         [&](const auto& entry) { return name_taken(entry.second, name); });
    });
  }
};

//! Fault never_client_given_default_ttl (LIFE-1): `never` is read as a 30 s TTL.
class never_client_given_default_ttl final : public policy_layer {
  using policy_layer::policy_layer;
  protocol::lifetime kept_lifetime(const protocol::lifetime& requested) const override {
    if (requested.type == protocol::lifetime::kind::never) {
      return {protocol::lifetime::kind::ttl, 30};
    }
    return inner().kept_lifetime(requested);
  }
};

//! Fault ttl_boundary_inclusive (LIFE-3): still alive at exactly `expires_at`.
class ttl_boundary_inclusive final : public policy_layer {
  using policy_layer::policy_layer;
  time_ms expiry_due(time_ms expires_at) const override {
    return inner().expiry_due(expires_at) + 1;
  }
};

//! Fault ping_does_not_extend (LIFE-2): the ping is answered, the TTL keeps running.
class ping_does_not_extend final : public policy_layer {
  using policy_layer::policy_layer;
  bool ping_restarts_ttl() const override { return false; }
};

//! Fault ack_extends_ttl (LIFE-6): acks and results restart the TTL as pings do.
class ack_extends_ttl final : public policy_layer {
  using policy_layer::policy_layer;
  bool call_traffic_restarts_ttl() const override { return true; }
};

// -- replacing a tool list ------------------------------------------------------------------------

//! Fault invalid_put_clears_tools (C-3): the old list is dropped before validation fails.
class invalid_put_clears_tools final : public policy_layer {
  using policy_layer::policy_layer;
  bool refused_put_keeps_tools() const override { return false; }
};

//! Fault put_merges_tools (TOOLS-1): the new list updates and adds, but never withdraws.
class put_merges_tools final : public policy_layer {
  using policy_layer::policy_layer;
  std::vector<tool_spec> next_tool_list(const std::vector<tool_spec>& current,
                                        std::vector<tool_spec> requested) const override {
    std::vector<tool_spec> merged = current;
    for (auto& tool : requested) {
      auto same = std::find_if(merged.begin(), merged.end(),
                               [&](const tool_spec& t) { return t.name == tool.name; });
      if (same != merged.end()) {
        *same = std::move(tool);
      } else {
        merged.push_back(std::move(tool));
      }
    }
    return merged;
  }
};

//! Fault put_applied_in_two_phases (TOOLS-6): withdrawals (and their calls' failures,
//! which may start the next model step) come before the additions.
class put_applied_in_two_phases final : public policy_layer {
  using policy_layer::policy_layer;
  bool tools_replaced_in_one_step() const override { return false; }
};

//! Fault withdrawn_tool_offered (TOOLS-1): what a PUT withdrew is kept and still offered
//! to the model.
class withdrawn_tool_offered final : public policy_layer {
  using policy_layer::policy_layer;
  bool withdrawn_tools_forgotten() const override { return false; }
  std::vector<const tool_spec*> tools_offered_by(const client_record& client) const override {
    auto tools = inner().tools_offered_by(client);
    for (const auto& tool : client.withdrawn_tools)
      tools.push_back(&tool);
    return tools;
  }
};

//! Fault withdrawn_tool_calls_failed (TOOLS-4): open calls of withdrawn tools fail.
class withdrawn_tool_calls_failed final : public policy_layer {
  using policy_layer::policy_layer;
  bool withdrawn_tool_calls_go_on() const override { return false; }
};

// -- departures -----------------------------------------------------------------------------------

//! Fault vanished_calls_left_open (LIFE-5): a departed client's calls stay open until their
//! deadline.
class vanished_calls_left_open final : public policy_layer {
  using policy_layer::policy_layer;
  bool departed_client_calls_fail() const override { return false; }
};

//! Fault departed_client_tools_offered (LIFE-4): a client that ended is kept, and its tools
//! are still offered.
class departed_client_tools_offered final : public policy_layer {
  using policy_layer::policy_layer;
  bool departed_client_forgotten() const override { return false; }
  std::vector<const client_record*> offering_clients(const session_record& session) const override {
    auto clients = inner().offering_clients(session);
    for (const auto& [serial, client] : session.departed)
      clients.push_back(&client);
    return clients;
  }
};

// Why this order (the first innermost): relaxations beneath refusals, so that when faults
// are planted together a refusal judges what a relaxation let through.
constexpr fault_layer client_layers[]{
    {fault::ttl_upper_bound_unchecked, layered<ttl_upper_bound_unchecked>},
    {fault::ttl_lower_bound_unchecked, layered<ttl_lower_bound_unchecked>},
    {fault::ttl_fraction_truncated, layered<ttl_fraction_truncated>},
    {fault::invalid_tool_name_accepted, layered<invalid_tool_name_accepted>},
    {fault::parameters_not_checked, layered<parameters_not_checked>},
    {fault::long_description_truncated, layered<long_description_truncated>},
    {fault::tool_fields_defaulted, layered<tool_fields_defaulted>},
    {fault::non_string_names_stringified, layered<non_string_names_stringified>},
    {fault::non_object_tools_skipped, layered<non_object_tools_skipped>},
    {fault::duplicate_tool_names_collapsed, layered<duplicate_tool_names_collapsed>},
    {fault::lifetime_defaults_to_never, layered<lifetime_defaults_to_never>},
    {fault::client_name_unchecked, layered<client_name_unchecked>},
    {fault::client_name_defaulted, layered<client_name_defaulted>},
    {fault::put_tools_unvalidated, layered<put_tools_unvalidated>},
    {fault::tools_required_at_registration, layered<tools_required_at_registration>},
    {fault::name_length_off_by_one, layered<name_length_off_by_one>},
    {fault::name_charset_without_dash, layered<name_charset_without_dash>},
    {fault::description_limit_in_bytes, layered<description_limit_in_bytes>},
    {fault::schema_keywords_limited, layered<schema_keywords_limited>},
    {fault::empty_description_rejected, layered<empty_description_rejected>},
    {fault::description_limit_off_by_one, layered<description_limit_off_by_one>},
    {fault::parameters_type_required, layered<parameters_type_required>},
    {fault::tool_names_unique_per_session, layered<tool_names_unique_per_session>},
    {fault::no_collision_counter, layered<no_collision_counter>},
    {fault::name_counter_global, layered<name_counter_global>},
    {fault::never_client_given_default_ttl, layered<never_client_given_default_ttl>},
    {fault::ttl_boundary_inclusive, layered<ttl_boundary_inclusive>},
    {fault::ping_does_not_extend, layered<ping_does_not_extend>},
    {fault::ack_extends_ttl, layered<ack_extends_ttl>},
    {fault::invalid_put_clears_tools, layered<invalid_put_clears_tools>},
    {fault::put_merges_tools, layered<put_merges_tools>},
    {fault::put_applied_in_two_phases, layered<put_applied_in_two_phases>},
    {fault::withdrawn_tool_offered, layered<withdrawn_tool_offered>},
    {fault::withdrawn_tool_calls_failed, layered<withdrawn_tool_calls_failed>},
    {fault::vanished_calls_left_open, layered<vanished_calls_left_open>},
    {fault::departed_client_tools_offered, layered<departed_client_tools_offered>},
};

}  // namespace

std::span<const fault_layer> client_fault_layers() {
  return client_layers;
}

}  // namespace toolwire::reference_server::detail
