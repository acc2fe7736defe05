// A model answer to a turn is work the target owes a reaction to: a dispatch, a call failed
// at application, the turn's end, or the next model request. The harness waits for one of
// those, never for any event: a client expiring at the instant a held answer goes out sends
// its client_unregistered at about the same moment, and a harness that took it for the
// answer's effect moved the clock on before the target asked the model again (a false
// divergence found by explore, seed 1, program 594, on a loaded CI machine).
#include <catch2/catch.hpp>

#include <chrono>

#include "arrivals.hpp"

using toolwire::conformance::detail::arrivals;
using toolwire::conformance::detail::made_by_an_answer;
using toolwire::conformance::detail::stream_arrival;
using toolwire::protocol::json;
using toolwire::reference_server::session_event;
using namespace std::chrono_literals;

namespace {

stream_arrival event_on(const std::string& session, std::uint64_t seq, const std::string& type,
                        json data) {
  return {1, session_event{session, seq, type, std::move(data), 0}};
}

stream_arrival expired(const std::string& session, std::uint64_t seq) {
  return event_on(session, seq, "client_unregistered",
                  {{"client_id", "c1"}, {"name", "db_2"}, {"reason", "expired"}});
}

stream_arrival dispatched(const std::string& session, std::uint64_t seq) {
  return event_on(session, seq, "client_tool_dispatched",
                  {{"call_id", "k1"}, {"client_id", "c2"}, {"tool", "read"}, {"turn_id", "t1"}});
}

//! How long a wait for quiet (no settle time) lasts, bounded by `bound`.
std::chrono::milliseconds quiet_after(arrivals& inbox, std::chrono::milliseconds bound) {
  const auto start = std::chrono::steady_clock::now();
  inbox.wait_quiet(0ms, bound);
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

//! How long await_turn_answers_applied waits, bounded by `bound`.
std::chrono::milliseconds applied_after(arrivals& inbox, std::chrono::milliseconds bound) {
  const auto start = std::chrono::steady_clock::now();
  inbox.await_turn_answers_applied(bound);
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

}  // namespace

TEST_CASE("Only the events an answer makes show that it was applied", "[remote][answers]") {
  auto event = [](const std::string& type, json data = json::object()) {
    return session_event{"s1", 1, type, std::move(data), 0};
  };
  CHECK(made_by_an_answer(event("client_tool_dispatched")));
  CHECK(made_by_an_answer(event("turn_completed")));
  CHECK(made_by_an_answer(event("turn_failed")));
  CHECK(made_by_an_answer(event("client_tool_failed", {{"reason", "tool_unavailable"}})));
  // What timers, results and clients make, at any instant.
  CHECK_FALSE(made_by_an_answer(event("client_unregistered", {{"reason", "expired"}})));
  CHECK_FALSE(made_by_an_answer(event("client_tool_failed", {{"reason", "client_expired"}})));
  CHECK_FALSE(made_by_an_answer(event("client_tool_failed", {{"reason", "ack_timeout"}})));
  CHECK_FALSE(made_by_an_answer(event("client_tool_completed")));
  CHECK_FALSE(made_by_an_answer(event("client_registered")));
  CHECK_FALSE(made_by_an_answer(event("client_tools_updated")));
  CHECK_FALSE(made_by_an_answer(event("turn_started")));
  CHECK_FALSE(made_by_an_answer(event("a_type_of_its_own")));
}

TEST_CASE("A client's expiry at the answer's instant is not the turn going on",
          "[remote][answers]") {
  // Both waits on an answer: quiet (the clock may move on) and the suite's next request.
  struct wait {
    const char* name;
    void (arrivals::*answered)(const std::string&);
    std::chrono::milliseconds (*lasts)(arrivals&, std::chrono::milliseconds);
  };
  for (const wait& w : {wait{"quiet", &arrivals::await_turn_goes_on, quiet_after},
                        wait{"the next request", &arrivals::turn_answered, applied_after}}) {
    INFO(w.name);
    arrivals expiry_only;
    (expiry_only.*w.answered)("s1");
    expiry_only.push(expired("s1", 6));
    CHECK(w.lasts(expiry_only, 300ms) >= 300ms);  // waits on for the answer's effect

    arrivals then_dispatch;
    (then_dispatch.*w.answered)("s1");
    then_dispatch.push(expired("s1", 6));
    then_dispatch.push(dispatched("s1", 7));
    CHECK(w.lasts(then_dispatch, 10s) < 5s);  // a dispatch is the answer's effect
  }
}
