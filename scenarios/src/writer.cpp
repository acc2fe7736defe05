// Writing a scenario in the scenario language: the loader's inverse. The scenario is
// first turned into the JSON shape of its YAML (durations as "5s", tools as names where
// the defaults hold, keys in the order people read them), then emitted.
#include <algorithm>
#include <string>
#include <utility>

#include "format.hpp"
#include "toolwire/scenarios/builders.hpp"
#include "toolwire/scenarios/loader.hpp"
#include "toolwire/scenarios/vocabulary.hpp"
#include "yaml_reader.hpp"

namespace toolwire::scenarios {
namespace {

using detail::format_duration;
using ordered = nlohmann::ordered_json;
using protocol::json;
using protocol::time_ms;
namespace vocabulary = scenarios::vocabulary;

// -- emitting ------------------------------------------------------------------------------

void emit(YAML::Emitter& out, const ordered& node, int depth);

//! Why the quotes: the loader reads a plain `12`, `true` or `~` as a number, a boolean or
//! null; a string that looks like one must be quoted to come back a string.
void emit_string(YAML::Emitter& out, const std::string& text) {
  if (!detail::plain_scalar(text).is_string()) out << YAML::DoubleQuoted;
  out << text;
}

//! Short collections deep in the document, and short lists of words, read best on one
//! line; sections, clients and steps stay in block style.
bool flows(const ordered& node, int depth) {
  if (node.empty()) return true;
  const bool short_enough = node.dump().size() <= 64;
  const bool all_scalars = std::none_of(node.begin(), node.end(),
                                        [](const ordered& item) { return item.is_structured(); });
  return short_enough && (depth >= 3 || (node.is_array() && all_scalars));
}

void emit_map(YAML::Emitter& out, const ordered& node, int depth) {
  if (flows(node, depth)) out << YAML::Flow;
  out << YAML::BeginMap;
  for (const auto& [key, item] : node.items()) {
    out << YAML::Key;
    emit_string(out, key);
    out << YAML::Value;
    emit(out, item, depth + 1);
  }
  out << YAML::EndMap;
}

void emit_list(YAML::Emitter& out, const ordered& node, int depth) {
  if (flows(node, depth)) out << YAML::Flow;
  out << YAML::BeginSeq;
  for (const auto& item : node)
    emit(out, item, depth + 1);
  out << YAML::EndSeq;
}

void emit(YAML::Emitter& out, const ordered& node, int depth) {
  if (node.is_object()) return emit_map(out, node, depth);
  if (node.is_array()) return emit_list(out, node, depth);
  if (node.is_string()) return emit_string(out, node.get<std::string>());
  if (node.is_null()) {
    out << YAML::Null;
    return;
  }
  out << node.dump();  // numbers and booleans, spelt as JSON spells them
}

// -- the YAML shape ------------------------------------------------------------------------

//! `object`'s keys, those named in `first` first, in that order.
ordered in_order(const json& object, const std::vector<std::string_view>& first) {
  ordered result = ordered::object();
  for (const auto name : first) {
    const std::string key(name);
    if (object.contains(key)) result[key] = object[key];
  }
  for (const auto& [key, item] : object.items()) {
    if (!result.contains(key)) result[key] = item;
  }
  return result;
}

//! A duration as the format spells it: "5s", "1500ms".
ordered spelt(time_ms ms) {
  return format_duration(ms);
}

//! A tool as written: its name alone when the rest is build::tool's defaults.
ordered tool_form(const protocol::tool_spec& tool) {
  const auto defaults = scenarios::build::tool(tool.name);
  if (tool == defaults) return tool.name;
  ordered form = {{"name", tool.name}};
  if (tool.description != defaults.description) form["description"] = tool.description;
  if (tool.parameters != defaults.parameters) form["parameters"] = tool.parameters;
  return form;
}

ordered tools_form(const std::vector<protocol::tool_spec>& tools) {
  ordered list = ordered::array();
  for (const auto& tool : tools)
    list.push_back(tool_form(tool));
  return list;
}

//! A tool list from a request's args. An item of another shape than the loader makes is
//! written as it is.
ordered tool_list_form(const json& tools, const std::string& schema_key) {
  if (!tools.is_array()) return tools;
  ordered list = ordered::array();
  for (const auto& item : tools) {
    const bool loader_shape =
        item.is_object() && item.size() == 3 && item.value("name", json()).is_string() &&
        item.value("description", json()).is_string() && item.contains(schema_key);
    list.push_back(loader_shape
                       ? tool_form({item["name"].get<std::string>(),
                                    item["description"].get<std::string>(), item[schema_key]})
                       : ordered(item));
  }
  return list;
}

ordered header_form(const scenarios::scenario& plan) {
  const scenarios::scenario defaults;
  ordered form = {{"name", plan.name}, {"purpose", plan.purpose}, {"spec", plan.spec_ids}};
  if (!plan.breaks_with.empty()) form["breaks_with"] = plan.breaks_with;
  if (!plan.needs.empty()) form["needs"] = plan.needs;
  if (plan.duration != defaults.duration) form["duration"] = spelt(plan.duration);
  ordered settings = ordered::object();
  if (plan.ack_timeout_ms != defaults.ack_timeout_ms) {
    settings["ack_timeout"] = spelt(plan.ack_timeout_ms);
  }
  if (plan.result_timeout_ms != defaults.result_timeout_ms) {
    settings["result_timeout"] = spelt(plan.result_timeout_ms);
  }
  if (plan.interrupt_timeout_ms != defaults.interrupt_timeout_ms) {
    settings["interrupt_timeout"] = spelt(plan.interrupt_timeout_ms);
  }
  if (!settings.empty()) form["settings"] = settings;
  return form;
}

ordered screens_form(const std::vector<scenarios::screen_change>& screens) {
  ordered list = ordered::array();
  for (const auto& screen : screens)
    list.push_back({{"at", spelt(screen.at)}, {"tools", tools_form(screen.tools)}});
  return list;
}

//! A client with every knob written out, never as presets: `join` makes it one that acts
//! by itself, whose knobs default as client_spec's do; without it the knobs default to
//! a client the steps drive (no acks, no answers).
ordered client_form(const scenarios::client_spec& client) {
  scenarios::client_spec base;
  if (client.browser) {
    // A tab's page decides the rest; the reader sets it from `kind` alone.
    ordered tab = {{"kind", "browser"}};
    if (client.requested_name != client.actor) tab["name"] = client.requested_name;
    tab["lifetime"] = ordered{{"ttl", client.lifetime.seconds}};
    return tab;
  }
  ordered form = ordered::object();
  if (client.requested_name != client.actor) form["name"] = client.requested_name;
  form["lifetime"] = client.lifetime.type == protocol::lifetime::kind::never
                         ? ordered("never")
                         : ordered{{"ttl", client.lifetime.seconds}};
  if (!client.tools.empty()) form["tools"] = tools_form(client.tools);
  if (client.auto_join) {
    form["join"] = spelt(client.join_at);
  } else {
    base.acks = false;
    base.answers = false;
  }
  if (client.ping_every) form["ping_every"] = spelt(*client.ping_every);
  if (client.vanish_at) form["vanish_at"] = spelt(*client.vanish_at);
  if (client.leave_at) form["leave_at"] = spelt(*client.leave_at);
  if (!client.screens.empty()) form["screens"] = screens_form(client.screens);
  if (client.acks != base.acks) form["acks"] = client.acks;
  if (client.ack_delay != base.ack_delay) form["ack_delay"] = spelt(client.ack_delay);
  if (client.answers != base.answers) form["answers"] = client.answers;
  if (client.result_delay != base.result_delay) form["result_delay"] = spelt(client.result_delay);
  if (client.duplicate_result) form["duplicate_result"] = true;
  if (client.error_result) form["error_result"] = true;
  if (client.result_content != base.result_content) form["result_content"] = client.result_content;
  return form;
}

ordered task_caller_form(const scenarios::task_caller_spec& caller) {
  const scenarios::task_caller_spec base;
  ordered form = ordered::object();
  if (caller.start_at != base.start_at) form["start"] = spelt(caller.start_at);
  form["input"] = caller.input;
  if (!caller.client_tools.empty()) form["tools"] = tools_form(caller.client_tools);
  if (caller.poll_every != base.poll_every) form["poll_every"] = spelt(caller.poll_every);
  if (caller.answer_delay != base.answer_delay) form["answer_delay"] = spelt(caller.answer_delay);
  if (caller.error_results) form["error_results"] = true;
  if (caller.partial_results) form["partial_results"] = true;
  if (caller.repeat_results) form["repeat_results"] = true;
  if (caller.result_content != base.result_content) form["result_content"] = caller.result_content;
  return form;
}

//! A model step: text first, then its calls (each name first), then how long it holds.
ordered model_step_form(json step) {
  if (step.contains("hold_ms") && step["hold_ms"].is_number_integer()) {
    step["hold"] = format_duration(step["hold_ms"].get<time_ms>());
    step.erase("hold_ms");
  }
  ordered form = in_order(step, {"content", "tool_calls", "hold"});
  if (!step.contains("tool_calls") || !step["tool_calls"].is_array()) return form;
  ordered calls = ordered::array();
  for (const auto& call : step["tool_calls"])
    calls.push_back(call.is_object() ? in_order(call, {"name", "arguments"}) : ordered(call));
  form["tool_calls"] = calls;
  return form;
}

ordered rule_form(const json& rule) {
  if (!rule.is_object()) return rule;
  ordered form = in_order(rule, {"match", "steps"});
  if (!rule.contains("steps") || !rule["steps"].is_array()) return form;
  ordered steps = ordered::array();
  for (const auto& step : rule["steps"])
    steps.push_back(step.is_object() ? model_step_form(step) : ordered(step));
  form["steps"] = steps;
  return form;
}

//! The model script with each step's `hold_ms` written back as `hold`.
ordered model_form(const json& script) {
  if (!script.is_object() || !script.contains("rules") || !script["rules"].is_array()) {
    return script;
  }
  ordered form = in_order(script, {"rules"});
  ordered rules = ordered::array();
  for (const auto& rule : script["rules"])
    rules.push_back(rule_form(rule));
  form["rules"] = rules;
  return form;
}

std::vector<std::string_view> field_names(const std::vector<vocabulary::field>& fields) {
  std::vector<std::string_view> names;
  for (const auto& f : fields)
    names.push_back(f.name);
  return names;
}

//! An action's args as written: durations spelt out, tools as the loader reads them.
ordered args_form(const std::string& action_name, const json& args) {
  const auto* action = vocabulary::find_action(action_name);
  if (!action) return args;
  ordered form = in_order(args, field_names(action->fields));
  for (const auto& f : action->fields) {
    const std::string key(f.name);
    if (!form.contains(key)) continue;
    if (f.type == vocabulary::field_type::duration && args[key].is_number_integer()) {
      form[key] = spelt(args[key].get<time_ms>());
    }
    if (f.type == vocabulary::field_type::tool_list) {
      form[key] = tool_list_form(args[key], action->id == vocabulary::action_id::create_task
                                                ? "input_schema"
                                                : "parameters");
    }
  }
  return form;
}

ordered expectation_form(const scenarios::expectation& e) {
  const auto* kind = vocabulary::find_expectation(e.kind);
  const auto fields = kind ? field_names(kind->fields) : std::vector<std::string_view>{};
  ordered form = ordered::object();
  if (kind && kind->about_the_response) {
    form = in_order(e.args, fields);
  } else {
    form[e.kind] = in_order(e.args, fields);
  }
  form["spec"] = e.spec_ids;
  return form;
}

ordered step_form(const scenarios::scripted_step& step) {
  ordered form = {{"at", spelt(step.at)}};
  if (step.actor != "director") form["actor"] = step.actor;
  if (!step.action.empty()) form[step.action] = args_form(step.action, step.args);
  if (!step.expect.empty()) {
    ordered expect = ordered::array();
    for (const auto& e : step.expect)
      expect.push_back(expectation_form(e));
    form["expect"] = expect;
  }
  return form;
}

ordered scenario_form(const scenarios::scenario& plan) {
  ordered form = header_form(plan);
  if (!plan.clients.empty()) {
    ordered clients = ordered::object();
    for (const auto& client : plan.clients)
      clients[client.actor] = client_form(client);
    form["clients"] = clients;
  }
  if (!plan.task_callers.empty()) {
    ordered callers = ordered::object();
    for (const auto& caller : plan.task_callers)
      callers[caller.actor] = task_caller_form(caller);
    form["task_callers"] = callers;
  }
  if (plan.model_script != scenarios::scenario{}.model_script)
    form["model"] = model_form(plan.model_script);
  if (!plan.steps.empty()) {
    ordered steps = ordered::array();
    for (const auto& step : plan.steps)
      steps.push_back(step_form(step));
    form["steps"] = steps;
  }
  return form;
}

}  // namespace

std::string to_yaml(const scenarios::scenario& plan) {
  YAML::Emitter out;
  out.SetIndent(2);
  emit(out, scenario_form(plan), 0);
  return std::string(out.c_str()) + "\n";
}

}  // namespace toolwire::scenarios
