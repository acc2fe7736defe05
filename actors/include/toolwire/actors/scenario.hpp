// A scenario as the simulator runs it: who takes part (clients with behaviours, task
// callers, the scripted model), what the director does when, and for how long. The
// scenario language (scenarios/) reads YAML into this; tests and built-ins build it in C++.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "toolwire/protocol/types.hpp"
#include "toolwire/reference_server/core.hpp"

namespace toolwire::actors {

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
  json result_content = "ok";
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
  json result_content = "ok";
};

//! The director's timed actions.
struct post_message {
  std::string content;
};

struct director_step {
  time_ms at = 0;
  std::variant<post_message> action;
};

struct scenario {
  std::string name;
  std::string purpose;
  std::vector<std::string> spec_ids;
  std::vector<client_spec> clients;
  std::vector<task_caller_spec> task_callers;
  std::vector<director_step> steps;
  json model_script = json{{"rules", json::array()}};  // reference::model_script format
  time_ms duration = 60'000;  // then clients stop and open calls settle out
  // Target settings (SPEC CALL-3, TASK-7 and the reference server's faults).
  time_ms ack_timeout_ms = 10'000;
  time_ms result_timeout_ms = 300'000;
  time_ms interrupt_timeout_ms = 600'000;
  reference::fault_set faults;
};

}  // namespace toolwire::actors
