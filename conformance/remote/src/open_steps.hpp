// Which answered model steps of session turns still wait for their calls to settle, read
// from the sessions' events: once all of a step's calls are settled the target owes the
// next model step (CALL-9), and a harness that waited only for "quiet" could move on first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "toolwire/reference_server/core.hpp"

namespace toolwire::conformance::detail {

//! Whether `event` is a call failed as its model answer was applied (TOOLS-5:
//! `client_tool_failed` with reason `tool_unavailable`), not later by a result, a
//! deadline or its client's end.
bool failed_at_application(const reference_server::session_event& event);

//! Whether `event` is one that applying a model answer to a turn makes: a dispatch
//! (CALL-1), a call failed at application (TOOLS-5), the turn's end (SES-5). Nothing else
//! due at the answer's instant makes one, so only these show that the answer was applied.
//! Why it matters: a client that expires at the instant a held answer is released sends
//! its client_unregistered at about the moment the answer goes out; counted as the answer's
//! effect, the harness moved on before the target asked the model again (explore seed 1,
//! program 594, on a loaded machine).
bool made_by_an_answer(const reference_server::session_event& event);

//! Not thread-safe: arrivals uses it under its own lock.
class open_steps {
 public:
  //! The stand-in answered a model step of `session`'s turn with `calls` tool calls, when
  //! `models_seen` model requests of that turn's session had arrived.
  void answered(const std::string& session, std::size_t calls, std::uint64_t models_seen);

  //! An event arrived on any stream (every stream of a session carries the same events,
  //! so each seq counts once). If it settles the last open call of its session's step,
  //! returns the number of model requests to await in all: the next step's is owed. The
  //! last open call: the step's calls are all settled, or a result, deadline or client's
  //! end settled the last call an event named. Why the second: a call naming a tool no
  //! live client has is settled at once without an event (TOOLS-5), and every event of a
  //! step's answer (dispatches, tool_unavailable failures) comes before any such later
  //! settlement (SES-5).
  std::optional<std::uint64_t> on_event(const reference_server::session_event& event);

 private:
  struct step {
    std::size_t calls = 0;
    std::uint64_t models_seen = 0;  // when the step was answered
    std::uint64_t generation = 0;   // which answered step of the session this is
    std::set<std::string> seen;     // call ids of this step any event named so far
    std::set<std::string> settled;  // call ids of this step settled so far
  };
  struct session_view {
    std::uint64_t latest_seq = 0;
    std::uint64_t generation = 0;
    //! Each call id seen, with the generation of the step it belongs to. Why: an event of
    //! an earlier step's call can arrive after the next step was answered (events and
    //! model requests travel on different sockets) and must not count for the new one.
    std::map<std::string, std::uint64_t> step_of_call;
    std::optional<step> open;
  };
  std::map<std::string, session_view> sessions_;
};

}  // namespace toolwire::conformance::detail
