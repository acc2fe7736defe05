// The scenario format's key tables.
#include "format.hpp"

#include <algorithm>
#include <cassert>

namespace toolwire::scenarios::format {

using enum shape;

const std::vector<key>& scenario_keys() {
  static const std::vector<key> table = {
      {"name", text, false, "the scenario's name (default: the file's stem)"},
      {"purpose", line, true, "one line: what the scenario shows"},
      {"spec", spec_list, true, "the SPEC IDs the scenario is about"},
      {"breaks_with", fault_list, false,
       "reference faults (toolwire serve --list-faults) that make it fail; the catalog "
       "test proves each"},
      {"needs", requirement_list, false,
       "what the target must have, else the scenario is not applicable"},
      {"duration", shape::duration, false, "how long the run lasts (default 60s)"},
      {"settings", shape::settings, false, "the target's timeouts"},
      {"clients", shape::clients, false, "the clients, by actor name"},
      {"task_callers", shape::task_callers, false, "the Part B task callers, by actor name"},
      {"model", shape::model, false, "the model script: rules of scripted answers"},
      {"steps", shape::steps, false, "the scripted steps, in time order"},
  };
  return table;
}

const std::vector<key>& settings_keys() {
  static const std::vector<key> table = {
      {"ack_timeout", duration, false, "an un-acked call fails after this (CALL-3; default 10s)"},
      {"result_timeout", duration, false, "an acked call fails after this (CALL-3; default 300s)"},
      {"interrupt_timeout", duration, false,
       "an interrupted task fails after this (TASK-7; default 600s)"},
  };
  return table;
}

const std::vector<key>& client_keys() {
  static const std::vector<key> table = {
      {"kind", text, false,
       "browser: a real tab in headless Chromium, driven by the open, navigate, freeze, resume, "
       "offline, online, reload, close and query steps (docs/browser.md); default: an actor "
       "of the suite"},
      {"name", text, false, "the name it registers with (REG-4; default: the actor name)"},
      {"lifetime", shape::lifetime, false, "never (default) or {ttl: seconds}"},
      {"window", text, false,
       "kind: browser only: tabs with one window share one browser context, so its "
       "connections (at most 6 per origin), offline switch and relay; default: each tab "
       "its own"},
      {"tools", tool_list, false, "the tools it declares"},
      {"behaviour", preset_list, false, "behaviour presets; with one, the client joins by itself"},
      {"join", duration, false, "registers by itself at this time (default: waits for a step)"},
      {"ping_every", duration, false, "pings on this interval (LIFE-2)"},
      {"vanish_at", duration, false, "stops pinging and drops its stream then, without a word"},
      {"leave_at", duration, false, "leaves by DELETE then (LIFE-1)"},
      {"screens", screen_list, false, "tool lists it PUTs at given times (TOOLS-1)"},
      {"acks", boolean, false, "acks its calls"},
      {"ack_delay", duration, false, "acks this late"},
      {"answers", boolean, false, "answers its calls"},
      {"result_delay", duration, false, "answers this late"},
      {"duplicate_result", boolean, false, "posts each result twice (CALL-6)"},
      {"error_result", boolean, false, "answers with an error result (CALL-4)"},
      {"result_content", json_value, false, "the content it answers with (default \"ok\")"},
  };
  return table;
}

const std::vector<key>& task_caller_keys() {
  static const std::vector<key> table = {
      {"start", duration, false, "creates its task at this time (default 0)"},
      {"input", text, false, "the task's input text (MODEL-3)"},
      {"tools", tool_list, false, "the task's client tools"},
      {"poll_every", duration, false, "polls the task on this interval (default 1s)"},
      {"answer_delay", duration, false, "answers pending calls this late"},
      {"error_results", boolean, false, "answers with error results"},
      {"partial_results", boolean, false,
       "of a round of two or more calls, posts the first result alone, then all (TASK-4)"},
      {"repeat_results", boolean, false,
       "posts each accepted round again at once, and the last once more when the task is "
       "over: both refused, 409 (TASK-4)"},
      {"result_content", json_value, false, "the content it answers with (default \"ok\")"},
  };
  return table;
}

const std::vector<key>& tool_keys() {
  static const std::vector<key> table = {
      {"name", text, true, "the tool's name"},
      {"description", text, false, "default \"a tool of the simulated app\""},
      {"parameters", json_value, false,
       "its JSON Schema (default {type: object}; a task tool's input_schema)"},
  };
  return table;
}

const std::vector<key>& screen_keys() {
  static const std::vector<key> table = {
      {"at", duration, true, "when the client PUTs this list"},
      {"tools", tool_list, false, "the whole new list"},
  };
  return table;
}

const std::vector<key>& step_keys() {
  static const std::vector<key> table = {
      {"at", duration, false, "the step's time since the run started"},
      {"after", duration, false, "the step's time after the previous step"},
      {"label", text, false, "names the step's time, for later times: 'at: posted + ack_timeout'"},
      {"actor", shape::actor, false, "who acts (default: the director)"},
      {"spec", spec_list, false, "SPEC IDs for the step's expectations that cite none"},
      {"expect", shape::expect, false, "what must hold by the step's time"},
  };
  return table;
}

const std::vector<key>& expectation_keys() {
  static const std::vector<key> table = {
      {"spec", spec_list, false, "the SPEC IDs this expectation checks (default: the step's)"},
  };
  return table;
}

const std::vector<word>& presets() {
  static const std::vector<word> table = {
      {"browser_tab", "a tab: lifetime {ttl: N}, pings every N/3 seconds, acks and answers"},
      {"backend_worker", "a server-side worker: lifetime never, no pings, acks and answers"},
      {"navigating_tab", "re-PUTs its tool list on each of its `screens`"},
      {"slow", "acks and answers late: after ack_delay and result_delay"},
      {"forgetful", "never acks, never answers"},
      {"duplicating", "answers every call twice"},
      {"erroring", "answers every call with an error result"},
  };
  return table;
}

const std::vector<word>& requirements() {
  static const std::vector<word> table = {
      {"part_a", "session clients (/v1/sessions/...)"},
      {"part_b", "tasks (/api/tasks/...)"},
      {"virtual_clock", "the virtual clock (SPEC section 7)"},
      {"limited_key", "an API key without session.manage"},
      {"cors", "CORS for browser pages of an origin the target names (CORS-1..3, docs/cors.md)"},
      {"exact_timing", "deadlines checked to the millisecond (a virtual clock)"},
      {"browser",
       "real browser tabs (kind: browser): a target over HTTP on a real clock, and headless "
       "Chromium with the driver (scripts/bootstrap --browser)"},
  };
  return table;
}

std::vector<std::string_view> names(const std::vector<key>& keys) {
  std::vector<std::string_view> list;
  for (const auto& k : keys)
    list.push_back(k.name);
  return list;
}

std::vector<std::string_view> names(const std::vector<word>& words) {
  std::vector<std::string_view> list;
  for (const auto& w : words)
    list.push_back(w.name);
  return list;
}

const key& find(const std::vector<key>& keys, std::string_view name) {
  auto it = std::find_if(keys.begin(), keys.end(), [&](const key& k) { return k.name == name; });
  assert(it != keys.end());
  return *it;
}

}  // namespace toolwire::scenarios::format
