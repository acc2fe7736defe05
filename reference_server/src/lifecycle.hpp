// The life cycles of the core's records (calls, tasks, turns, clients) as
// (state, event) -> state tables, in one place.
//
// A call (SPEC CALL-3..6, LIFE-5, TOOLS-5). A record is born dispatched, when its id is issued.
//   dispatched --acked--> acked --acked--> acked      (a repeated ack of an open call is 200)
//   dispatched | acked --result_posted--> completed
//   dispatched | acked --deadline_passed--> failed    (reason ack_timeout | result_timeout)
//   dispatched | acked --client_gone--> failed        (reason client_left | client_expired)
//   dispatched --tool_unavailable--> failed           (TOOLS-5: failed before any client sees it)
//   completed and failed are final: an ack or a result there is 409 (CALL-6).
//
// A task (TASK-3..5, TASK-7, MODEL-4). Born pending; its first model step starts at once.
//   pending --step_requested--> processing
//   processing --tool_calls--> interrupted --tool_results--> processing  (else 409, TASK-4)
//   processing --text_answer--> completed
//   processing --model_failed | step_limit_reached--> failed
//   interrupted --interrupt_deadline_passed--> failed                     (TASK-7)
//   completed and failed are final (TASK-5).
//   Steps whose calls surface nothing (TASK-8) leave a task processing: no move.
//
// A turn of a session (SES-2, section 6). Born started, by a message.
//   started | settled --step_requested--> awaiting_model
//   started | settled --step_limit_reached--> failed
//   awaiting_model --text_answer--> completed
//   awaiting_model --model_failed--> failed
//   awaiting_model --tool_calls--> dispatching --calls_resolved--> awaiting_calls
//   awaiting_calls --calls_settled--> settled         (CALL-9: every call of the step)
//   completed and failed are final: the session drops the turn and takes a new message.
//   dispatching lasts while one model answer's calls are dispatched or settled at once;
//   settled lasts until the next step is asked, which waits for the timers of the instant
//   (state::deferred_turns). Neither outlives the command that entered it.
//
// A client (LIFE-1..4). Born live, by registration; pings and PUTs leave it live.
//   live --deleted--> left
//   live --ttl_lapsed--> expired
//   left and expired are final; the session then drops the record, so every later
//   request on the client is 404 (LIFE-4).
//
// The core changes a status only through `move`, which asks the table first, in every
// build: a move the table refuses is a core bug, so `move` throws illegal_transition and
// changes nothing; the core then undoes the rest of the command too (journal.hpp). Where SPEC makes a refusal the client's error instead (CALL-6, TASK-4:
// 409), the caller asks `allows` first and answers.
#pragma once

#include <array>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace toolwire::reference_server::detail {

enum class call_status { dispatched, acked, completed, failed };
enum class call_event { acked, result_posted, deadline_passed, client_gone, tool_unavailable };
//! Why a call failed: the reason client_tool_failed and the model's error carry (SES-4).
enum class failure_reason {
  ack_timeout,
  result_timeout,
  client_left,
  client_expired,
  tool_unavailable
};

//! The event of the call table behind each reason: a call fails only along its cause.
constexpr call_event cause_of(failure_reason reason) {
  switch (reason) {
    case failure_reason::ack_timeout:
    case failure_reason::result_timeout:
      return call_event::deadline_passed;
    case failure_reason::client_left:
    case failure_reason::client_expired:
      return call_event::client_gone;
    case failure_reason::tool_unavailable:
      return call_event::tool_unavailable;
  }
  return call_event::tool_unavailable;
}

enum class task_status { pending, processing, interrupted, completed, failed };
enum class task_event {
  step_requested,
  tool_calls,
  tool_results,
  text_answer,
  model_failed,
  step_limit_reached,
  interrupt_deadline_passed,
};

enum class turn_status {
  started,
  awaiting_model,
  dispatching,
  awaiting_calls,
  settled,
  completed,
  failed,
};
enum class turn_event {
  step_requested,
  step_limit_reached,
  text_answer,
  model_failed,
  tool_calls,
  calls_resolved,
  calls_settled,
};

enum class client_status { live, left, expired };
enum class client_event { deleted, ttl_lapsed };

