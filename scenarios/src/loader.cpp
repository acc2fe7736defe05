// The scenario loader: the file's top level, its settings and its model script; clients,
// task callers and steps have their own files.
#include "toolwire/scenarios/loader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "reading.hpp"
#include "timing.hpp"
#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/protocol/spec_rules.hpp"
#include "toolwire/reference_server/faults.hpp"
#include "toolwire/reference_server/model_script.hpp"

namespace toolwire::scenarios {
namespace detail {
namespace {

std::vector<std::string_view> spec_rule_ids() {
  std::vector<std::string_view> ids;
  for (const auto& rule : protocol::spec_rules())
    ids.push_back(rule.id);
  return ids;
}

std::vector<std::string_view> fault_names() {
  std::vector<std::string_view> names;
  for (const auto& info : reference_server::all_faults())
    names.push_back(info.name);
  return names;
}

std::vector<std::string> read_fault_names(const value& v) {
  std::vector<std::string> names;
  for (const auto& item : list_items(v)) {
    std::string name = as_string(item);
    if (!reference_server::parse_fault(name))
      fail(item.line, unknown("fault", name, fault_names()));
    names.push_back(std::move(name));
  }
  if (names.empty()) fail(v.line, "'breaks_with' must name a fault");
  return names;
}

std::string read_purpose(const value& v) {
  std::string purpose = as_string(v);
  while (!purpose.empty() && (purpose.back() == '\n' || purpose.back() == ' '))
    purpose.pop_back();
  if (purpose.find('\n') != std::string::npos) fail(v.line, "'purpose' must be one line");
  return purpose;
}

std::vector<scenarios::requirement> read_needs(const value& v) {
  const auto known = format::names(format::requirements());
  std::vector<scenarios::requirement> needs;
  for (const auto& item : list_items(v)) {
    std::string need = as_string(item);
    if (std::find(known.begin(), known.end(), need) == known.end()) {
      fail(item.line, unknown("requirement", need, known));
    }
    needs.push_back(std::move(need));
  }
  return needs;
}

void read_settings(const value& v, scenarios::scenario& plan) {
  const mapping m(v);
  m.allow_only(format::names(format::settings_keys()), "setting");
  // Why as_duration, not as_time: settings are the target's timeouts, what expressions
  // are resolved against; they are plain durations.
  if (const auto* t = m.find("ack_timeout")) {
    plan.ack_timeout_ms = as_duration(*t);
    plan.stated_ack_timeout_ms = plan.ack_timeout_ms;
  }
  if (const auto* t = m.find("result_timeout")) {
    plan.result_timeout_ms = as_duration(*t);
    plan.stated_result_timeout_ms = plan.result_timeout_ms;
  }
  if (const auto* t = m.find("interrupt_timeout")) {
    plan.interrupt_timeout_ms = as_duration(*t);
    plan.stated_interrupt_timeout_ms = plan.interrupt_timeout_ms;
  }
}

//! A model script step's `hold: 500ms` becomes `"hold_ms": 500` in its JSON. Fails on a
//! `hold_ms` written by hand, so that a step has one spelling.
void read_hold(const value& step, json& step_json) {
  if (!step.node.IsMap()) return;
  const mapping m(step);
  if (const auto* written = m.find("hold_ms")) {
    fail(written->key_line, unknown("key", "hold_ms", {"hold"}) + " in a model step");
  }
  const auto* hold = m.find("hold");
  if (!hold) return;
  step_json.erase("hold");
  step_json["hold_ms"] = as_time(*hold);
}

//! Walks rules[].steps[] of the YAML beside its JSON, converting holds. Shapes it does not
//! expect are left for model_script to report.
void read_holds(const YAML::Node& script, json& script_json) {
  if (!script.IsMap() || !script["rules"] || !script["rules"].IsSequence()) return;
  const YAML::Node rules = script["rules"];
  for (std::size_t r = 0; r < rules.size(); ++r) {
    const YAML::Node steps = rules[r].IsMap() ? rules[r]["steps"] : YAML::Node();
    if (!steps || !steps.IsSequence()) continue;
    for (std::size_t s = 0; s < steps.size(); ++s) {
      const int line = steps[s].Mark().line + 1;
      read_hold({"steps", steps[s], line, line}, script_json["rules"][r]["steps"][s]);
    }
  }
}

json read_model(const value& v, std::string_view source) {
  json script = as_json(v.node);
  read_holds(v.node, script);
  auto checked = reference_server::model_script::from_json(script, source);
  if (!checked) {
    // model_script's messages start "<source>: "; ours name the line of `model:`.
    std::string message = checked.error().message;
    const std::string prefix = std::string(source) + ": ";
    if (message.starts_with(prefix)) message.erase(0, prefix.size());
    fail(v.key_line, "model script: " + message);
  }
  return script;
}

//! The actor names steps may use. Fails on a name that is both a client's and a task
//! caller's, at whichever of the two comes later.
cast cast_of(const scenarios::scenario& plan, const mapping& top) {
  cast performers;
  for (const auto& client : plan.clients) {
    performers.clients.push_back(client.actor);
    if (client.browser) performers.browser_clients.push_back(client.actor);
  }
  for (const auto& caller : plan.task_callers)
    performers.task_callers.push_back(caller.actor);
  const auto* clients = top.find("clients");
  const auto* callers = top.find("task_callers");
  if (!clients || !callers) return performers;
  const mapping by_client(*clients);
  const mapping by_caller(*callers);
  for (const auto& client : by_client.entries()) {
    if (const auto* caller = by_caller.find(client.name)) {
      fail(std::max(client.key_line, caller->key_line),
           "'" + client.name + "' is both a client and a task caller");
    }
  }
  return performers;
}

//! The clients' TTLs, read ahead of the clients themselves so that any time (a `join`, a
//! step) may name them: `ttl(tab)`.
void read_ttls(const value& clients, time_context& context) {
  if (!clients.node.IsMap()) return;
  for (auto it = clients.node.begin(); it != clients.node.end(); ++it) {
    const YAML::Node lifetime = it->second.IsMap() ? it->second["lifetime"] : YAML::Node();
    if (!lifetime || !lifetime.IsMap() || !lifetime["ttl"] || !lifetime["ttl"].IsScalar()) continue;
    const json ttl = plain_scalar(scalar_text(lifetime["ttl"]));
    if (ttl.is_number_integer()) context.ttls[scalar_text(it->first)] = ttl.get<time_ms>() * 1000;
  }
}

scenarios::scenario read_scenario(const YAML::Node& root, std::string_view source,
                                  const timing* target) {
  const mapping top(value{"the scenario", root, 1, 1});
  top.allow_only(format::names(format::scenario_keys()));
  scenarios::scenario plan;
  const auto* name = top.find("name");
  plan.name = name ? as_string(*name) : std::filesystem::path(source).stem().string();
  plan.purpose = read_purpose(required(top, format::scenario_keys(), "purpose"));
  plan.spec_ids = read_spec_ids(required(top, format::scenario_keys(), "spec"));
  if (plan.spec_ids.empty()) fail(top.find("spec")->line, "'spec' must name a SPEC ID");
  if (const auto* v = top.find("breaks_with")) plan.breaks_with = read_fault_names(*v);
  if (const auto* v = top.find("needs")) plan.needs = read_needs(*v);
  if (const auto* v = top.find("settings")) read_settings(*v, plan);
  time_context context;
  if (target != nullptr) {
    // Why the target's timeouts win: a case states its deadlines relative to the target
    // (`ack_timeout - tol`), so one catalog runs against any timeouts.
    plan.ack_timeout_ms = target->ack_timeout_ms;
    plan.result_timeout_ms = target->result_timeout_ms;
    plan.interrupt_timeout_ms = target->interrupt_timeout_ms;
    context.target = *target;
    context.pace = pace_of(*target);
  } else {
    context.target.ack_timeout_ms = plan.ack_timeout_ms;
    context.target.result_timeout_ms = plan.result_timeout_ms;
    context.target.interrupt_timeout_ms = plan.interrupt_timeout_ms;
  }
  const time_scope scope(context);
  const auto read_timed_parts = [&] {
    if (const auto* v = top.find("clients")) read_ttls(*v, context);
    if (const auto* v = top.find("duration")) plan.duration = as_time(*v);
    if (const auto* v = top.find("clients")) plan.clients = read_clients(*v);
    if (const auto* v = top.find("task_callers")) plan.task_callers = read_task_callers(*v);
    if (const auto* v = top.find("model")) plan.model_script = read_model(*v, source);
    const cast performers = cast_of(plan, top);
    if (const auto* v = top.find("steps")) plan.steps = read_steps(*v, performers, source);
  };
  read_timed_parts();
  // A file bound to its settings: it states timeouts and no time of it names a deadline,
  // a TTL or the tolerance, so its times are instants written for those timeouts (a check
  // at 3999ms and one at 4s). Such a file is read as written, not paced; on a target with
  // other timeouts it is not applicable (not_applicable_reason), and on a real clock too
  // (exact timing), where the instants would read a correct target's jitter as violations.
  // A file that writes its times from the deadlines runs anywhere, whatever it states.
  const bool bound = (plan.stated_ack_timeout_ms || plan.stated_result_timeout_ms ||
                      plan.stated_interrupt_timeout_ms) &&
                     !context.named_a_deadline;
  if (bound && context.pace != 1.0) {
    context.pace = 1.0;
    context.labels.clear();
    context.precision_at.clear();
    read_timed_parts();
  }
  // A browser scenario keeps the timeouts it states: its tabs' TTLs are real seconds, and
  // a call must outlive a TTL for a closed tab to fail it (tab_closed_mid_call), so on a
  // target with other timeouts it is not applicable rather than misread.
  const bool has_browser = std::any_of(plan.clients.begin(), plan.clients.end(),
                                       [](const scenarios::client_spec& c) { return c.browser; });
  if (!bound && !has_browser) {
    plan.stated_ack_timeout_ms.reset();
    plan.stated_result_timeout_ms.reset();
    plan.stated_interrupt_timeout_ms.reset();
  }
  // Why a requirement: a tab pings on the wall clock and runs in Chromium, so the run needs
  // a target over HTTP on a real clock and the browser driver (not_applicable_reason).
  if (has_browser && !needs(plan, browser_tabs)) plan.needs.push_back(browser_tabs);
  if ((!context.precision_at.empty() || bound) && !needs(plan, exact_timing)) {
    plan.needs.push_back(exact_timing);
  }
  return plan;
}

protocol::api_error located(std::string_view source, int line, const std::string& problem) {
  return protocol::invalid_request(std::string(source) + ":" + std::to_string(line) + ": " +
                                   problem);
}

}  // namespace

const value& required(const mapping& m, const std::vector<format::key>& table,
                      std::string_view name) {
  return m.require(name, format::find(table, name).help);
}

std::vector<std::string> read_spec_ids(const value& v) {
  std::vector<std::string> ids;
  for (const auto& item : list_items(v)) {
    std::string id = as_string(item);
    if (!protocol::find_spec_rule(id)) fail(item.line, unknown("SPEC ID", id, spec_rule_ids()));
    ids.push_back(std::move(id));
  }
  return ids;
}

}  // namespace detail

double pace_of(const timing& target) {
  double pace = 1.0;
  pace = std::min(pace, static_cast<double>(target.ack_timeout_ms) / 10'000.0);
  pace = std::min(pace, static_cast<double>(target.result_timeout_ms) / 30'000.0);
  pace = std::min(pace, static_cast<double>(target.interrupt_timeout_ms) / 60'000.0);
  if (target.real_clock) pace = std::min(pace, 0.02);
  return std::max(pace, 0.0);
}

namespace {

protocol::outcome<scenarios::scenario> load(std::string_view text, std::string_view source,
                                            const timing* target) {
  // Why before YAML: yaml-cpp passes invalid UTF-8 through into strings, and a value that
  // holds it cannot be written back (to_yaml, traces, reports) without losing bytes.
  if (const auto bad = protocol::first_invalid_utf8(text); bad != std::string_view::npos) {
    const auto line =
        1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
    return detail::located(
        source, static_cast<int>(line),
        "not valid UTF-8 (byte " + protocol::escape_bytes(text.substr(bad, 1)) + ")");
  }
  try {
    return detail::read_scenario(YAML::Load(std::string(text)), source, target);
  } catch (const detail::load_error& error) {
    return detail::located(source, error.line, error.problem);
  } catch (const YAML::ParserException& error) {
    return detail::located(source, error.mark.line + 1, "YAML syntax error: " + error.msg);
  } catch (const std::exception& error) {
    // Why a catch-all: yaml-cpp and nlohmann may throw on input nobody foresaw; the
    // contract is an error value, never an exception.
    return protocol::invalid_request(std::string(source) + ": cannot read: " + error.what());
  }
}

protocol::outcome<std::string> read_whole(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error))
    return protocol::invalid_request(path + ": no such file");
  if (std::filesystem::is_directory(path, error)) {
    return protocol::invalid_request(path + ": is a directory, not a scenario file");
  }
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.is_open() || in.bad()) return protocol::invalid_request(path + ": cannot read the file");
  return text;
}

}  // namespace

protocol::outcome<scenarios::scenario> load_text(std::string_view text, std::string_view source) {
  return load(text, source, nullptr);
}

protocol::outcome<scenarios::scenario> load_text(std::string_view text, std::string_view source,
                                                 const timing& target) {
  return load(text, source, &target);
}

protocol::outcome<scenarios::scenario> load_file(const std::string& path) {
  auto text = read_whole(path);
  if (!text) return text.error();
  return load(*text, path, nullptr);
}

protocol::outcome<scenarios::scenario> load_file(const std::string& path, const timing& target) {
  auto text = read_whole(path);
  if (!text) return text.error();
  return load(*text, path, &target);
}

}  // namespace toolwire::scenarios
