// When the harness owes a turn's next model step (CALL-9): read from the session's events.
#include <catch2/catch.hpp>

#include "open_steps.hpp"

using toolwire::conformance::detail::open_steps;
using toolwire::protocol::json;
using toolwire::reference_server::session_event;

namespace {

session_event event(std::uint64_t seq, const std::string& type, const std::string& call_id) {
  return {"ses_1", seq, type, json{{"call_id", call_id}}, 0};
}

}  // namespace

TEST_CASE("A step's next model request is owed once each of its calls is settled",
          "[remote][open-steps]") {
  open_steps steps;
  steps.answered("ses_1", 2, /*models_seen=*/4);
  CHECK_FALSE(steps.on_event(event(1, "client_tool_dispatched", "a")));
  CHECK_FALSE(steps.on_event(event(2, "client_tool_dispatched", "b")));
  CHECK_FALSE(steps.on_event(event(3, "client_tool_completed", "b")));
  // The same event again, as another stream of the session delivers it: counted once.
  CHECK_FALSE(steps.on_event(event(3, "client_tool_completed", "b")));
  CHECK(steps.on_event(event(4, "client_tool_failed", "a")) == 5u);
  // Owed once: nothing more until the next step is answered.
  CHECK_FALSE(steps.on_event(event(5, "client_tool_completed", "a")));
}

TEST_CASE("A call that was never dispatched settles with its failure alone (TOOLS-5)",
          "[remote][open-steps]") {
  open_steps steps;
  steps.answered("ses_1", 1, 0);
  CHECK(steps.on_event(event(1, "client_tool_failed", "gone")) == 1u);
}

TEST_CASE("A call naming a tool no live client has counts as settled without an event (TOOLS-5)",
          "[remote][open-steps]") {
  open_steps steps;
  // Two calls: one dispatched, one to a name no live client has (no event at all). Found
  // by explore with no settle time: the next model request was not awaited, and came
  // only at the next clock stop.
  steps.answered("ses_1", 2, /*models_seen=*/3);
  CHECK_FALSE(steps.on_event(event(1, "client_tool_dispatched", "a")));
  CHECK(steps.on_event(event(2, "client_tool_completed", "a")) == 4u);

  // Three calls: one failed as its answer is applied, one dispatched, one with no event.
  // The failure comes first and is not the last of the answer's events.
  steps.answered("ses_1", 3, 5);
  CHECK_FALSE(steps.on_event({"ses_1", 3, "client_tool_failed",
                              json{{"call_id", "b"}, {"reason", "tool_unavailable"}}, 0}));
  CHECK_FALSE(steps.on_event(event(4, "client_tool_dispatched", "c")));
  CHECK(steps.on_event({"ses_1", 5, "client_tool_failed",
                        json{{"call_id", "c"}, {"reason", "ack_timeout"}}, 0}) == 6u);
}

TEST_CASE("An earlier step's late event does not count for the next step", "[remote][open-steps]") {
  open_steps steps;
  steps.answered("ses_1", 2, 0);
  CHECK_FALSE(steps.on_event(event(1, "client_tool_dispatched", "a")));
  CHECK_FALSE(steps.on_event(event(2, "client_tool_dispatched", "b")));
  CHECK_FALSE(steps.on_event(event(3, "client_tool_completed", "a")));
  // The stand-in answers step 2 before the stream delivered b's completion.
  steps.answered("ses_1", 1, 1);
  CHECK_FALSE(steps.on_event(event(4, "client_tool_completed", "b")));
  CHECK_FALSE(steps.on_event(event(5, "client_tool_dispatched", "c")));
  CHECK(steps.on_event(event(6, "client_tool_completed", "c")) == 2u);
}

TEST_CASE("Nothing is owed after a text answer or once the turn has ended",
          "[remote][open-steps]") {
  open_steps steps;
  steps.answered("ses_1", 0, 0);
  CHECK_FALSE(steps.on_event(event(1, "client_tool_failed", "x")));
  steps.answered("ses_1", 1, 1);
  CHECK_FALSE(steps.on_event(event(2, "client_tool_dispatched", "y")));
  CHECK_FALSE(steps.on_event({"ses_1", 3, "turn_failed", json{{"reason", "session_closed"}}, 0}));
  CHECK_FALSE(steps.on_event(event(4, "client_tool_failed", "y")));
  // Events of another session count for that session only.
  steps.answered("ses_1", 1, 2);
  CHECK_FALSE(steps.on_event({"ses_2", 1, "client_tool_failed", json{{"call_id", "z"}}, 0}));
}
