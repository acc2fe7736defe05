// The scenario loader's errors: each is one line, `source:line: problem`, with a
// suggestion for a misspelt word; nothing is ever thrown.
#include <rapidcheck.h>
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <string>

#include "toolwire/scenarios/loader.hpp"

using toolwire::scenarios::load_file;
using toolwire::scenarios::load_text;

namespace {

//! Lines 1-6 of every case: a valid scenario with a task caller and a client, `tab`. A
//! case's lines start at 7; indented ones add to `clients`.
const std::string preamble =
    "purpose: p\n"
    "spec: [LIFE-1]\n"
    "task_callers:\n"
    "  caller: {input: hi}\n"
    "clients:\n"
    "  tab: {tools: [read_form]}\n";

//! The error of loading `text` as web-tab.yaml; fails the test when it loads.
std::string error_of(const std::string& text) {
  const auto loaded = load_text(text, "web-tab.yaml");
  INFO(text);
  REQUIRE_FALSE(loaded.ok());
  return loaded.error().message;
}

}  // namespace

TEST_CASE("the preamble of the error cases loads", "[scenarios][errors]") {
  CHECK(load_text(preamble, "web-tab.yaml").ok());
}

TEST_CASE("format errors name the file, the line and the problem", "[scenarios][errors]") {
  const auto [text, expected] = GENERATE(table<std::string, std::string>({
      // YAML itself
      {"purpose: p\nspec: [LIFE-1\nsteps: []\n",
       "web-tab.yaml:3: YAML syntax error: end of sequence flow not found"},
      // the top level
      {preamble + "purpse: p\n", "web-tab.yaml:7: unknown key 'purpse' (did you mean 'purpose'?)"},
      {"spec: [LIFE-1]\n", "web-tab.yaml:1: missing 'purpose' (one line: what the scenario shows)"},
      {"purpose: p\nspec: [LIFE-7]\n",
       "web-tab.yaml:2: unknown SPEC ID 'LIFE-7' (did you mean 'LIFE-1'?)"},
      {"purpose: p\nspec:\n  - LIFE-1\n  - CALL-55\n",
       "web-tab.yaml:4: unknown SPEC ID 'CALL-55' (did you mean 'CALL-5'?)"},
      {preamble + "duration: 12x\n",
       "web-tab.yaml:7: bad duration '12x' (write 500ms, 12s, 2m, 1h or an integer of "
       "milliseconds)"},
      {preamble + "steps:\n  - {at: ack_timout + 1ms}\n",
       "web-tab.yaml:8: bad time 'ack_timout + 1ms': unknown name 'ack_timout' (did you mean "
       "'ack_timeout'?) (write a duration such as 500ms, or e.g. 'ack_timeout - 1ms', "
       "'ttl(tab) + 1s', '2*tol')"},
      {preamble + "steps:\n  - {at: ttl + 1s}\n",
       "web-tab.yaml:8: bad time 'ttl + 1s': no client has a ttl (give one 'lifetime: {ttl: "
       "N}') (write a duration such as 500ms, or e.g. 'ack_timeout - 1ms', 'ttl(tab) + 1s', "
       "'2*tol')"},
      {preamble + "steps:\n  - {at: 1s - ack_timeout}\n",
       "web-tab.yaml:8: bad time '1s - ack_timeout': it is -9000 ms for ack/result/interrupt "
       "timeouts of 10000/300000/600000 ms (write a duration such as 500ms, or e.g. "
       "'ack_timeout - 1ms', 'ttl(tab) + 1s', '2*tol')"},
      {preamble + "steps:\n  - {at: 1s, label: tol}\n",
       "web-tab.yaml:8: a label is a word of a-z, 0-9 and _ other than ack_timeout, "
       "result_timeout, interrupt_timeout, ttl and tol, got 'tol'"},
      {preamble + "needs: [part_c]\n",
       "web-tab.yaml:7: unknown requirement 'part_c' (did you mean 'part_a'?)"},
      {preamble + "settings: {ack_timout: 5s}\n",
       "web-tab.yaml:7: unknown setting 'ack_timout' (did you mean 'ack_timeout'?)"},
      // browser clients (kind: browser): only a name and a TTL are the scenario's
      {preamble + "  shop: {kind: robot}\n",
       "web-tab.yaml:7: unknown client kind 'robot': 'browser' (a real tab); without 'kind' the "
       "client is an actor of the suite"},
      {preamble + "  shop: {kind: browser, lifetime: {ttl: 2}, tools: [x]}\n",
       "web-tab.yaml:7: 'tools' does not apply to browser client 'shop': its page decides "
       "that; a browser client has kind, name, lifetime: {ttl: seconds} and window"},
      {preamble + "  web: {window: shop}\n",
       "web-tab.yaml:7: 'window' is a browser client's (kind: browser): client 'web' is an "
       "actor of the suite"},
      {preamble + "  shop: {kind: browser, lifetime: {ttl: 2}, window: ''}\n",
       "web-tab.yaml:7: 'window' names the tabs' shared window"},
      {preamble + "  shop: {kind: browser, lifetime: {ttl: 2}}\nsteps:\n"
                  "  - actor: shop\n    open: {until: ready}\n",
       "web-tab.yaml:10: open: until is registered or loaded, not 'ready'"},
      {preamble + "  shop: {kind: browser}\n",
       "web-tab.yaml:7: browser client 'shop' needs 'lifetime: {ttl: seconds}': a tab pings"},
      {preamble +
           "  shop: {kind: browser, lifetime: {ttl: 2}}\nsteps:\n  - {actor: shop, ping: }\n",
       "web-tab.yaml:9: 'shop' is a browser client: its page sends its own requests; its steps "
       "are open, navigate, freeze, resume, offline, online, reload, close and query ('ping' "
       "is not one)"},
      {preamble + "steps:\n  - {actor: tab, freeze: }\n",
       "web-tab.yaml:8: 'freeze' is a browser tab's action, and 'tab' is not a browser client "
       "(kind: browser)"},
      {preamble +
           "  shop: {kind: browser, lifetime: {ttl: 2}}\nsteps:\n  - {actor: shop, navigate: {}}\n",
       "web-tab.yaml:9: 'navigate' is missing 'screen' (table (highlight_row, pick_date) or "
       "form (read_form, pick_date))"},
      // clients
      {preamble + "  web:\n    lifetime: {ttl: ten}\n",
       "web-tab.yaml:8: 'ttl' must be an integer, got 'ten'"},
      {preamble + "  web:\n    behaviour: [browser_tap]\n",
       "web-tab.yaml:8: unknown behaviour 'browser_tap' (did you mean 'browser_tab'?)"},
      {preamble + "  web:\n    behaviour: [browser_tab]\n",
       "web-tab.yaml:8: behaviour 'browser_tab' needs 'lifetime: {ttl: seconds}'"},
      {preamble + "  web:\n    ack: true\n",
       "web-tab.yaml:8: unknown key 'ack' of client 'web' (did you mean 'acks'?)"},
      {preamble + "  web:\n    acks: sometimes\n",
       "web-tab.yaml:8: 'acks' must be true or false, got 'sometimes'"},
      {preamble + "  web:\n    tools: [{nam: x}]\n",
       "web-tab.yaml:8: unknown key 'nam' of a tool (did you mean 'name'?)"},
      {preamble + "  caller: {}\n", "web-tab.yaml:7: 'caller' is both a client and a task caller"},
      // the model script
      {preamble + "model:\n  rules:\n    - steps: [{text: hi}]\n",
       "web-tab.yaml:7: model script: rules[0].steps[0]: unknown key \"text\""},
      {preamble + "model:\n  rules:\n    - steps:\n        - content: hi\n          hold: soon\n",
       "web-tab.yaml:11: bad duration 'soon' (write 500ms, 12s, 2m, 1h or an integer of "
       "milliseconds)"},
      // steps: actions and actors
      {preamble + "steps:\n  - actor: tab\n    pnig: {}\n",
       "web-tab.yaml:9: unknown action 'pnig' (did you mean 'ping'?)"},
      {preamble + "steps:\n  - aft: 1s\n",
       "web-tab.yaml:8: unknown key 'aft' (did you mean 'at'?)"},
      {preamble + "steps:\n  - post_message: {contnet: hi}\n",
       "web-tab.yaml:8: unknown field 'contnet' of 'post_message' (did you mean 'content'?)"},
      {preamble + "steps:\n  - post_message: {}\n",
       "web-tab.yaml:8: 'post_message' is missing 'content' (the user's message text; the model "
       "script matches it)"},
      {preamble + "steps:\n  - advance: {by: 12x}\n",
       "web-tab.yaml:8: bad duration '12x' (write 500ms, 12s, 2m, 1h or an integer of "
       "milliseconds)"},
      {preamble + "steps:\n  - create_task: {task: t, assistant_id: one}\n",
       "web-tab.yaml:8: 'assistant_id' must be an integer, got 'one'"},
      {preamble + "steps:\n  - ping: {}\n",
       "web-tab.yaml:8: 'ping' is a client's action: name the client with 'actor:'"},
      {preamble + "steps:\n  - actor: caller\n    ping: {}\n",
       "web-tab.yaml:8: 'ping' is a client's action, and 'caller' is not a client"},
      {preamble + "steps:\n  - actor: tab\n    create_task: {task: t}\n",
       "web-tab.yaml:8: 'create_task' is the director's action; drop 'actor: tab'"},
      {preamble + "steps:\n  - actor: tba\n    ping: {}\n",
       "web-tab.yaml:8: unknown actor 'tba' (did you mean 'tab'?)"},
      {preamble + "steps:\n  - actor: tab\n    ping: {}\n    delete: {}\n",
       "web-tab.yaml:10: a step has one action; this one has 'ping' and 'delete'"},
      {preamble + "steps:\n  - at: 1s\n    after: 1s\n",
       "web-tab.yaml:9: a step has 'at' or 'after', not both"},
      // steps: time
      {preamble + "steps:\n  - at: 10s\n  - at: 5s\n",
       "web-tab.yaml:9: time goes backwards: 'at: 5s' is before 10s, the time of the step before "
       "it"},
      {preamble + "steps:\n  - at: 10s\n    advance: {by: 5s}\n  - at: 12s\n",
       "web-tab.yaml:10: time goes backwards: 'at: 12s' is before 15s, where the advance before it "
       "moved the clock"},
      // steps: expectations
      {preamble + "steps:\n  - post_message: {content: hi}\n    expect: {status: 202}\n",
       "web-tab.yaml:9: this expectation cites no SPEC ID: give it 'spec: [...]', or its step"},
      {preamble + "steps:\n  - at: 5s\n    expect: {status: 200, spec: [LIFE-1]}\n",
       "web-tab.yaml:9: the response is checked on a step with an action; this step has none"},
      {preamble + "steps:\n  - at: 5s\n    spec: [LIFE-4]\n    expect:\n      - evnt: {type: x}\n",
       "web-tab.yaml:11: unknown expectation 'evnt' (did you mean 'event'?)"},
      {preamble + "steps:\n  - at: 5s\n    spec: [LIFE-4]\n    expect:\n      - event: {}\n",
       "web-tab.yaml:11: 'event' is missing 'type' (the event type)"},
      {preamble + "steps:\n  - post_message: {content: hi}\n    spec: [SES-2]\n"
                  "    expect: {status: 202, event: {type: turn_started}}\n",
       "web-tab.yaml:10: an expectation checks one thing: make 'status' and 'event' two items"},
      {preamble + "steps:\n  - at: 5s\n    expect: {call_settled: {call: 1, outcome: failed, "
                  "why: x}, spec: [CALL-5]}\n",
       "web-tab.yaml:9: unknown field 'why' of 'call_settled'"},
      {"purpose: p\nspec: [LIFE-1]\nbreaks_with: [vanished_call_left_open]\n",
       "web-tab.yaml:3: unknown fault 'vanished_call_left_open' (did you mean "
       "'vanished_calls_left_open'?)"},
      {"purpose: p\nspec: [LIFE-1]\nbreaks_with: []\n",
       "web-tab.yaml:3: 'breaks_with' must name a fault"},
      {preamble + "steps:\n  - at: 5s\n    expect: {call_settled: {call: [1], outcome: failed}, "
                  "spec: [CALL-5]}\n",
       "web-tab.yaml:9: 'call' must be a call number or a tool name, got a list"},
  }));
  CHECK(error_of(text) == expected);
}

