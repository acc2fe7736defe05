// The SPEC.md rule table. Keep it in step with SPEC.md: tests count the rules.
#include "toolwire/protocol/spec_rules.hpp"

#include <algorithm>

namespace toolwire::protocol {

const std::vector<spec_rule>& spec_rules() {
  static const std::vector<spec_rule> table = {
      // 0. Common conventions
      {"C-1", 'P', 'C', "bodies are JSON (UTF-8), Content-Type application/json"},
      {"C-2", 'P', 'C', "errors are {error: {type, message}} with the listed statuses"},
      {"C-3", 'S', 'C', "a rejected request changes nothing"},
      {"C-4", 'P', 'C', "times are integer milliseconds (*_at_ms)"},
      {"C-5", 'P', 'C', "credentials travel as Authorization: Bearer"},
      {"C-6", 'P', 'C', "responses and events may carry unknown fields; readers ignore them"},
      // 1. Authentication
      {"AUTH-1", 'S', 'A', "client routes accept the session token or a session.manage API key"},
      {"AUTH-2", 'P', 'A', "no or unknown credential 401; known without access 403; then 404"},
      {"AUTH-3", 'S', 'A', "a session token grants nothing on another session"},
      {"AUTH-4", 'P', 'A', "creating a session needs a session.manage API key"},
      {"AUTH-5", 'P', 'A', "the event stream accepts ?access_token; credentials never leak"},
      // 2. Sessions, turns and the event stream [P]
      {"SES-1", 'P', 'A', "POST /v1/sessions gives 201 {id, token}"},
      {"SES-2", 'P', 'A', "POST .../messages starts a turn (202); a second one meanwhile is 409"},
      {"SES-3", 'P', 'A', "the SSE stream: seq from 1, Last-Event-ID replay, stream_gap"},
      {"SES-4", 'P', 'A', "the event types and their data"},
      {"SES-5", 'P', 'A', "events appear in the order their causes happened"},
      // 3. Registering a client
      {"REG-1", 'S', 'A', "tool name, description and parameters rules; anything else is 400"},
      {"REG-2", 'P', 'A', "the 4096 description limit counts code points"},
      {"REG-3", 'P', 'A', "two tools with one name in a list: 400"},
      {"REG-4", 'P', 'A', "the client name follows the tool-name rule"},
      {"REG-5", 'S', 'A', "a taken name gets a counter: <name>_<n>"},
      {"REG-6", 'S', 'A', "assigned names are unique among live clients, always"},
      {"REG-7", 'R', 'A', "a freed name may be assigned again"},
      {"REG-8", 'P', 'A', "ttl.seconds is an integer from 1 to 86400"},
      {"REG-9", 'S', 'A', "client_registered carries the client_id and name of the 201"},
      // 4. Lifetime
      {"LIFE-1", 'S', 'A', "a never client lives until DELETE; its pings change nothing"},
      {"LIFE-2", 'S', 'A', "a ttl client ends seconds after its last ping"},
      {"LIFE-3", 'P', 'A', "a ping before expires_at extends; at or after it is 404"},
      {"LIFE-4", 'S', 'A', "an ended client emits client_unregistered; its tools are gone"},
      {"LIFE-5", 'S', 'A', "calls open on an ended client fail; the turn goes on"},
      {"LIFE-6", 'S', 'A', "only registration and pings extend a TTL"},
      // 5. Changing the tool list
      {"TOOLS-1", 'S', 'A', "PUT .../tools replaces the whole list"},
      {"TOOLS-2", 'S', 'A', "PUT validates as REG-1..3; an invalid list changes nothing"},
      {"TOOLS-3", 'S', 'A', "the model is offered exactly the live clients' tools at each step"},
      {"TOOLS-4", 'P', 'A', "a call dispatched before its tool is withdrawn stays open"},
      {"TOOLS-5", 'P', 'A', "a call to a tool no longer offered fails with tool_unavailable"},
      {"TOOLS-6", 'S', 'A', "each model step sees one consistent tool list"},
      // 6. Calls
      {"CALL-1", 'S', 'A', "client_tool_dispatched carries client, fresh call_id, tool, arguments"},
      {"CALL-2", 'P', 'A', "the model sees <client name>__<tool>"},
      {"CALL-3", 'S', 'A', "acks are optional and idempotent; ack and result timeouts"},
      {"CALL-4", 'S', 'A', "a result with content or error completes the call"},
      {"CALL-5", 'S', 'A', "every dispatched call is settled exactly once"},
      {"CALL-6", 'P', 'A', "a result or ack after settlement is 409 and changes nothing"},
      {"CALL-7", 'P', 'A', "a call is addressed only through its own client"},
      {"CALL-8", 'S', 'A', "the model receives exactly one tool result per call"},
      {"CALL-9", 'S', 'A', "calls run concurrently and are matched by call_id"},
      // 7. Virtual clock [P]
      {"CLOCK-1", 'P', 'C', "GET /v1/_test/clock and POST .../advance"},
      {"CLOCK-2", 'P', 'C', "timers due by the new time have fired before advance answers"},
      {"CLOCK-3", 'P', 'C', "the clock moves only by advance; model steps take no time"},
      // 8. The model interface [P]
      {"MODEL-1", 'P', 'C', "the chat-completions request: model, messages, tools"},
      {"MODEL-2", 'P', 'C', "the response: content and/or tool_calls"},
      {"MODEL-3", 'P', 'C', "the user's text reaches the model unchanged"},
      {"MODEL-4", 'P', 'C', "a failing model endpoint ends the turn or task as failed"},
      // 9. Tasks
      {"TASK-1", 'S', 'B', "POST /api/tasks with client_tools gives 201 pending"},
      {"TASK-2", 'S', 'B', "GET /api/tasks/{uuid} gives the status"},
      {"TASK-3", 'S', 'B', "a client tool call interrupts the task with pending_tool_calls"},
      {"TASK-4", 'S', 'B', "tool-results must cover every pending call"},
      {"TASK-5", 'S', 'B', "statuses move pending, processing, (interrupted, processing)*, end"},
      {"TASK-6", 'S', 'B', "the output lists every client tool call with its output"},
      {"TASK-7", 'P', 'B', "interrupted past interrupt_timeout fails: tool_results_timeout"},
      {"TASK-8", 'P', 'B', "a call to an unknown tool is not surfaced; the model gets an error"},
      {"TASK-9", 'S', 'B', "call ids are never reused; settled calls never pending again"},
      {"TASK-10", 'P', 'B', "task tools are offered unprefixed; input texts reach the model"},
      // CORS (optional capability): not in SPEC.md; issue 22 asks for it, docs/cors.md
      // states the rules. Cases citing them run only against a target that claims it.
      {"CORS-1", 'P', 'C', "a preflight from an allowed origin is 2xx, no credential, allowing it"},
      {"CORS-2", 'P', 'C', "every answer to an allowed origin allows it: success, error, stream"},
      {"CORS-3", 'P', 'C', "an origin not allowed is never allowed: no echo, no *"},
  };
  return table;
}

const spec_rule* find_spec_rule(std::string_view id) {
  const auto& table = spec_rules();
  auto it =
      std::find_if(table.begin(), table.end(), [&](const spec_rule& r) { return r.id == id; });
  return it == table.end() ? nullptr : &*it;
}

}  // namespace toolwire::protocol
