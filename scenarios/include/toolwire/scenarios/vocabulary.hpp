// The scenario language's vocabulary: every action a scripted step can perform and every
// kind of expectation, with their fields. One table, read by the YAML loader (to validate
// and suggest), the JSON Schema generator, the executor and the docs.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace toolwire::scenarios::vocabulary {

enum class field_type {
  string,
  integer,
  boolean,
  object,       // a JSON object, passed through as written
  any,          // any JSON value
  duration,     // "500ms", "12s", "2m", "1h" or an integer of ms (the loader turns it into ms)
  call_ref,     // which dispatched call: 1-based ordinal in the session, or a tool name
  tool_list,    // tool specs: a name, or {name, description?, parameters?}
  string_list,  // e.g. model-side tool names
  route,        // a route of the protocol as its table spells it: "POST /api/tasks/{uuid}"
  list,         // a list of objects, validated by the action
};

struct field {
  std::string_view name;
  field_type type;
  bool required = false;
  std::string_view help;
};

//! Who performs an action: a client actor (in its own name, with its session token), the
//! director (session-level, with the API key), either (`actor:` picks, default director), or
//! a browser client (`kind: browser`) through its real tab, whose own page sends the requests.
enum class performer { client, director, any, browser };

//! The scripted actions, one per row of `actions()`. Why an enum: the executor, the
//! director and explore dispatch on the action, and a misspelt string there would
//! silently match nothing (tests/design/actions_in_vocabulary.sh keeps it so).
enum class action_id {
  register_client,
  ping,
  put_tools,
  delete_client,
  vanish,
  reconnect,
  ack,
  result,
  error_result,
  post_message,
  create_task,
  poll,
  tool_results,
  request,
  advance,
  // A browser client's tab (performer::browser): docs/browser.md.
  open_tab,
  navigate,
  freeze,
  resume,
  go_offline,
  go_online,
  reload,
  close_tab,
  query_page,
};

struct action {
  action_id id;
  std::string_view name;  // the YAML spelling, as steps and messages write it
  performer by;
  std::vector<field> fields;
  std::string_view help;
};

//! The kinds of expectation, one per row of `expectation_kinds()`. Why an enum: the executor
//! dispatches on the kind (expectations.cpp's checker table, the director's resolving of
//! references), and a misspelt string there would silently match nothing.
enum class expectation_id {
  response,
  event,
  no_event,
  call_settled,
  model_offered,
  model_received,
  task_status,
  answered,
};

struct expectation_kind {
  expectation_id id;
  std::string_view name;  // the YAML spelling, as `expect:` items and messages write it
  std::vector<field> fields;
  bool about_the_response = false;  // checks the step's own response (needs an action)
  bool open = false;                // keys beyond `fields` are event data fields to match
  std::string_view help;
};

const std::vector<action>& actions();
const std::vector<expectation_kind>& expectation_kinds();

const action* find_action(std::string_view name);
//! The action a YAML name stands for, or nullopt for a name the vocabulary lacks (and for
//! the empty name of a step that only checks).
std::optional<action_id> action_named(std::string_view name);
//! The YAML name of `id` (the table's row).
std::string_view name_of(action_id id);
const expectation_kind* find_expectation(std::string_view name);
//! The kind a YAML name stands for, or nullopt for a name the vocabulary lacks.
std::optional<expectation_id> expectation_named(std::string_view name);
//! The YAML name of `id` (the table's row).
std::string_view name_of(expectation_id id);
//! The expectation kind a key of an `expect:` item belongs to ("status" → "response").
const expectation_kind* expectation_of_key(std::string_view key);

//! The closest known word to `word` within edit distance 2, or "" (for "did you mean").
std::string_view closest(std::string_view word, const std::vector<std::string_view>& known);
//! The `n` known words nearest to `word` by edit distance, nearest first (ties in the
//! order of `known`), however far: what a list of choices too long to print offers.
std::vector<std::string_view> nearest(std::string_view word,
                                      const std::vector<std::string_view>& known, std::size_t n);

}  // namespace toolwire::scenarios::vocabulary
