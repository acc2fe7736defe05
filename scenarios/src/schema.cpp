// The scenario format's JSON Schema (draft 2020-12), generated from the vocabulary's
// actions and expectation kinds and the format's key tables, so it cannot drift from
// what the loader accepts.
#include <string>

#include "format.hpp"
#include "toolwire/protocol/routes.hpp"
#include "toolwire/protocol/spec_rules.hpp"
#include "toolwire/reference_server/faults.hpp"
#include "toolwire/scenarios/loader.hpp"
#include "toolwire/scenarios/vocabulary.hpp"

namespace toolwire::scenarios {
namespace {

using protocol::json;
namespace vocabulary = scenarios::vocabulary;

json ref(const std::string& def) {
  return {{"$ref", "#/$defs/" + def}};
}

json described(json schema, std::string_view help) {
  if (!help.empty()) schema["description"] = help;
  return schema;
}

json word_list(const std::vector<format::word>& words) {
  json names = json::array();
  for (const auto& w : words)
    names.push_back(w.name);
  return {{"type", "array"}, {"items", {{"enum", names}}}};
}

json fault_names() {
  json names = json::array();
  for (const auto& info : reference_server::all_faults())
    names.push_back(info.name);
  return {{"type", "array"}, {"items", {{"enum", names}}}};
}

json shape_schema(format::shape shape) {
  using enum format::shape;
  switch (shape) {
    case text:
    case actor:
      return {{"type", "string"}};
    case line:
      return {{"type", "string"}, {"pattern", "^[^\\n]*$"}};
    case integer:
      return {{"type", "integer"}};
    case boolean:
      return {{"type", "boolean"}};
    case duration:
      return ref("time");
    case json_value:
      return json::object();
    case spec_list:
      return ref("spec_ids");
    case requirement_list:
      return word_list(format::requirements());
    case fault_list:
      return fault_names();
    case tool_list:
      return ref("tools");
    case preset_list:
      return word_list(format::presets());
    case lifetime:
      return ref("lifetime");
    case screen_list:
      return {{"type", "array"}, {"items", ref("screen")}};
    case settings:
      return ref("settings");
    case clients:
      return {{"type", "object"}, {"additionalProperties", ref("client")}};
    case task_callers:
      return {{"type", "object"}, {"additionalProperties", ref("task_caller")}};
    case model:
      return ref("model_script");
    case steps:
      return {{"type", "array"}, {"items", ref("step")}};
    case expect:
      return {{"oneOf", {ref("expectation"), {{"type", "array"}, {"items", ref("expectation")}}}}};
  }
  return json::object();
}

//! An object of the format's own keys; `nullable` where an empty YAML value is allowed.
json keys_schema(const std::vector<format::key>& keys, bool nullable = false) {
  json properties = json::object();
  json required = json::array();
  for (const auto& k : keys) {
    properties[std::string(k.name)] = described(shape_schema(k.shape), k.help);
    if (k.required) required.push_back(k.name);
  }
  json schema = {{"type", nullable ? json{"object", "null"} : json("object")},
                 {"properties", properties},
                 {"additionalProperties", false}};
  if (!required.empty()) schema["required"] = required;
  return schema;
}

json field_schema(const vocabulary::field& f) {
  using enum vocabulary::field_type;
  json schema;
  switch (f.type) {
    case string:
      schema = {{"type", "string"}};
      break;
    case integer:
      schema = {{"type", "integer"}};
      break;
    case boolean:
      schema = {{"type", "boolean"}};
      break;
    case object:
      schema = {{"type", "object"}};
      break;
    case any:
      schema = json::object();
      break;
    case duration:
      schema = ref("time");
      break;
    case call_ref:
      schema = ref("call_ref");
      break;
    case tool_list:
      schema = ref("tools");
      break;
    case string_list:
      schema = {{"type", "array"}, {"items", {{"type", "string"}}}};
      break;
    case route: {
      json shown = json::array();
      for (const auto& r : protocol::routes())
        shown.push_back(protocol::route_shown(r.id));
      schema = {{"type", "string"}, {"enum", shown}};
      break;
    }
    case list:
      schema = {{"type", "array"}, {"items", {{"type", "object"}}}};
      break;
  }
  return described(schema, f.help);
}

//! An action's or expectation kind's fields; `open` lets other keys through as data.
json fields_schema(const std::vector<vocabulary::field>& fields, bool open, std::string_view help) {
  json properties = json::object();
  json required = json::array();
  for (const auto& f : fields) {
    properties[std::string(f.name)] = field_schema(f);
    if (f.required) required.push_back(f.name);
  }
  // Why null is allowed only without required fields: `ping:` with nothing after it is
  // an action with no fields, which a schema can only accept as null.
  json schema = {{"type", required.empty() ? json{"object", "null"} : json("object")},
                 {"properties", properties},
                 {"additionalProperties", open}};
  if (!required.empty()) schema["required"] = required;
  return described(schema, help);
}

std::string performed_by(vocabulary::performer by) {
  switch (by) {
    case vocabulary::performer::client:
      return " Done by a client: name it with `actor`.";
    case vocabulary::performer::director:
      return " Done by the director.";
    case vocabulary::performer::any:
      return " Done by the director, or by the `actor` named.";
    case vocabulary::performer::browser:
      return " Done by a browser client (`kind: browser`) in its tab: name it with `actor`.";
  }
  return "";
}

json requires_key(std::string_view key) {
  return {{"required", {key}}};
}

//! A step: its own keys and at most one action key.
json step_schema() {
  json schema = keys_schema(format::step_keys());
  json any_action = json::array();
  json exactly_one = json::array();
  for (const auto& a : vocabulary::actions()) {
    schema["properties"][std::string(a.name)] =
        fields_schema(a.fields, false, std::string(a.help) + "." + performed_by(a.by));
    any_action.push_back(requires_key(a.name));
    exactly_one.push_back(requires_key(a.name));
  }
  exactly_one.push_back({{"not", {{"anyOf", any_action}}}});  // a step that only checks
  schema["oneOf"] = exactly_one;
  schema["not"] = {{"required", {"at", "after"}}};
  return schema;
}

//! An expectation: `spec`, and either the response's fields or one other kind.
json expectation_schema() {
  json schema = keys_schema(format::expectation_keys());
  json one_kind = json::array();
  for (const auto& kind : vocabulary::expectation_kinds()) {
    if (!kind.about_the_response) {
      schema["properties"][std::string(kind.name)] =
          fields_schema(kind.fields, kind.open, kind.help);
      one_kind.push_back(requires_key(kind.name));
      continue;
    }
    json response_keys = json::array();
    for (const auto& f : kind.fields) {
      schema["properties"][std::string(f.name)] = field_schema(f);
      response_keys.push_back(requires_key(f.name));
    }
    one_kind.push_back({{"anyOf", response_keys}});
  }
  schema["oneOf"] = one_kind;
  return schema;
}

json model_script_schema() {
  const json tool_call = {{"type", "object"},
                          {"required", {"name"}},
                          {"additionalProperties", false},
                          {"properties",
                           {{"name", {{"type", "string"}, {"minLength", 1}}},
                            {"arguments", {{"description", "the call's arguments (JSON)"}}}}}};
  const json step = {
      {"type", "object"},
      {"additionalProperties", false},
      {"anyOf", {requires_key("content"), requires_key("tool_calls")}},
      {"properties",
       {{"content", {{"type", "string"}, {"description", "the model's text"}}},
        {"tool_calls", {{"type", "array"}, {"minItems", 1}, {"items", tool_call}}},
        {"hold", described(ref("duration"), "the model answers this long after it is asked")}}}};
  const json rule = {{"type", "object"},
                     {"required", {"steps"}},
                     {"additionalProperties", false},
                     {"properties",
                      {{"match",
                        {{"type", {"string", "null"}},
                         {"description", "a substring of the first user message; empty: any"}}},
                       {"steps", {{"type", "array"}, {"items", step}}}}}};
  return {{"type", "object"},
          {"required", {"rules"}},
          {"additionalProperties", false},
          {"properties", {{"rules", {{"type", "array"}, {"items", rule}}}}}};
}

json spec_id_schema() {
  json ids = json::array();
  for (const auto& rule : protocol::spec_rules())
    ids.push_back(rule.id);
  return {{"enum", ids}};
}

//! Settings are the timeouts expressions resolve against: plain durations only.
json settings_schema() {
  json schema = keys_schema(format::settings_keys());
  for (auto& property : schema["properties"].items())
    property.value()["$ref"] = "#/$defs/duration";
  return schema;
}

json definitions() {
  return {
      {"duration",
       {{"description", "500ms, 12s, 2m, 1h or an integer of milliseconds"},
        {"anyOf",
         {{{"type", "integer"}, {"minimum", 0}},
          {{"type", "string"}, {"pattern", "^[0-9]+(ms|s|m|h)?$"}}}}}},
      {"time",
       {{"description",
         "a duration (500ms, 12s, 2m, 1h, integer ms) or an expression over the target's "
         "timeouts, the clients' TTLs and the tolerance: 'ack_timeout - tol', "
         "'ttl(tab) + 1s', '2*tol' (docs/scenario-language.md, Time)"},
        {"anyOf",
         {{{"type", "integer"}, {"minimum", 0}},
          {{"type", "string"},
           {"pattern",
            "^ *([0-9]+ *\\* *)?([0-9]+(ms|s|m|h)?|ack_timeout|result_timeout|interrupt_timeout|"
            "tol|ttl(\\([^()]+\\))?)( *[-+] *([0-9]+ *\\* *)?([0-9]+(ms|s|m|h)?|ack_timeout|"
            "result_timeout|interrupt_timeout|tol|ttl(\\([^()]+\\))?))* *$"}}}}}},
      {"spec_id", spec_id_schema()},
      {"spec_ids", {{"type", "array"}, {"items", ref("spec_id")}}},
      {"call_ref",
       {{"description", "the n-th dispatched call (1-based) or a tool name"},
        {"oneOf", {{{"type", "integer"}}, {{"type", "string"}}}}}},
      {"tool",
       {{"description", "a tool name (with the default description and parameters), or a tool"},
        {"oneOf", {{{"type", "string"}}, keys_schema(format::tool_keys())}}}},
      {"tools", {{"type", "array"}, {"items", ref("tool")}}},
      {"lifetime",
       {{"oneOf",
         {{{"const", "never"}},
          {{"type", "object"},
           {"required", {"ttl"}},
           {"additionalProperties", false},
           {"properties", {{"ttl", {{"type", "integer"}, {"description", "seconds"}}}}}}}}}},
      {"screen", keys_schema(format::screen_keys())},
      {"settings", settings_schema()},
      {"client", keys_schema(format::client_keys(), true)},
      {"task_caller", keys_schema(format::task_caller_keys(), true)},
      {"model_script", model_script_schema()},
      {"step", step_schema()},
      {"expectation", expectation_schema()},
  };
}

}  // namespace

json json_schema() {
  json schema = {
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"title", "toolwire scenario"},
      {"description", "A scenario of the toolwire simulator (docs/scenario-language.md)"}};
  schema.update(keys_schema(format::scenario_keys()));
  schema["$defs"] = definitions();
  return schema;
}

}  // namespace toolwire::scenarios
