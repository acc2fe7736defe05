// Request-body validation: untrusted JSON to wire types, or a 400 naming the field and the rule.
#include "toolwire/protocol/validation.hpp"

#include "toolwire/protocol/safe_json.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <variant>

namespace toolwire::protocol {
namespace {

constexpr std::string_view name_rule_text = "must be 1-64 characters of [A-Za-z0-9_-]";

//! `<path>: <what> (<rule>)`, the one shape of every validation message.
api_error field_error(std::string_view path, std::string_view what, std::string_view rule) {
  std::string message;
  message.reserve(path.size() + what.size() + rule.size() + 5);
  message.append(path).append(": ").append(what);
  if (!rule.empty()) message.append(" (").append(rule).append(")");
  return invalid_request(std::move(message));
}

std::string index_path(std::string_view field, std::size_t index) {
  return std::string(field) + "[" + std::to_string(index) + "]";
}

std::string member_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return std::string(parent) + "." + std::string(key);
}

//! A JSON integer that fits in int64. Floats (even 5.0), booleans and strings are not integers.
std::optional<std::int64_t> as_int64(const json& value) {
  if (value.is_number_unsigned()) {
    const auto raw = value.get<std::uint64_t>();
    if (raw > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return std::nullopt;
    }
    return static_cast<std::int64_t>(raw);
  }
  if (value.is_number_integer()) return value.get<std::int64_t>();
  return std::nullopt;
}

//! How a tool list differs between a client registration (REG-1) and a task (TASK-1).
struct tool_list_shape {
  std::string_view schema_key;  // "parameters" or "input_schema"
  bool schema_required;
  std::string_view shape_rule;  // the rule cited for a missing or mistyped member
};

constexpr tool_list_shape client_tool_shape{"parameters", true, "REG-1"};
constexpr tool_list_shape task_tool_shape{"input_schema", false, "TASK-1"};

outcome<tool_spec> parse_tool(const json& item, const std::string& path,
                              const tool_list_shape& shape) {
  if (!item.is_object()) return field_error(path, "must be an object", shape.shape_rule);
  tool_spec tool;

  const auto name_path = member_path(path, "name");
  const auto name = item.find("name");
  if (name == item.end()) return field_error(name_path, "missing", shape.shape_rule);
  if (!name->is_string()) return field_error(name_path, "must be a string", shape.shape_rule);
  tool.name = name->get<std::string>();
  if (!is_valid_name(tool.name)) {
    return field_error(name_path, name_rule_text, "REG-1");
  }

  const auto description_path = member_path(path, "description");
  const auto description = item.find("description");
  if (description == item.end()) return field_error(description_path, "missing", shape.shape_rule);
  if (!description->is_string()) {
    return field_error(description_path, "must be a string", shape.shape_rule);
  }
  tool.description = description->get<std::string>();
  const auto code_points = count_code_points(tool.description);
  if (!code_points) return field_error(description_path, "must be valid UTF-8", "REG-2");
  if (*code_points > max_description_code_points) {
    return field_error(description_path, "must be at most 4096 characters", "REG-2");
  }

  const auto schema_path = member_path(path, shape.schema_key);
  const auto schema = item.find(shape.schema_key);
  if (schema == item.end()) {
    if (shape.schema_required) return field_error(schema_path, "missing", shape.shape_rule);
    tool.parameters = json::object();
    return tool;
  }
  if (!schema->is_object()) {
    return field_error(schema_path, "must be a JSON object", shape.shape_rule);
  }
  const auto type = schema->find("type");
  if (type != schema->end() && *type != "object") {
    return field_error(member_path(schema_path, "type"), "must be \"object\"", shape.shape_rule);
  }
  tool.parameters = *schema;
  return tool;
}

//! REG-1..3 over a list; `duplicate` builds the message for a repeated name at an index.
template <typename duplicate_message>
outcome<std::vector<tool_spec>> parse_tools(const json& list, std::string_view field,
                                            const tool_list_shape& shape,
                                            duplicate_message duplicate) {
  if (!list.is_array()) return field_error(field, "must be an array", shape.shape_rule);
  std::vector<tool_spec> tools;
  tools.reserve(list.size());
  std::set<std::string, std::less<>> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    auto tool = parse_tool(list[i], index_path(field, i), shape);
    if (!tool) return tool.error();
    if (!seen.insert(tool->name).second) return duplicate(tool->name, i);
    tools.push_back(std::move(*tool));
  }
  return tools;
}

