#include "open_steps.hpp"

#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::conformance::detail {

bool failed_at_application(const reference_server::session_event& event) {
  return protocol::parse_event_type(event.type) == protocol::event_type::client_tool_failed &&
         protocol::string_at(event.data, "reason") == "tool_unavailable";
}

bool made_by_an_answer(const reference_server::session_event& event) {
  using protocol::event_type;
  const auto type = protocol::parse_event_type(event.type);
  return type == event_type::client_tool_dispatched || type == event_type::turn_completed ||
         type == event_type::turn_failed || failed_at_application(event);
}

void open_steps::answered(const std::string& session, std::size_t calls,
                          std::uint64_t models_seen) {
  auto& view = sessions_[session];
  ++view.generation;
  view.open.reset();
  if (calls > 0) view.open = step{calls, models_seen, view.generation, {}, {}};
}

std::optional<std::uint64_t> open_steps::on_event(const reference_server::session_event& event) {
  auto& view = sessions_[event.session_id];
  if (event.seq <= view.latest_seq) return std::nullopt;  // another stream had it first
  view.latest_seq = event.seq;
  using protocol::event_type;
  const auto type = protocol::parse_event_type(event.type);
  if (type == event_type::turn_completed || type == event_type::turn_failed) {
    view.open.reset();  // the turn is over: no further step is owed
    return std::nullopt;
  }
  const std::string call_id = protocol::string_at(event.data, "call_id");
  if (call_id.empty()) return std::nullopt;
  const auto generation = view.step_of_call.try_emplace(call_id, view.generation).first->second;
  const bool settles =
      type == event_type::client_tool_completed || type == event_type::client_tool_failed;
  if (!view.open || generation != view.open->generation) return std::nullopt;
  view.open->seen.insert(call_id);
  if (!settles) return std::nullopt;
  // A call that was never dispatched (TOOLS-5) settles with its failure event alone.
  view.open->settled.insert(call_id);
  // Settled as its answer was applied: more of the step's events may follow in the batch.
  const bool all_named_settled =
      !failed_at_application(event) && view.open->settled.size() == view.open->seen.size();
  if (view.open->settled.size() < view.open->calls && !all_named_settled) return std::nullopt;
  const std::uint64_t owed = view.open->models_seen + 1;
  view.open.reset();
  return owed;
}

}  // namespace toolwire::conformance::detail
