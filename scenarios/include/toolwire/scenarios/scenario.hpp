// A scenario as the simulator runs it: who takes part (clients with behaviours, task
// callers, the scripted model), what the director does when, and for how long. The
// scenario language (scenarios/) reads YAML into this; tests and built-ins build it in C++.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "toolwire/protocol/types.hpp"
#include "toolwire/reference_server/core.hpp"
#include "toolwire/scenarios/vocabulary.hpp"

namespace toolwire::scenarios {

using protocol::json;
using protocol::time_ms;

//! A tool list a navigating tab PUTs at a given moment (TOOLS-1).
struct screen_change {
  time_ms at = 0;
  std::vector<protocol::tool_spec> tools;
};

//! How a client behaves. The named presets below set these knobs; scenarios combine them.
struct client_spec {
  std::string actor;           // the actor's name in traces, e.g. "tab"
  std::string requested_name;  // the name it registers with (REG-4)
  protocol::lifetime lifetime;
  std::vector<protocol::tool_spec> tools;
  time_ms join_at = 0;

  std::optional<time_ms> ping_every;   // browser tabs ping on an interval (LIFE-2)
  std::optional<time_ms> vanish_at;    // stops pinging and drops its stream, without a word
  std::optional<time_ms> leave_at;     // leaves by DELETE (LIFE-1)
  std::vector<screen_change> screens;  // re-PUTs its tool list on each screen change

  bool acks = true;               // a forgetful client never acks
  time_ms ack_delay = 0;          // a slow client acks late
  bool answers = true;            // a forgetful client never answers
  time_ms result_delay = 0;       // a slow client answers late
  bool duplicate_result = false;  // posts its result twice (CALL-6)
  bool error_result = false;      // answers with an error result (CALL-4, CALL-8)
  bool auto_join = true;          // joins at join_at; false: waits for a `register` step
  json result_content = "ok";
  //! A real tab in headless Chromium (`kind: browser`): the page registers, pings, acks
  //! and answers by itself; steps open, navigate, freeze, reload and close it. None of
  //! the knobs above apply (docs/browser.md).
  bool browser = false;
  //! Browser clients with one `window` share one browser context: its connections (at
  //! most 6 per origin over HTTP/1.1, which Chromium holds to), its offline switch and its
  //! relay to the target. "": a context of its own.
  std::string window;
};

// -- behaviour presets (each returns the spec with its knobs set) -------------------------
client_spec browser_tab(client_spec spec, std::int64_t ttl_seconds, time_ms ping_every);
client_spec backend_worker(client_spec spec);
client_spec navigating_tab(client_spec spec, std::vector<screen_change> screens);
client_spec slow_client(client_spec spec, time_ms ack_delay, time_ms result_delay);
client_spec forgetful_client(client_spec spec);
client_spec duplicating_client(client_spec spec);
client_spec erroring_client(client_spec spec);

//! A Part B caller: creates a task, polls it, and answers its pending calls.
struct task_caller_spec {
  std::string actor;
  time_ms start_at = 0;
  std::string input;  // the task's input text (MODEL-3)
  std::vector<protocol::tool_spec> client_tools;
  time_ms poll_every = 1000;
  time_ms answer_delay = 0;
  bool error_results = false;
  //! Of a round of two or more pending calls, posts the first call's result alone, then
  //! all of them: a partial round is refused (TASK-4), the whole one accepted.
  bool partial_results = false;
  //! Posts each accepted round's results again at once, and its last round's once more
  //! when it sees the task over: the task is processing, completed or failed then, so
  //! both are refused with 409, whatever the items (TASK-4).
  bool repeat_results = false;
  json result_content = "ok";
};

//! What a scripted step or a scenario expects, checked on the trace after the run
//! (actors/expectations.hpp). `kind` is one of the expectation kinds of the vocabulary
//! (scenario_vocabulary.hpp); `args` are its fields as written, e.g. for kind "event"
//! `{"type": "client_tool_failed", "reason": "client_expired"}`.
struct expectation {
  std::string kind;
  json args = json::object();
  std::vector<std::string> spec_ids;  // every expectation cites what it checks
  std::string where;                  // "file.yaml:14", for messages

  friend bool operator==(const expectation&, const expectation&) = default;
};

//! One timed step of a scripted scenario: at `at`, `actor` performs `action` with `args`
//! (see the vocabulary for each action's fields), and `expect` is checked. A step with
//! an empty `action` only checks: its expectations hold for everything up to `at`.
struct scripted_step {
  time_ms at = 0;     // virtual ms since the run started (the loader resolves at/after)
  std::string actor;  // a client's actor name, or "director" (session-level actions)
  std::string action;
  json args = json::object();
  std::vector<expectation> expect;
  std::string where;  // "file.yaml:14"

  //! Whether the step performs `id` (the loader admits only the vocabulary's actions).
  bool performs(vocabulary::action_id id) const { return vocabulary::action_named(action) == id; }

  friend bool operator==(const scripted_step&, const scripted_step&) = default;
};

//! What a scenario needs from its target; a target without it reports the scenario
//! "not applicable". Values: "part_a", "part_b", "virtual_clock", "limited_key", "cors",
//! "exact_timing", "browser" (format.cpp's requirements table).
using requirement = std::string;

struct scenario {
  std::string name;
  std::string purpose;
  std::vector<std::string> spec_ids;
  //! Faults of the reference server that make this scenario fail: a catalog case's proof
  //! that it can fail, checked by the catalog test (tests/conformance/catalog_test.cpp).
  std::vector<std::string> breaks_with;
  std::vector<client_spec> clients;
  std::vector<task_caller_spec> task_callers;
  std::vector<scripted_step> steps;  // in time order (ties keep their written order)
  std::vector<requirement> needs;
  json model_script = json{{"rules", json::array()}};  // reference_server::model_script format
  time_ms duration = 60'000;  // then clients stop and open calls settle out
  // Target settings (SPEC CALL-3, TASK-7 and the reference server's faults).
  time_ms ack_timeout_ms = 10'000;
  time_ms result_timeout_ms = 300'000;
  time_ms interrupt_timeout_ms = 600'000;
  //! The timeouts the file's `settings:` states. Its times are written for them, so a
  //! target with other timeouts cannot play it: the scenario is not applicable there,
  //! never a violation. Unset: the file states none, and its times are relative to the
  //! target's timeouts, as the catalog's are (docs/scenario-language.md, "Time").
  std::optional<time_ms> stated_ack_timeout_ms, stated_result_timeout_ms,
      stated_interrupt_timeout_ms;
  reference_server::fault_set faults;
};

//! When a run of `plan` ends: its duration, or just after its last step if that is later.
inline time_ms end_of(const scenario& plan) {
  return plan.steps.empty() ? plan.duration : std::max(plan.duration, plan.steps.back().at + 1);
}

//! When a real-clock run of `plan` ends: just after its last step, whose expectations are
//! the last to be decided (its duration when it has no steps). Wall time is not spent on
//! the rest of `duration`.
inline time_ms end_of_steps(const scenario& plan) {
  return plan.steps.empty() ? plan.duration : plan.steps.back().at + 1;
}

}  // namespace toolwire::scenarios