TEST_CASE("a file that does not exist is an error, not a crash", "[scenarios][errors]") {
  const auto loaded = load_file("/nonexistent/scenarios/web-tab.yaml");
  REQUIRE_FALSE(loaded.ok());
  CHECK(loaded.error().message == "/nonexistent/scenarios/web-tab.yaml: no such file");
}

// Why a function: RC_ASSERT captures the operands of `||` through an overloaded operator,
// which evaluates both, so `ok() || error()` read the error of a scenario that loaded.
bool loaded_or_refused_at_source(
    const toolwire::protocol::outcome<toolwire::scenarios::scenario>& loaded) {
  if (loaded.ok()) return true;
  return loaded.error().message.rfind("any.yaml:", 0) == 0;
}

TEST_CASE("load_text never throws, whatever the text", "[scenarios][errors]") {
  rc::prop("load_text returns a value or an error", [](const std::string& text) {
    const auto loaded = load_text(text, "any.yaml");
    RC_ASSERT(loaded_or_refused_at_source(loaded));
  });
  rc::prop("load_text survives any scenario-shaped text", [] {
    const auto pieces = *rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
        "purpose: p\n", "spec: [LIFE-1]\n", "steps:\n", "  - at: 1s\n", "    ping: {}\n",
        "    actor: tab\n", "clients: {tab: {}}\n", "  - expect: {status: 1}\n", "model: {rules: [",
        "]}\n", "    advance: {by: 1s}\n", "  - at: 0\n", "- ", ": ", "{", "}", "[", "]", "\t",
        "&a ", "*a ", "!!int ", "'", "\"", "\n"));
    std::string text;
    for (const auto& piece : pieces)
      text += piece;
    const auto loaded = load_text(text, "any.yaml");
    RC_ASSERT(loaded_or_refused_at_source(loaded));
  });
}

