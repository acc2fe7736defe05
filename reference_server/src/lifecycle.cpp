// Names of the life-cycle statuses and events, and the exception of a refused move.
#include "lifecycle.hpp"

#include <string>
#include <vector>

#include "toolwire/reference_server/core.hpp"

namespace toolwire::reference_server::detail {

std::string_view to_string(call_status s) {
  switch (s) {
    case call_status::dispatched:
      return "dispatched";
    case call_status::acked:
      return "acked";
    case call_status::completed:
      return "completed";
    case call_status::failed:
      return "failed";
  }
  return "unknown";
}

std::string_view to_string(call_event e) {
  switch (e) {
    case call_event::acked:
      return "acked";
    case call_event::result_posted:
      return "result_posted";
    case call_event::deadline_passed:
      return "deadline_passed";
    case call_event::client_gone:
      return "client_gone";
    case call_event::tool_unavailable:
      return "tool_unavailable";
  }
  return "unknown";
}

std::string_view to_string(failure_reason r) {
  switch (r) {
    case failure_reason::ack_timeout:
      return "ack_timeout";
    case failure_reason::result_timeout:
      return "result_timeout";
    case failure_reason::client_left:
      return "client_left";
    case failure_reason::client_expired:
      return "client_expired";
    case failure_reason::tool_unavailable:
      return "tool_unavailable";
  }
  return "unknown";
}

std::string_view to_string(task_status s) {
  switch (s) {
    case task_status::pending:
      return "pending";
    case task_status::processing:
      return "processing";
    case task_status::interrupted:
      return "interrupted";
    case task_status::completed:
      return "completed";
    case task_status::failed:
      return "failed";
  }
  return "unknown";
}

std::string_view to_string(task_event e) {
  switch (e) {
    case task_event::step_requested:
      return "step_requested";
    case task_event::tool_calls:
      return "tool_calls";
    case task_event::tool_results:
      return "tool_results";
    case task_event::text_answer:
      return "text_answer";
    case task_event::model_failed:
      return "model_failed";
    case task_event::step_limit_reached:
      return "step_limit_reached";
    case task_event::interrupt_deadline_passed:
      return "interrupt_deadline_passed";
  }
  return "unknown";
}

std::string_view to_string(turn_status s) {
  switch (s) {
    case turn_status::started:
      return "started";
    case turn_status::awaiting_model:
      return "awaiting_model";
    case turn_status::dispatching:
      return "dispatching";
    case turn_status::awaiting_calls:
      return "awaiting_calls";
    case turn_status::settled:
      return "settled";
    case turn_status::completed:
      return "completed";
    case turn_status::failed:
      return "failed";
  }
  return "unknown";
}

std::string_view to_string(turn_event e) {
  switch (e) {
    case turn_event::step_requested:
      return "step_requested";
    case turn_event::step_limit_reached:
      return "step_limit_reached";
    case turn_event::text_answer:
      return "text_answer";
    case turn_event::model_failed:
      return "model_failed";
    case turn_event::tool_calls:
      return "tool_calls";
    case turn_event::calls_resolved:
      return "calls_resolved";
    case turn_event::calls_settled:
      return "calls_settled";
  }
  return "unknown";
}

std::string_view to_string(client_status s) {
  switch (s) {
    case client_status::live:
      return "live";
    case client_status::left:
      return "left";
    case client_status::expired:
      return "expired";
  }
  return "unknown";
}

std::string_view to_string(client_event e) {
  switch (e) {
    case client_event::deleted:
      return "deleted";
    case client_event::ttl_lapsed:
      return "ttl_lapsed";
  }
  return "unknown";
}

illegal_transition::illegal_transition(std::string_view life_cycle, std::string_view from,
                                       std::string_view on)
    : std::logic_error(std::string(life_cycle) + ": no transition from " + std::string(from) +
                       " on " + std::string(on)) {}

}  // namespace toolwire::reference_server::detail

namespace toolwire::reference_server {

namespace {

template <typename Event>
void add_points(std::vector<life_cycle_point>& points) {
  using detail::life_cycle;
  const std::string name(life_cycle<Event>::name);
  for (const auto& row : life_cycle<Event>::table) {
    points.push_back({name, std::string(detail::to_string(row.from)),
                      std::string(detail::to_string(row.on)),
                      std::string(detail::to_string(row.to)), std::string(row.rules)});
  }
  for (const auto& row : life_cycle<Event>::refusals) {
    points.push_back({name, std::string(detail::to_string(row.from)),
                      std::string(detail::to_string(row.on)), "refused", std::string(row.rules)});
  }
}

}  // namespace

std::string life_cycle_point::describe() const {
  return life_cycle + " " + from + " --" + on + "--> " + to + " (" + rules + ")";
}

const std::vector<life_cycle_point>& life_cycle_points() {
  static const std::vector<life_cycle_point> points = [] {
    std::vector<life_cycle_point> all;
    // The order of life_cycle<...>::first_point: call, task, turn, client.
    add_points<detail::call_event>(all);
    add_points<detail::task_event>(all);
    add_points<detail::turn_event>(all);
    add_points<detail::client_event>(all);
    return all;
  }();
  return points;
}

}  // namespace toolwire::reference_server