//! A tool outcome from an object holding `content` or `error` (+ `reason`): CALL-4, TASK-4.
//! `path` prefixes member names ("" for a result body, "tool_results[i]" for a task item).
outcome<tool_outcome> parse_outcome(const json& object, const std::string& path,
                                    std::string_view rule) {
  const auto content = object.find("content");
  const auto error = object.find("error");
  const bool has_content = content != object.end();
  const bool has_error = error != object.end();
  if (has_content == has_error) {
    return field_error(path.empty() ? "body" : path, "must have exactly one of content or error",
                       rule);
  }
  // Why: `"content": null` is present content (JSON null), not an absent member.
  if (has_content) return tool_outcome{std::in_place_index<0>, *content};

  if (!error->is_string()) return field_error(member_path(path, "error"), "must be a string", rule);
  tool_error result{error->get<std::string>()};
  const auto reason = object.find("reason");
  if (reason != object.end()) {
    if (!reason->is_string() || reason->get_ref<const std::string&>().empty()) {
      return field_error(member_path(path, "reason"), "must be a non-empty string", rule);
    }
    result.reason = reason->get<std::string>();
  }
  return tool_outcome{std::in_place_index<1>, std::move(result)};
}

api_error not_an_object() {
  return invalid_request("body: must be a JSON object");
}

//! `{"type": "never"}` or `{"type": "ttl", "data": {"seconds": 1..86400}}` (section 3, REG-8).
outcome<lifetime> parse_lifetime(const json& value) {
  if (!value.is_object()) return field_error("lifetime", "must be an object", "REG-8");
  const auto type = value.find("type");
  if (type != value.end() && *type == "never") return lifetime{lifetime::kind::never, 0};
  if (type == value.end() || *type != "ttl") {
    return field_error("lifetime.type", "must be \"never\" or \"ttl\"", "REG-8");
  }
  const auto data = value.find("data");
  if (data == value.end() || !data->is_object()) {
    return field_error("lifetime.data", "must be an object", "REG-8");
  }
  const auto seconds_field = data->find("seconds");
  const auto seconds = seconds_field == data->end() ? std::nullopt : as_int64(*seconds_field);
  if (!seconds || *seconds < 1 || *seconds > max_ttl_seconds) {
    return field_error("lifetime.data.seconds", "must be an integer from 1 to 86400", "REG-8");
  }
  return lifetime{lifetime::kind::ttl, *seconds};
}

}  // namespace

