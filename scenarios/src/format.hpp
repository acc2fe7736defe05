// The scenario format's own keys (everything but actions and expectation kinds, which
// are the vocabulary's): one table per mapping, read by the loader (to accept and
// suggest), the writer and the JSON Schema generator.
#pragma once

#include <string_view>
#include <vector>

namespace toolwire::scenarios::format {

//! What a key holds; the schema generator turns each shape into a JSON Schema.
enum class shape {
  text,  // a string
  line,  // a string of one line
  integer,
  boolean,
  duration,          // 500ms, 12s, 2m, 1h or an integer of milliseconds
  json_value,        // any JSON, passed through as written
  spec_list,         // a list of SPEC IDs
  fault_list,        // a list of the reference server's fault names
  requirement_list,  // a list of what the scenario needs from its target
  tool_list,         // a list of tools: a name, or {name, description, parameters}
  preset_list,       // a list of behaviour presets
  lifetime,          // never, or {ttl: seconds}
  screen_list,       // a list of {at, tools}
  settings,
  clients,
  task_callers,
  model,
  steps,
  actor,   // the name of a client or task caller, or "director"
  expect,  // one expectation, or a list of them
};

struct key {
  std::string_view name;
  format::shape shape;
  bool required = false;
  std::string_view help;
};

//! A word with what it means: a behaviour preset or a requirement.
struct word {
  std::string_view name;
  std::string_view help;
};

const std::vector<key>& scenario_keys();
const std::vector<key>& settings_keys();
const std::vector<key>& client_keys();
const std::vector<key>& task_caller_keys();
const std::vector<key>& tool_keys();
const std::vector<key>& screen_keys();
//! A step's keys besides its action (an action of the vocabulary is a key too).
const std::vector<key>& step_keys();
//! An expectation item's keys besides its kind.
const std::vector<key>& expectation_keys();

const std::vector<word>& presets();
const std::vector<word>& requirements();

std::vector<std::string_view> names(const std::vector<key>& keys);
std::vector<std::string_view> names(const std::vector<word>& words);
//! The row named `name`; every caller passes a name of the table.
const key& find(const std::vector<key>& keys, std::string_view name);

}  // namespace toolwire::scenarios::format
