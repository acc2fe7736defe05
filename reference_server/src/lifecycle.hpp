// The call and task life cycles as tables, in one place (SPEC CALL-3..6, TASK-5).
//
// A call:  dispatched --ack--> acked
//          dispatched | acked --result--> completed
//          dispatched | acked --deadline, client gone--> failed
//          completed and failed are final: anything more is 409 (CALL-6).
// A task:  pending --model step--> processing
//          processing --client tool calls--> interrupted --tool-results--> processing
//          processing --text answer--> completed;  processing | interrupted --error--> failed
//          completed and failed are final (TASK-5).
// The core asks these tables before every move; an illegal move is a core bug, so it
// asserts rather than returning an error.
#pragma once

#include <array>
#include <cassert>
#include <string_view>
#include <utility>

namespace toolwire::reference::detail {

enum class call_status { dispatched, acked, completed, failed };
enum class task_status { pending, processing, interrupted, completed, failed };

std::string_view to_string(call_status s);
std::string_view to_string(task_status s);

inline constexpr std::array<std::pair<call_status, call_status>, 5> call_moves{{
    {call_status::dispatched, call_status::acked},
    {call_status::dispatched, call_status::completed},
    {call_status::dispatched, call_status::failed},
    {call_status::acked, call_status::completed},
    {call_status::acked, call_status::failed},
}};

inline constexpr std::array<std::pair<task_status, task_status>, 6> task_moves{{
    {task_status::pending, task_status::processing},
    {task_status::processing, task_status::interrupted},
    {task_status::interrupted, task_status::processing},
    {task_status::processing, task_status::completed},
    {task_status::processing, task_status::failed},
    {task_status::interrupted, task_status::failed},
}};

template <typename Status, std::size_t N>
constexpr bool is_allowed(const std::array<std::pair<Status, Status>, N>& table, Status from,
                          Status to) {
  for (const auto& [a, b] : table) {
    if (a == from && b == to) return true;
  }
  return false;
}

inline bool is_settled(call_status s) {
  return s == call_status::completed || s == call_status::failed;
}

inline void move(call_status& current, call_status next) {
  assert(is_allowed(call_moves, current, next));
  current = next;
}

inline void move(task_status& current, task_status next) {
  assert(is_allowed(task_moves, current, next));
  current = next;
}

}  // namespace toolwire::reference::detail
