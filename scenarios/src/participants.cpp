// Reading clients and task callers: behaviour presets first, then the knobs written out.
#include <string>
#include <utility>

#include "reading.hpp"
#include "timing.hpp"
#include "toolwire/scenarios/builders.hpp"

namespace toolwire::scenarios::detail {
namespace {

using scenarios::client_spec;

protocol::tool_spec read_tool(const value& v) {
  if (v.node.IsScalar()) return scenarios::build::tool(scalar_text(v.node));
  if (!v.node.IsMap()) {
    fail(v.line, "a tool is a name or {name, description, parameters}, got " + described(v.node));
  }
  const mapping m(v);
  m.allow_only(format::names(format::tool_keys()), "key", "of a tool");
  auto tool = scenarios::build::tool(as_string(required(m, format::tool_keys(), "name")));
  if (const auto* description = m.find("description")) tool.description = as_string(*description);
  if (const auto* parameters = m.find("parameters")) tool.parameters = as_json(parameters->node);
  return tool;
}

std::vector<scenarios::screen_change> read_screens(const value& v) {
  std::vector<scenarios::screen_change> screens;
  for (const auto& item : list_items(v)) {
    const mapping m(item);
    m.allow_only(format::names(format::screen_keys()), "key", "of a screen");
    scenarios::screen_change screen{as_time(required(m, format::screen_keys(), "at")), {}};
    if (const auto* tools = m.find("tools")) screen.tools = read_tools(*tools);
    screens.push_back(std::move(screen));
  }
  return screens;
}

protocol::lifetime read_lifetime(const value& v) {
  if (v.node.IsScalar() && scalar_text(v.node) == "never")
    return {protocol::lifetime::kind::never, 0};
  if (!v.node.IsMap()) {
    fail(v.line, "'lifetime' must be never or {ttl: seconds}, got " + described(v.node));
  }
  const mapping m(v);
  m.allow_only({"ttl"}, "key", "of a lifetime");
  return {protocol::lifetime::kind::ttl,
          as_integer(m.require("ttl", "seconds after the last ping"))};
}

//! The client before presets and knobs: its name, lifetime, tools and way of joining.
client_spec base_client(const std::string& actor, const mapping& m) {
  const auto* name = m.find("name");
  client_spec spec = scenarios::build::client(actor, name ? as_string(*name) : actor, {});
  if (const auto* tools = m.find("tools")) spec.tools = read_tools(*tools);
  if (const auto* lifetime = m.find("lifetime")) spec.lifetime = read_lifetime(*lifetime);
  const auto* join = m.find("join");
  const auto* presets = m.find("behaviour");
  if (join) spec.join_at = as_time(*join);
  // Why manual unless told otherwise: a client with neither presets nor `join` is one the
  // steps drive (register, ack, result); acting on its own too would spoil the script.
  if (!join && !(presets && presets->node.size() > 0)) {
    spec.auto_join = false;
    spec.acks = false;
    spec.answers = false;
  }
  return spec;
}

client_spec as_browser_tab(client_spec spec, const value& preset) {
  if (spec.lifetime.type != protocol::lifetime::kind::ttl) {
    fail(preset.line, "behaviour 'browser_tab' needs 'lifetime: {ttl: seconds}'");
  }
  spec.acks = true;
  spec.answers = true;
  const std::int64_t ttl_seconds = spec.lifetime.seconds;
  // Three pings per TTL: a tab that pings on time never expires.
  return scenarios::browser_tab(std::move(spec), ttl_seconds, ttl_seconds * 1'000 / 3);
}

client_spec as_backend_worker(client_spec spec, const value& preset) {
  if (spec.lifetime.type != protocol::lifetime::kind::never) {
    fail(preset.line, "behaviour 'backend_worker' has lifetime never; drop the ttl");
  }
  spec.acks = true;
  spec.answers = true;
  return scenarios::backend_worker(std::move(spec));
}

client_spec as_slow(client_spec spec, const value& preset, const mapping& m) {
  const auto* ack_delay = m.find("ack_delay");
  const auto* result_delay = m.find("result_delay");
  if (!ack_delay && !result_delay) {
    fail(preset.line, "behaviour 'slow' needs 'ack_delay' or 'result_delay'");
  }
  spec.acks = true;
  spec.answers = true;
  return scenarios::slow_client(std::move(spec), ack_delay ? as_time(*ack_delay) : 0,
                                result_delay ? as_time(*result_delay) : 0);
}

client_spec as_navigating_tab(client_spec spec, const value& preset, const mapping& m) {
  const auto* screens = m.find("screens");
  if (!screens) fail(preset.line, "behaviour 'navigating_tab' needs 'screens'");
  return scenarios::navigating_tab(std::move(spec), read_screens(*screens));
}

client_spec apply_preset(client_spec spec, const value& preset, const mapping& m) {
  const std::string name = as_string(preset);
  if (name == "browser_tab") return as_browser_tab(std::move(spec), preset);
  if (name == "backend_worker") return as_backend_worker(std::move(spec), preset);
  if (name == "slow") return as_slow(std::move(spec), preset, m);
  if (name == "navigating_tab") return as_navigating_tab(std::move(spec), preset, m);
  if (name == "forgetful") return scenarios::forgetful_client(std::move(spec));
  if (name == "duplicating" || name == "erroring") {
    spec.answers = true;  // a client that never answers could not answer twice or wrongly
    return name == "duplicating" ? scenarios::duplicating_client(std::move(spec))
                                 : scenarios::erroring_client(std::move(spec));
  }
  fail(preset.line, unknown("behaviour", name, format::names(format::presets())));
}

json json_of(const value& v) {
  return as_json(v.node);
}

//! Sets `field` from the key's value when the key is there.
template <typename Field, typename Reader>
void knob(const mapping& m, std::string_view key, Field& field, Reader read) {
  if (const auto* v = m.find(key)) field = read(*v);
}

//! The knobs written out; they override what the presets set.
void apply_knobs(client_spec& spec, const mapping& m) {
  knob(m, "ping_every", spec.ping_every, as_time);
  knob(m, "vanish_at", spec.vanish_at, as_time);
  knob(m, "leave_at", spec.leave_at, as_time);
  knob(m, "screens", spec.screens, read_screens);
  knob(m, "acks", spec.acks, as_boolean);
  knob(m, "ack_delay", spec.ack_delay, as_time);
  knob(m, "answers", spec.answers, as_boolean);
  knob(m, "result_delay", spec.result_delay, as_time);
  knob(m, "duplicate_result", spec.duplicate_result, as_boolean);
  knob(m, "error_result", spec.error_result, as_boolean);
  knob(m, "result_content", spec.result_content, json_of);
}

//! A `kind: browser` client: a real tab (docs/browser.md). Its page decides what it does
//! (pings every TTL/3, acks, answers, PUTs a screen's tools), so only its name and TTL
//! are the scenario's; the steps open, navigate, freeze and close it.
client_spec read_browser_client(const value& v, const mapping& m) {
  for (const auto& entry : m.entries()) {
    if (entry.name != "kind" && entry.name != "name" && entry.name != "lifetime" &&
        entry.name != "window") {
      fail(entry.key_line, "'" + entry.name + "' does not apply to browser client '" + v.name +
                               "': its page decides that; a browser client has kind, name, "
                               "lifetime: {ttl: seconds} and window");
    }
  }
  client_spec spec = base_client(v.name, m);
  if (const auto* window = m.find("window")) {
    spec.window = as_string(*window);
    if (spec.window.empty()) fail(window->line, "'window' names the tabs' shared window");
  }
  const auto* lifetime = m.find("lifetime");
  if (!lifetime || spec.lifetime.type != protocol::lifetime::kind::ttl) {
    fail(lifetime ? lifetime->line : v.key_line,
         "browser client '" + v.name + "' needs 'lifetime: {ttl: seconds}': a tab pings");
  }
  if (spec.lifetime.seconds < 1) fail(lifetime->line, "a browser tab's ttl is at least 1 second");
  spec.browser = true;
  spec.auto_join = false;  // an `open` step opens its tab
  spec.acks = spec.answers = false;
  // What the page's first screen (table) declares; each step's expectations name them.
  spec.tools = {scenarios::build::tool("highlight_row"), scenarios::build::tool("pick_date")};
  return spec;
}

client_spec read_client(const value& v) {
  if (v.name == "director") fail(v.key_line, "'director' is taken: name the client otherwise");
  const mapping m(v);
  m.allow_only(format::names(format::client_keys()), "key", "of client '" + v.name + "'");
  if (const auto* window = m.find("window"); window && !m.find("kind")) {
    fail(window->line, "'window' is a browser client's (kind: browser): client '" + v.name +
                           "' is an actor of the suite");
  }
  if (const auto* kind = m.find("kind")) {
    const std::string written = as_string(*kind);
    if (written != "browser") {
      fail(kind->line, "unknown client kind '" + written +
                           "': 'browser' (a real tab); without 'kind' the client is an actor of "
                           "the suite");
    }
    return read_browser_client(v, m);
  }
  client_spec spec = base_client(v.name, m);
  if (const auto* presets = m.find("behaviour")) {
    for (const auto& preset : list_items(*presets))
      spec = apply_preset(std::move(spec), preset, m);
  }
  apply_knobs(spec, m);
  return spec;
}

scenarios::task_caller_spec read_task_caller(const value& v) {
  if (v.name == "director") fail(v.key_line, "'director' is taken: name the caller otherwise");
  const mapping m(v);
  m.allow_only(format::names(format::task_caller_keys()), "key", "of task caller '" + v.name + "'");
  scenarios::task_caller_spec spec;
  spec.actor = v.name;
  knob(m, "start", spec.start_at, as_time);
  knob(m, "input", spec.input, as_string);
  knob(m, "tools", spec.client_tools, read_tools);
  knob(m, "poll_every", spec.poll_every, as_time);
  knob(m, "answer_delay", spec.answer_delay, as_time);
  knob(m, "error_results", spec.error_results, as_boolean);
  knob(m, "partial_results", spec.partial_results, as_boolean);
  knob(m, "repeat_results", spec.repeat_results, as_boolean);
  knob(m, "result_content", spec.result_content, json_of);
  return spec;
}

}  // namespace

std::vector<protocol::tool_spec> read_tools(const value& v) {
  std::vector<protocol::tool_spec> tools;
  for (const auto& item : list_items(v))
    tools.push_back(read_tool(item));
  return tools;
}

std::vector<scenarios::client_spec> read_clients(const value& v) {
  std::vector<client_spec> clients;
  const mapping by_actor(v);
  for (const auto& entry : by_actor.entries())
    clients.push_back(read_client(entry));
  return clients;
}

std::vector<scenarios::task_caller_spec> read_task_callers(const value& v) {
  std::vector<scenarios::task_caller_spec> callers;
  const mapping by_actor(v);
  for (const auto& entry : by_actor.entries())
    callers.push_back(read_task_caller(entry));
  return callers;
}

}  // namespace toolwire::scenarios::detail