bool is_valid_name(std::string_view name) {
  if (name.empty() || name.size() > max_name_length) return false;
  for (const char c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::optional<std::size_t> count_code_points(std::string_view utf8) {
  // Strict UTF-8 (RFC 3629), checked by the one validator every input goes through; then
  // each code point is the one byte of it that is not a continuation byte (10xxxxxx).
  if (first_invalid_utf8(utf8) != std::string_view::npos) return std::nullopt;
  return static_cast<std::size_t>(std::count_if(utf8.begin(), utf8.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

outcome<json> parse_json_body(std::string_view body) {
  return parse_untrusted_json(body, "body");
}

outcome<std::vector<tool_spec>> parse_tool_list(const json& list, std::string_view field) {
  return parse_tools(
      list, field, client_tool_shape, [field](const std::string& name, std::size_t index) {
        return field_error(
            field, "duplicate tool name '" + name + "' at " + index_path(field, index), "REG-3");
      });
}

outcome<register_request> parse_register_request(const json& body) {
  if (!body.is_object()) return not_an_object();
  register_request request;

  const auto name = body.find("name");
  if (name == body.end()) return field_error("name", "missing", "REG-1");
  if (!name->is_string()) return field_error("name", "must be a string", "REG-4");
  request.name = name->get<std::string>();
  // Why: allow_any_tool_name breaks REG-1 for tools only; client names keep REG-4.
  if (!is_valid_name(request.name)) return field_error("name", name_rule_text, "REG-4");

  const auto life = body.find("lifetime");
  if (life == body.end()) return field_error("lifetime", "missing", "REG-1");
  auto parsed_life = parse_lifetime(*life);
  if (!parsed_life) return parsed_life.error();
  request.lifetime = *parsed_life;

  const auto tools = body.find("tools");
  if (tools != body.end()) {
    auto parsed = parse_tool_list(*tools, "tools");
    if (!parsed) return parsed.error();
    request.tools = std::move(*parsed);
  }
  return request;
}

outcome<put_tools_request> parse_put_tools_request(const json& body) {
  if (!body.is_object()) return not_an_object();
  const auto tools = body.find("tools");
  if (tools == body.end()) return field_error("tools", "missing", "TOOLS-2");
  if (!tools->is_array()) return field_error("tools", "must be an array", "TOOLS-2");
  auto parsed = parse_tool_list(*tools, "tools");
  if (!parsed) return parsed.error();
  return put_tools_request{std::move(*parsed)};
}

outcome<result_request> parse_result_request(const json& body) {
  if (!body.is_object()) return not_an_object();
  auto parsed = parse_outcome(body, "", "CALL-4");
  if (!parsed) return parsed.error();
  return result_request{std::move(*parsed)};
}

outcome<message_request> parse_message_request(const json& body) {
  if (!body.is_object()) return not_an_object();
  const auto content = body.find("content");
  if (content == body.end()) return field_error("content", "missing", "SES-2");
  if (!content->is_string()) return field_error("content", "must be a string", "SES-2");
  return message_request{content->get<std::string>()};
}

outcome<task_create_request> parse_task_create_request(const json& body) {
  if (!body.is_object()) return not_an_object();
  task_create_request request;

  const auto assistant = body.find("assistant_id");
  if (assistant == body.end()) return field_error("assistant_id", "missing", "TASK-1");
  const auto assistant_id = as_int64(*assistant);
  if (!assistant_id) return field_error("assistant_id", "must be an integer", "TASK-1");
  request.assistant_id = *assistant_id;

  const auto input = body.find("input");
  if (input == body.end()) return field_error("input", "missing", "TASK-1");
  if (!input->is_array() || input->empty()) {
    return field_error("input", "must be a non-empty array", "TASK-1");
  }
  for (std::size_t i = 0; i < input->size(); ++i) {
    const auto& item = (*input)[i];
    const auto path = index_path("input", i);
    if (!item.is_object()) return field_error(path, "must be an object", "TASK-1");
    const auto type = item.find("type");
    if (type == item.end() || *type != "text") {
      return field_error(member_path(path, "type"), "must be \"text\"", "TASK-1");
    }
    const auto text = item.find("text");
    if (text == item.end()) return field_error(member_path(path, "text"), "missing", "TASK-1");
    if (!text->is_string()) {
      return field_error(member_path(path, "text"), "must be a string", "TASK-1");
    }
    request.input_texts.push_back(text->get<std::string>());
  }

  const auto tools = body.find("client_tools");
  if (tools != body.end()) {
    auto parsed = parse_tools(
        *tools, "client_tools", task_tool_shape, [](const std::string& name, std::size_t index) {
          return field_error(member_path(index_path("client_tools", index), "name"),
                             "duplicate tool name '" + name + "'", "TASK-1");
        });
    if (!parsed) return parsed.error();
    request.client_tools = std::move(*parsed);
  }
  return request;
}

outcome<tool_results_request> parse_tool_results_request(const json& body) {
  if (!body.is_object()) return not_an_object();
  const auto list = body.find("tool_results");
  if (list == body.end()) return field_error("tool_results", "missing", "TASK-4");
  if (!list->is_array()) return field_error("tool_results", "must be an array", "TASK-4");
  tool_results_request request;
  request.results.reserve(list->size());
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto& item = (*list)[i];
    const auto path = index_path("tool_results", i);
    if (!item.is_object()) return field_error(path, "must be an object", "TASK-4");
    const auto id = item.find("id");
    if (id == item.end()) return field_error(member_path(path, "id"), "missing", "TASK-4");
    if (!id->is_string()) {
      return field_error(member_path(path, "id"), "must be a string", "TASK-4");
    }
    auto parsed = parse_outcome(item, path, "TASK-4");
    if (!parsed) return parsed.error();
    request.results.push_back({id->get<std::string>(), std::move(*parsed)});
  }
  return request;
}

std::optional<std::uint64_t> parse_last_event_id(std::string_view text) {
  std::uint64_t value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

outcome<advance_request> parse_advance_request(const json& body) {
  if (!body.is_object()) return not_an_object();
  const auto ms = body.find("ms");
  if (ms == body.end()) return field_error("ms", "missing", "CLOCK-1");
  const auto value = as_int64(*ms);
  if (!value || *value < 0) return field_error("ms", "must be a non-negative integer", "CLOCK-1");
  return advance_request{*value};
}

outcome<std::string> parse_origin(std::string_view text) {
  const auto bad = [&](std::string_view why) -> outcome<std::string> {
    return invalid_request("origin '" + escape_bytes(text.substr(0, 80)) +
                           "': " + std::string(why) +
                           " (an origin is http://host[:port] or https://host[:port])");
  };
  std::string origin(text);
  for (auto& c : origin)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view rest = origin;
  std::string scheme;
  for (const std::string_view candidate : {"http", "https"}) {
    if (rest.starts_with(std::string(candidate) + "://")) scheme = candidate;
  }
  if (scheme.empty()) return bad("the scheme must be http or https");
  rest.remove_prefix(scheme.size() + 3);
  if (rest.ends_with('/')) rest.remove_suffix(1);
  if (rest.find_first_of("/?#") != std::string_view::npos) return bad("it has a path");
  if (rest.find('@') != std::string_view::npos) return bad("it has user info");
  std::string_view host = rest, port;
  if (rest.starts_with('[')) {
    const auto close = rest.find(']');
    if (close == std::string_view::npos) return bad("an IPv6 host needs its ']'");
    host = rest.substr(0, close + 1);
    const auto after = rest.substr(close + 1);
    if (!after.empty() && !after.starts_with(':')) return bad("something follows the host");
    if (!after.empty()) port = after.substr(1);
    if (host.find_first_not_of("[]0123456789abcdef:.") != std::string_view::npos)
      return bad("the IPv6 host is malformed");
  } else {
    const auto colon = rest.find(':');
    if (colon != std::string_view::npos) {
      host = rest.substr(0, colon);
      port = rest.substr(colon + 1);
    }
    if (host.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") != std::string_view::npos)
      return bad("the host may hold letters, digits, '.' and '-' only");
  }
  if (host.empty() || host == "[]") return bad("the host is missing");
  std::string serialized = scheme + "://" + std::string(host);
  if (rest.find(':', host.size()) != std::string_view::npos || !port.empty()) {
    unsigned number = 0;
    const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), number);
    if (port.empty() || error != std::errc() || end != port.data() + port.size() || number < 1 ||
        number > 65535)
      return bad("the port must be a number from 1 to 65535");
    const bool default_port =
        (scheme == "http" && number == 80) || (scheme == "https" && number == 443);
    if (!default_port) serialized += ":" + std::to_string(number);
  }
  return serialized;
}

}  // namespace toolwire::protocol