// Regression: the fuzzer's scenario_loader finding (fuzz/regressions/scenario_loader/): a
// file with invalid UTF-8 loaded, and writing it back (to_yaml, traces) threw.
TEST_CASE("invalid UTF-8 is refused at its line, shown escaped", "[scenarios][errors]") {
  const std::string text =
      preamble + "steps:\n  - at: 1s\n    post_message: {content: \"a\xC3\x28\"}\n";
  CHECK(error_of(text) == "web-tab.yaml:9: not valid UTF-8 (byte \\xC3)");
}

// Regression: the sanitize stage's scenario_loader finding (CI, 2026-12-01): an alias inside
// its own anchor makes a cycle, and reading it as JSON recursed until the stack ran out.
TEST_CASE("an alias that contains itself is refused at its line", "[scenarios][errors]") {
  CHECK(error_of(preamble + "model: &loop {rules: [*loop]}\n") ==
        "web-tab.yaml:7: nested deeper than 128 levels (or an alias that contains itself)");
}

TEST_CASE("aliases that expand past any scenario's size are refused", "[scenarios][errors]") {
  std::string text = preamble + "model:\n  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level <= 6; ++level) {
    const std::string below = "*l" + std::to_string(level - 1);
    text += "  l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i)
      text += (i ? ", " : "") + below;
    text += "]\n";
  }
  const auto message = error_of(text);
  CHECK(message.rfind("web-tab.yaml:", 0) == 0);
  CHECK(message.find("more than 100000 values once aliases are expanded") != std::string::npos);
}

// Why 200,000 digits: a scalar that looks like a number was matched with std::regex, whose
// libstdc++ matcher recurses once per character and overflowed the stack.
TEST_CASE("a very long number-like scalar loads as text or number, never crashes",
          "[scenarios][errors]") {
  const auto digits = std::string(200'000, '7');
  for (const auto& scalar : {digits, "." + digits, digits + "e5", digits + "x"}) {
    const auto loaded = load_text(preamble + "model: {x: " + scalar + "}\n", "web-tab.yaml");
    CHECK((loaded.ok() || loaded.error().message.rfind("web-tab.yaml:", 0) == 0));
  }
}
