// The scenario language's vocabulary table.
#include "toolwire/scenarios/vocabulary.hpp"

#include <algorithm>
#include <string>

namespace toolwire::scenarios::vocabulary {

namespace {

using enum field_type;

const field call_field{"call", call_ref, true,
                       "the n-th dispatched call of the session (1-based) or a tool name "
                       "(its latest dispatched call)"};
const field seen_by_field{"seen_by", string, false,
                          "a client actor: the event must have reached that client's own "
                          "stream (default: the session's events as the target emitted them)"};
const field body_field{"body", any, false,
                       "sent as the request body instead of the one the action builds "
                       "(for invalid-input cases)"};

}  // namespace

const std::vector<action>& actions() {
  static const std::vector<action> table = {
      {action_id::register_client,
       "register",
       performer::client,
       {{"name", string, false, "requested name (default: the client's `name`)"},
        {"lifetime", any, false, "`never` or {ttl: seconds} (default: the client's)"},
        {"tools", tool_list, false, "the tool list (default: the client's)"},
        body_field},
       "opens the client's event stream if needed, then registers (POST .../clients)"},
      {action_id::ping, "ping", performer::client, {}, "POST .../clients/{cid}/ping"},
      {action_id::put_tools,
       "put_tools",
       performer::client,
       {{"tools", tool_list, false, "the new whole list"}, body_field},
       "PUT .../clients/{cid}/tools"},
      {action_id::delete_client,
       "delete",
       performer::client,
       {},
       "DELETE .../clients/{cid} (the client leaves)"},
      {action_id::vanish,
       "vanish",
       performer::client,
       {},
       "the client stops pinging and drops its stream without a word (a closed tab)"},
      {action_id::reconnect,
       "reconnect",
       performer::client,
       {{"last_event_id", any, false, "sent as Last-Event-ID (default: the last seq it saw)"}},
       "drops the client's stream and opens it again with Last-Event-ID"},
      {action_id::ack, "ack", performer::client, {call_field}, "POST .../calls/{call_id}/ack"},
      {action_id::result,
       "result",
       performer::client,
       {call_field, {"content", any, false, "the result content (default \"ok\")"}, body_field},
       "POST .../calls/{call_id}/result with content"},
      {action_id::error_result,
       "error_result",
       performer::client,
       {call_field,
        {"error", string, false, "the error message"},
        {"reason", string, false, "the error reason code"}},
       "POST .../calls/{call_id}/result with an error"},
      {action_id::post_message,
       "post_message",
       performer::any,
       {{"content", string, true, "the user's message text; the model script matches it"}},
       "POST /v1/sessions/{sid}/messages (starts a model turn)"},
      {action_id::create_task,
       "create_task",
       performer::director,
       {{"task", string, true, "a label that later steps use to name this task"},
        {"input", string, false, "the input text (the model script matches it)"},
        {"tools", tool_list, false, "client_tools (description and input_schema)"},
        {"assistant_id", integer, false, "default: the target's"},
        body_field},
       "POST /api/tasks"},
      {action_id::poll,
       "poll",
       performer::director,
       {{"task", string, true, "the task's label"}},
       "GET /api/tasks/{uuid}"},
      {action_id::tool_results,
       "tool_results",
       performer::director,
       {{"task", string, true, "the task's label"},
        {"results", list, false,
         "items {call: n (1-based in pending_tool_calls) | id: text, content | error, reason}"},
        {"all", any, false, "answer every pending call with this content"},
        body_field},
       "POST /api/tasks/{uuid}/tool-results"},
      {action_id::request,
       "request",
       performer::any,
       {{"method", string, true, "GET, POST, PUT, DELETE or OPTIONS (a CORS preflight)"},
        {"path", string, true,
         "may hold {sid}, {other_sid}, {cid:ACTOR}, {call:N}, {task:LABEL}, {pending:LABEL:N}"},
        {"body", any, false, "a JSON body"},
        {"raw_body", string, false, "a body sent as these exact bytes (e.g. malformed JSON)"},
        {"credential", string, false,
         "api_key (default), token, other_token, limited_key, unknown, none"},
        {"query", string, false, "the query string, without '?'; may hold {token}"},
        {"last_event_id", string, false, "sent as Last-Event-ID"},
        {"origin", string, false,
         "sent as Origin, as a browser page's request (CORS-2, CORS-3); may hold {cors_origin}"},
        {"request_method", string, false,
         "sent as Access-Control-Request-Method: the method a preflight asks for (CORS-1)"},
        {"request_headers", string, false,
         "sent as Access-Control-Request-Headers: the headers a preflight asks for (CORS-1)"}},
       "any request, for auth, routing and validation cases"},
      {action_id::advance,
       "advance",
       performer::director,
       {{"by", duration, true, "how much virtual time passes before the next step"}},
       "lets time pass: the steps after it happen `by` later"},
      {action_id::open_tab,
       "open",
       performer::browser,
       {{"until", string, false,
         "registered (the default): done when the page has registered; loaded: done when "
         "the page has loaded, for a tab that may not get to register"}},
       "opens the browser client's tab on the target's origin; done when the page has "
       "registered (its stream open, POST .../clients answered 201)"},
      {action_id::navigate,
       "navigate",
       performer::browser,
       {{"screen", string, true,
         "table (highlight_row, pick_date) or form (read_form, pick_date)"}},
       "moves the tab to another screen; done when its PUT .../tools was answered 200"},
      {action_id::freeze,
       "freeze",
       performer::browser,
       {},
       "freezes the tab as a background tab is frozen: no script runs, so no ping, ack or result"},
      {action_id::resume, "resume", performer::browser, {}, "resumes a frozen tab"},
      {action_id::go_offline,
       "offline",
       performer::browser,
       {},
       "takes the tab's network away (its stream breaks, its requests fail)"},
      {action_id::go_online,
       "online",
       performer::browser,
       {},
       "gives the tab its network back (EventSource reconnects with Last-Event-ID)"},
      {action_id::reload,
       "reload",
       performer::browser,
       {},
       "reloads the tab; done when the new page has registered (a new client id)"},
      {action_id::close_tab,
       "close",
       performer::browser,
       {},
       "closes the tab as a user does: the page sends nothing (LIFE-5)"},
      {action_id::query_page,
       "query",
       performer::browser,
       {{"selector", string, true, "a CSS selector, e.g. tr.highlighted"}},
       "reads the tab's DOM: the step's response is 200 with {count, elements: [{text, "
       "className, visible}]}, for `expect: {body: ...}`"},
  };
  return table;
}

const std::vector<expectation_kind>& expectation_kinds() {
  static const std::vector<expectation_kind> table = {
      {expectation_id::response,
       "response",
       {{"status", integer, false, "the HTTP status"},
        {"error", string, false, "error.type of the body (C-2)"},
        {"body", object, false, "fields the body must hold (a subset match)"},
        {"cors", string, false,
         "allowed or refused: whether a browser lets the page of the request's origin read the "
         "answer (and, for a preflight, send the request it asked about) (CORS-1..3)"}},
       true,
       false,
       "the step's own response"},
      {expectation_id::event,
       "event",
       {{"type", string, true, "the event type"},
        {"count", integer, false, "exactly this many matching events (default: at least one)"},
        seen_by_field},
       false,
       true,
       "a session event seen by now; other keys match its data ({cid:ACTOR}, {call:N} allowed)"},
      {expectation_id::no_event,
       "no_event",
       {{"type", string, true, "the event type"}, seen_by_field},
       false,
       true,
       "no such session event by now; other keys match its data"},
      {expectation_id::call_settled,
       "call_settled",
       {call_field,
        {"outcome", string, true, "completed or failed"},
        {"reason", string, false, "the failure reason"}},
       false,
       false,
       "the call was settled exactly once, this way, by now"},
      {expectation_id::model_offered,
       "model_offered",
       {{"step", integer, true, "the model step, 1-based, in the session's order"},
        {"tools", string_list, true, "exactly these tool names (model-side)"}},
       false,
       false,
       "what the model was offered at one step"},
      {expectation_id::model_received,
       "model_received",
       {{"tool", string, true, "the model-side tool name of the call"},
        {"content", any, false, "the content it got"},
        {"error", string, false, "the error reason it got"},
        {"count", integer, false,
         "how many such results it received by now, exactly (default: at least one)"}},
       false,
       false,
       "a tool result the model received by now"},
      {expectation_id::task_status,
       "task_status",
       {{"task", string, true, "the task's label"},
        {"status", string, true, "the task status"},
        {"pending", integer, false, "how many pending_tool_calls"}},
       false,
       false,
       "the task's status in its latest poll by now"},
      {expectation_id::answered,
       "answered",
       {{"actor", string, true, "the actor that sent the requests (a client or a task caller)"},
        {"route", route, true, "which requests, e.g. POST /api/tasks/{uuid}/tool-results"},
        {"status", integer, true, "the HTTP status they were answered with"},
        {"error", string, false, "the error type they were answered with (C-2)"},
        {"count", integer, false,
         "how many were answered so by now, exactly (default: at least one)"}},
       false,
       false,
       "what an actor's own requests (not a step's) were answered by now: a task caller's "
       "results, a client's pings"},
  };
  return table;
}

const action* find_action(std::string_view name) {
  const auto& table = actions();
  auto it =
      std::find_if(table.begin(), table.end(), [&](const action& a) { return a.name == name; });
  return it == table.end() ? nullptr : &*it;
}

std::optional<action_id> action_named(std::string_view name) {
  const auto* found = find_action(name);
  if (found == nullptr) return std::nullopt;
  return found->id;
}

std::string_view name_of(action_id id) {
  const auto& table = actions();
  auto it = std::find_if(table.begin(), table.end(), [&](const action& a) { return a.id == id; });
  return it == table.end() ? std::string_view() : it->name;
}

const expectation_kind* find_expectation(std::string_view name) {
  const auto& table = expectation_kinds();
  auto it = std::find_if(table.begin(), table.end(),
                         [&](const expectation_kind& e) { return e.name == name; });
  return it == table.end() ? nullptr : &*it;
}

std::optional<expectation_id> expectation_named(std::string_view name) {
  const auto* kind = find_expectation(name);
  if (kind == nullptr) return std::nullopt;
  return kind->id;
}

std::string_view name_of(expectation_id id) {
  const auto& table = expectation_kinds();
  auto it = std::find_if(table.begin(), table.end(),
                         [&](const expectation_kind& e) { return e.id == id; });
  return it == table.end() ? std::string_view() : it->name;
}

const expectation_kind* expectation_of_key(std::string_view key) {
  if (key == "status" || key == "error" || key == "body" || key == "cors") {
    return find_expectation(name_of(expectation_id::response));
  }
  return find_expectation(key);
}

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string_view> nearest(std::string_view word,
                                      const std::vector<std::string_view>& known, std::size_t n) {
  std::vector<std::pair<std::size_t, std::size_t>> ranked;  // (distance, index in known)
  for (std::size_t i = 0; i < known.size(); ++i)
    ranked.emplace_back(edit_distance(word, known[i]), i);
  std::stable_sort(ranked.begin(), ranked.end());
  std::vector<std::string_view> words;
  for (std::size_t i = 0; i < ranked.size() && i < n; ++i)
    words.push_back(known[ranked[i].second]);
  return words;
}

std::string_view closest(std::string_view word, const std::vector<std::string_view>& known) {
  std::string_view best;
  std::size_t best_distance = 3;
  for (const auto candidate : known) {
    const std::size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

}  // namespace toolwire::scenarios::vocabulary
