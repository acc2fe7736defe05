// Reading steps: the time, the actor and its action (checked against the vocabulary), and
// what the step expects.
#include <algorithm>
#include <string>
#include <utility>

#include "reading.hpp"
#include "timing.hpp"
#include "toolwire/protocol/routes.hpp"
#include "toolwire/scenarios/vocabulary.hpp"

namespace toolwire::scenarios::detail {
namespace {

namespace vocabulary = scenarios::vocabulary;
using scenarios::expectation;
using scenarios::scripted_step;
using vocabulary::field;

std::vector<std::string_view> field_names(const std::vector<field>& fields) {
  std::vector<std::string_view> names;
  for (const auto& f : fields)
    names.push_back(f.name);
  return names;
}

bool is_step_key(std::string_view key) {
  const auto keys = format::names(format::step_keys());
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

//! The words a step may hold: its own keys and every action.
std::vector<std::string_view> step_words() {
  auto words = format::names(format::step_keys());
  for (const auto& a : vocabulary::actions())
    words.push_back(a.name);
  return words;
}

//! The words an expectation item may hold: `spec`, the response's fields and the other
//! kinds (a response is written by its fields, never as `response:`).
std::vector<std::string_view> expectation_words() {
  auto words = format::names(format::expectation_keys());
  for (const auto& kind : vocabulary::expectation_kinds()) {
    if (kind.about_the_response) {
      for (const auto& f : kind.fields)
        words.push_back(f.name);
    } else {
      words.push_back(kind.name);
    }
  }
  return words;
}

json read_call_ref(const value& v) {
  json reading = as_json(v.node);
  if (!reading.is_number_integer() && !reading.is_string()) {
    fail(v.line, "'" + v.name + "' must be a call number or a tool name, got " + described(v.node));
  }
  return reading;
}

//! Tools as the request carries them. Why the key differs: tasks call a tool's schema
//! `input_schema` (TASK-1), clients `parameters` (REG-1).
json read_tool_list(const value& v, std::string_view schema_key) {
  json list = json::array();
  for (const auto& tool : read_tools(v)) {
    list.push_back({{"name", tool.name},
                    {"description", tool.description},
                    {std::string(schema_key), tool.parameters}});
  }
  return list;
}

json read_object_list(const value& v) {
  json list = json::array();
  for (const auto& item : list_items(v))
    list.push_back(as_object(item));
  return list;
}

//! A route as its table spells it ("POST /api/tasks/{uuid}/tool-results").
json read_route(const value& v) {
  const std::string text = as_string(v);
  std::vector<std::string> known;
  for (const auto& r : protocol::routes()) {
    known.push_back(protocol::route_shown(r.id));
    if (known.back() == text) return text;
  }
  std::string list;
  for (const auto& k : known)
    list += "\n  " + k;
  fail(v.line, "'" + v.name + "': no route '" + text + "'; the routes are:" + list);
}

json read_field(const value& v, const field& f, std::string_view owner) {
  using enum vocabulary::field_type;
  switch (f.type) {
    case string:
      return as_string(v);
    case integer:
      return as_integer(v);
    case boolean:
      return as_boolean(v);
    case object:
      return as_object(v);
    case any:
      return as_json(v.node);
    case duration:
      return as_time(v);
    case call_ref:
      return read_call_ref(v);
    case tool_list:
      return read_tool_list(v, vocabulary::action_named(owner) == vocabulary::action_id::create_task
                                   ? "input_schema"
                                   : "parameters");
    case string_list:
      return as_string_list(v);
    case route:
      return read_route(v);
    case list:
      return read_object_list(v);
  }
  return nullptr;
}

//! `m` read as `owner`'s fields. An open owner (event matchers) takes other keys as data.
json read_fields(const mapping& m, const std::vector<field>& fields, const std::string& owner,
                 bool open) {
  if (!open) m.allow_only(field_names(fields), "field", "of '" + owner + "'");
  json args = json::object();
  for (const auto& f : fields) {
    const auto* v = m.find(f.name);
    if (v) {
      args[std::string(f.name)] = read_field(*v, f, owner);
    } else if (f.required) {
      fail(m.line(), "'" + owner + "' is missing '" + std::string(f.name) + "' (" +
                         std::string(f.help) + ")");
    }
  }
  if (open) {
    for (const auto& entry : m.entries()) {
      if (!args.contains(entry.name)) args[entry.name] = as_json(entry.node);
    }
  }
  return args;
}

//! The one expectation kind an item's keys name; fails on none, two, or an unknown key.
const vocabulary::expectation_kind& kind_of(const mapping& m) {
  const vocabulary::expectation_kind* kind = nullptr;
  const value* named_by = nullptr;
  const auto words = expectation_words();
  for (const auto& entry : m.entries()) {
    if (entry.name == "spec") continue;
    const auto* found = vocabulary::expectation_of_key(entry.name);
    if (!found || std::find(words.begin(), words.end(), entry.name) == words.end()) {
      fail(entry.key_line, unknown("expectation", entry.name, words));
    }
    if (kind && found != kind) {
      fail(entry.key_line, "an expectation checks one thing: make '" + named_by->name + "' and '" +
                               entry.name + "' two items");
    }
    kind = found;
    named_by = &entry;
  }
  if (!kind) fail(m.line(), "an expectation needs something to check, e.g. 'status' or 'event'");
  return *kind;
}

json read_response(const mapping& m, const vocabulary::expectation_kind& kind) {
  json args = json::object();
  for (const auto& f : kind.fields) {
    if (const auto* v = m.find(f.name)) args[std::string(f.name)] = read_field(*v, f, kind.name);
  }
  if (args.contains("cors") && args["cors"] != "allowed" && args["cors"] != "refused") {
    fail(m.find("cors")->line, "cors: write allowed or refused, not " + args["cors"].dump());
  }
  return args;
}

//! Reads steps in order, keeping the clock: a step's time, and how far an advance moved it.
class step_reader {
 public:
  step_reader(const cast& performers, std::string_view source)
      : cast_(performers), source_(source) {}

  scripted_step read(const value& item) {
    const mapping m(item);
    scripted_step step;
    step.where = where(item.line);
    step.at = resolve_time(m);
    if (const auto* label = m.find("label")) name_time(*label, step.at);
    step.actor = read_actor(m);
    read_action(m, step);
    learn_ttl(step);
    if (step.performs(vocabulary::action_id::request) && step.args.contains("body")) {
      step.args["body"] = with_times(step.args["body"], item.line);
    }
    step.expect = read_expectations(m, !step.action.empty());
    advanced_ = step.performs(vocabulary::action_id::advance);
    now_ = step.at + (advanced_ ? step.args["by"].get<time_ms>() : 0);
    return step;
  }

 private:
  std::string where(int line) const { return source_ + ":" + std::to_string(line); }

  //! A step's `label`: later times may name its time (`at: posted + ack_timeout + tol`).
  static void name_time(const value& label, time_ms at) {
    const std::string name = as_string(label);
    static const std::vector<std::string_view> reserved = {"ack_timeout", "result_timeout",
                                                           "interrupt_timeout", "ttl", "tol"};
    const bool identifier = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    if (!identifier || std::find(reserved.begin(), reserved.end(), name) != reserved.end()) {
      fail(label.line,
           "a label is a word of a-z, 0-9 and _ other than ack_timeout, "
           "result_timeout, interrupt_timeout, ttl and tol, got '" +
               name + "'");
    }
    auto& labels = current_time().labels;
    if (labels.count(name) != 0) fail(label.line, "the label '" + name + "' is taken");
    labels[name] = at;
  }

  //! A `register` with a TTL: later times may name it as ttl(actor).
  static void learn_ttl(const scripted_step& step) {
    if (!step.performs(vocabulary::action_id::register_client)) return;
    const json lifetime = step.args.value("lifetime", json());
    if (lifetime.is_object() && lifetime.value("ttl", json()).is_number_integer()) {
      current_time().ttls[step.actor] = lifetime["ttl"].get<time_ms>() * 1000;
    }
  }

  //! A request body with every `{time: EXPR}` replaced by its milliseconds, for bodies that
  //! carry a time (e.g. the clock routes' `{ms: {time: ack_timeout + 1s}}`).
  static json with_times(const json& body, int line) {
    if (body.is_object() && body.size() == 1 && body.contains("time")) {
      const json& expr = body["time"];
      if (expr.is_number_integer()) return time_of(std::to_string(expr.get<time_ms>()), line);
      if (expr.is_string()) return time_of(expr.get<std::string>(), line);
    }
    json out = body;
    if (out.is_object()) {
      for (auto& item : out.items())
        item.value() = with_times(item.value(), line);
    } else if (out.is_array()) {
      for (auto& item : out)
        item = with_times(item, line);
    }
    return out;
  }

  bool is_client(const std::string& name) const {
    return std::find(cast_.clients.begin(), cast_.clients.end(), name) != cast_.clients.end();
  }

  bool is_browser_client(const std::string& name) const {
    const auto& tabs = cast_.browser_clients;
    return std::find(tabs.begin(), tabs.end(), name) != tabs.end();
  }

  bool is_task_caller(const std::string& name) const {
    const auto& callers = cast_.task_callers;
    return std::find(callers.begin(), callers.end(), name) != callers.end();
  }

  time_ms resolve_time(const mapping& m) const {
    const auto* at = m.find("at");
    const auto* after = m.find("after");
    if (at && after) fail(after->key_line, "a step has 'at' or 'after', not both");
    if (after) return now_ + as_time(*after);
    if (!at) return now_;
    const time_ms time = as_time(*at);
    if (time < now_) {
      fail(at->line, "time goes backwards: 'at: " + scalar_text(at->node) + "' is before " +
                         format_duration(now_) +
                         (advanced_ ? ", where the advance before it moved the clock"
                                    : ", the time of the step before it"));
    }
    return time;
  }

  std::string read_actor(const mapping& m) const {
    const auto* actor = m.find("actor");
    if (!actor) return "director";
    std::string name = as_string(*actor);
    if (name == "director" || is_client(name) || is_task_caller(name)) return name;
    std::vector<std::string_view> known = {"director"};
    known.insert(known.end(), cast_.clients.begin(), cast_.clients.end());
    known.insert(known.end(), cast_.task_callers.begin(), cast_.task_callers.end());
    fail(actor->line, unknown("actor", name, known));
  }

  void read_action(const mapping& m, scripted_step& step) const {
    const value* named = nullptr;
    for (const auto& entry : m.entries()) {
      if (is_step_key(entry.name)) continue;
      if (!vocabulary::find_action(entry.name)) fail(entry.key_line, unknown_step_key(entry.name));
      if (named) {
        fail(entry.key_line,
             "a step has one action; this one has '" + named->name + "' and '" + entry.name + "'");
      }
      named = &entry;
    }
    if (!named) return;
    const auto& action = *vocabulary::find_action(named->name);
    check_performer(action, m, step.actor, named->key_line);
    step.action = named->name;
    step.args = read_fields(mapping(*named), action.fields, step.action, false);
    if (const auto until = step.args.value("until", "registered");
        until != "registered" && until != "loaded") {
      fail(mapping(*named).find("until")->line,
           "open: until is registered or loaded, not '" + until + "'");
    }
  }

  //! "unknown action", unless the word is closer to one of the step's own keys.
  static std::string unknown_step_key(const std::string& word) {
    const auto suggestion = vocabulary::closest(word, step_words());
    const bool key_like = !suggestion.empty() && is_step_key(suggestion);
    std::vector<std::string_view> known;
    for (const auto& a : vocabulary::actions())
      known.push_back(a.name);
    return key_like ? unknown("key", word, format::names(format::step_keys()))
                    : unknown("action", word, known);
  }

  void check_performer(const vocabulary::action& action, const mapping& m, const std::string& actor,
                       int action_line) const {
    const std::string name(action.name);
    if (action.by == vocabulary::performer::client) {
      if (!m.find("actor")) {
        fail(action_line, "'" + name + "' is a client's action: name the client with 'actor:'");
      }
      if (!is_client(actor)) {
        fail(m.find("actor")->line,
             "'" + name + "' is a client's action, and '" + actor + "' is not a client");
      }
    }
    const bool in_browser = is_browser_client(actor);
    if (action.by == vocabulary::performer::browser && !in_browser) {
      if (!m.find("actor")) {
        fail(action_line, "'" + name +
                              "' is a browser tab's action: name the browser client "
                              "(kind: browser) with 'actor:'");
      }
      fail(m.find("actor")->line, "'" + name + "' is a browser tab's action, and '" + actor +
                                      "' is not a browser client (kind: browser)");
    }
    if (in_browser && action.by != vocabulary::performer::browser) {
      std::string tab_steps;  // the vocabulary's, in its order: "open, ... and query"
      std::vector<std::string_view> names;
      for (const auto& a : vocabulary::actions()) {
        if (a.by == vocabulary::performer::browser) names.push_back(a.name);
      }
      for (std::size_t i = 0; i < names.size(); ++i) {
        tab_steps += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + std::string(names[i]);
      }
      fail(m.find("actor")->line, "'" + actor +
                                      "' is a browser client: its page sends its own requests; "
                                      "its steps are " +
                                      tab_steps + " ('" + name + "' is not one)");
    }
    if (action.by == vocabulary::performer::director && actor != "director") {
      fail(m.find("actor")->line,
           "'" + name + "' is the director's action; drop 'actor: " + actor + "'");
    }
  }

  std::vector<expectation> read_expectations(const mapping& m, bool has_action) const {
    const auto* expect = m.find("expect");
    if (!expect) return {};
    const auto* spec = m.find("spec");
    const std::vector<std::string> step_spec =
        spec ? read_spec_ids(*spec) : std::vector<std::string>{};
    std::vector<expectation> found;
    if (expect->node.IsScalar()) {
      fail(expect->line,
           "'expect' must be an expectation or a list of them, got " + described(expect->node));
    }
    const auto items = expect->node.IsMap() ? std::vector<value>{*expect} : list_items(*expect);
    for (const auto& item : items)
      found.push_back(read_expectation(item, step_spec, has_action));
    return found;
  }

  expectation read_expectation(const value& item, const std::vector<std::string>& step_spec,
                               bool has_action) const {
    const mapping m(item);
    const auto& kind = kind_of(m);
    if (kind.about_the_response && !has_action) {
      fail(item.line, "the response is checked on a step with an action; this step has none");
    }
    expectation e;
    e.kind = kind.name;
    e.args = kind.about_the_response
                 ? read_response(m, kind)
                 : read_fields(mapping(*m.find(kind.name)), kind.fields, e.kind, kind.open);
    const auto* spec = m.find("spec");
    e.spec_ids = spec ? read_spec_ids(*spec) : step_spec;
    if (e.spec_ids.empty()) {
      fail(item.line, "this expectation cites no SPEC ID: give it 'spec: [...]', or its step");
    }
    e.where = where(item.line);
    return e;
  }

  const cast& cast_;
  std::string source_;
  time_ms now_ = 0;        // the previous step's time, plus what its advance added
  bool advanced_ = false;  // whether the previous step was an advance
};

}  // namespace

std::vector<scripted_step> read_steps(const value& v, const cast& performers,
                                      std::string_view source) {
  step_reader reader(performers, source);
  std::vector<scripted_step> steps;
  for (const auto& item : list_items(v))
    steps.push_back(reader.read(item));
  return steps;
}

}  // namespace toolwire::scenarios::detail