//! Names as statuses show on the wire (task GET, CALL-6 messages) and in illegal_transition.
std::string_view to_string(call_status s);
std::string_view to_string(call_event e);
//! The reason's name on the wire, e.g. "ack_timeout".
std::string_view to_string(failure_reason r);
std::string_view to_string(task_status s);
std::string_view to_string(task_event e);
std::string_view to_string(turn_status s);
std::string_view to_string(turn_event e);
std::string_view to_string(client_status s);
std::string_view to_string(client_event e);

template <typename Status, typename Event>
struct transition {
  Status from;
  Event on;
  Status to;
  std::string_view rules;  // the SPEC IDs that make this move
};

//! A move a client asks for where the table has none, which SPEC answers (409) rather than
//! the core refusing it as a bug: a row of its own for coverage (explore reports both).
template <typename Status, typename Event>
struct refusal {
  Status from;
  Event on;
  std::string_view rules;
};

inline constexpr auto call_table = std::to_array<transition<call_status, call_event>>({
    {call_status::dispatched, call_event::acked, call_status::acked, "CALL-3"},
    {call_status::acked, call_event::acked, call_status::acked, "CALL-3"},
    {call_status::dispatched, call_event::result_posted, call_status::completed, "CALL-4"},
    {call_status::acked, call_event::result_posted, call_status::completed, "CALL-4"},
    {call_status::dispatched, call_event::deadline_passed, call_status::failed, "CALL-5"},
    {call_status::acked, call_event::deadline_passed, call_status::failed, "CALL-5"},
    {call_status::dispatched, call_event::client_gone, call_status::failed, "LIFE-5"},
    {call_status::acked, call_event::client_gone, call_status::failed, "LIFE-5"},
    {call_status::dispatched, call_event::tool_unavailable, call_status::failed, "TOOLS-5"},
});

inline constexpr auto task_table = std::to_array<transition<task_status, task_event>>({
    {task_status::pending, task_event::step_requested, task_status::processing, "TASK-3"},
    {task_status::processing, task_event::tool_calls, task_status::interrupted, "TASK-3"},
    {task_status::interrupted, task_event::tool_results, task_status::processing, "TASK-4"},
    {task_status::processing, task_event::text_answer, task_status::completed, "TASK-3"},
    {task_status::processing, task_event::model_failed, task_status::failed, "MODEL-4"},
    {task_status::processing, task_event::step_limit_reached, task_status::failed, "TASK-3"},
    {task_status::interrupted, task_event::interrupt_deadline_passed, task_status::failed,
     "TASK-7"},
});

inline constexpr auto turn_table = std::to_array<transition<turn_status, turn_event>>({
    {turn_status::started, turn_event::step_requested, turn_status::awaiting_model, "SES-2"},
    {turn_status::settled, turn_event::step_requested, turn_status::awaiting_model, "CALL-9"},
    {turn_status::started, turn_event::step_limit_reached, turn_status::failed, "SES-4"},
    {turn_status::settled, turn_event::step_limit_reached, turn_status::failed, "SES-4"},
    {turn_status::awaiting_model, turn_event::text_answer, turn_status::completed, "SES-5"},
    {turn_status::awaiting_model, turn_event::model_failed, turn_status::failed, "MODEL-4"},
    {turn_status::awaiting_model, turn_event::tool_calls, turn_status::dispatching, "CALL-1"},
    {turn_status::dispatching, turn_event::calls_resolved, turn_status::awaiting_calls, "TOOLS-5"},
    {turn_status::awaiting_calls, turn_event::calls_settled, turn_status::settled, "CALL-9"},
});

inline constexpr auto client_table = std::to_array<transition<client_status, client_event>>({
    {client_status::live, client_event::deleted, client_status::left, "LIFE-1"},
    {client_status::live, client_event::ttl_lapsed, client_status::expired, "LIFE-3"},
});

inline constexpr auto call_refusals = std::to_array<refusal<call_status, call_event>>({
    {call_status::completed, call_event::acked, "CALL-6"},
    {call_status::failed, call_event::acked, "CALL-6"},
    {call_status::completed, call_event::result_posted, "CALL-6"},
    {call_status::failed, call_event::result_posted, "CALL-6"},
});

inline constexpr auto task_refusals = std::to_array<refusal<task_status, task_event>>({
    {task_status::processing, task_event::tool_results, "TASK-4"},
    {task_status::completed, task_event::tool_results, "TASK-4"},
    {task_status::failed, task_event::tool_results, "TASK-4"},
});

inline constexpr std::array<refusal<turn_status, turn_event>, 0> turn_refusals{};
inline constexpr std::array<refusal<client_status, client_event>, 0> client_refusals{};

//! Which table and name go with an event type.
template <typename Event>
struct life_cycle;
template <>
struct life_cycle<call_event> {
  using status = call_status;
  static constexpr std::string_view name = "call";
  static constexpr const auto& table = call_table;
  static constexpr const auto& refusals = call_refusals;
  static constexpr std::size_t first_point = 0;
};
template <>
struct life_cycle<task_event> {
  using status = task_status;
  static constexpr std::string_view name = "task";
  static constexpr const auto& table = task_table;
  static constexpr const auto& refusals = task_refusals;
  static constexpr std::size_t first_point = call_table.size() + call_refusals.size();
};
template <>
struct life_cycle<turn_event> {
  using status = turn_status;
  static constexpr std::string_view name = "turn";
  static constexpr const auto& table = turn_table;
  static constexpr const auto& refusals = turn_refusals;
  static constexpr std::size_t first_point =
      life_cycle<task_event>::first_point + task_table.size() + task_refusals.size();
};
template <>
struct life_cycle<client_event> {
  using status = client_status;
  static constexpr std::string_view name = "client";
  static constexpr const auto& table = client_table;
  static constexpr const auto& refusals = client_refusals;
  static constexpr std::size_t first_point =
      life_cycle<turn_event>::first_point + turn_table.size() + turn_refusals.size();
};

//! The coverage points: every row of the four tables and every refusal, numbered in this
//! file's order (call, task, turn, client; each table's rows, then its refusals).
inline constexpr std::size_t life_cycle_point_count =
    life_cycle<client_event>::first_point + client_table.size() + client_refusals.size();

template <typename Event>
using status_of = typename life_cycle<Event>::status;

//! A move the table refuses, e.g. "call: no transition from completed on acked". Always a
//! bug in the core, never a client's error: those are answered from `allows`.
class illegal_transition : public std::logic_error {
 public:
  illegal_transition(std::string_view life_cycle, std::string_view from, std::string_view on);
};

//! The table's answer: the status `on` leads to from `from`, or none when it does not apply.
template <typename Event>
constexpr std::optional<status_of<Event>> next_status(status_of<Event> from, Event on) {
  for (const auto& row : life_cycle<Event>::table) {
    if (row.from == from && row.on == on) return row.to;
  }
  return std::nullopt;
}

template <typename Event>
constexpr bool allows(status_of<Event> from, Event on) {
  return next_status(from, on).has_value();
}

//! The coverage point of the move `on` from `from` (a table row), if the table has it.
template <typename Event>
constexpr std::optional<std::size_t> point_of_move(status_of<Event> from, Event on) {
  const auto& table = life_cycle<Event>::table;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].from == from && table[i].on == on) return life_cycle<Event>::first_point + i;
  }
  return std::nullopt;
}

//! The coverage point of a refusal SPEC answers, if `on` from `from` is one.
template <typename Event>
constexpr std::optional<std::size_t> point_of_refusal(status_of<Event> from, Event on) {
  const auto& refusals = life_cycle<Event>::refusals;
  for (std::size_t i = 0; i < refusals.size(); ++i) {
    if (refusals[i].from == from && refusals[i].on == on) {
      return life_cycle<Event>::first_point + life_cycle<Event>::table.size() + i;
    }
  }
  return std::nullopt;
}

//! Moves `current` along the table; throws illegal_transition, leaving it as it was, when
//! the table has no such move.
template <typename Event>
void move(status_of<Event>& current, Event on) {
  const auto next = next_status(current, on);
  if (!next) throw illegal_transition(life_cycle<Event>::name, to_string(current), to_string(on));
  current = *next;
}

}  // namespace toolwire::reference_server::detail
