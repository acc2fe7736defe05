// The events a 2xx answer implies (REG-9, LIFE-4, CALL-4) are work the target owes: the
// harness does not call the target quiet, and so does not move the clock, before they
// arrive on a followed stream of their session, however long that takes.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "arrivals.hpp"
#include "target_routes.hpp"

using toolwire::conformance::detail::arrivals;
using toolwire::conformance::detail::request_route;
using toolwire::conformance::detail::stream_arrival;
using toolwire::protocol::api_request;
using toolwire::protocol::json;
using toolwire::reference_server::session_event;
using namespace std::chrono_literals;

namespace {

request_route route(std::string method, std::string path) {
  api_request r;
  r.method = std::move(method);
  r.path = std::move(path);
  return request_route(r);
}

//! Event `seq` of `session` on stream `stream`: client `client` registered (or of `type`).
stream_arrival event_on(std::uint64_t stream, const std::string& session, std::uint64_t seq,
                        const std::string& client = "c1",
                        const std::string& type = "client_registered") {
  return {stream, session_event{session, seq, type, json{{"client_id", client}}, 0}};
}

//! What a registration's 201 for client `client` of `session` implies (REG-9).
arrivals::awaited_event registered(const std::string& session, const std::string& client) {
  return {session, "client_registered", "client_id", client};
}

//! How long a wait for quiet (no settle time) lasts, bounded by `bound`.
std::chrono::milliseconds quiet_after(arrivals& inbox, std::chrono::milliseconds bound) {
  const auto start = std::chrono::steady_clock::now();
  inbox.wait_quiet(0ms, bound);
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

}  // namespace

TEST_CASE("Registration, a client's DELETE and a result imply an event; other routes do not",
          "[remote][implied-events]") {
  auto registered = route("POST", "/v1/sessions/s1/clients").implied();
  REQUIRE(registered);
  CHECK(registered->session == "s1");
  CHECK(registered->on_status == 201);
  auto left = route("DELETE", "/v1/sessions/s1/clients/c1").implied();
  REQUIRE(left);
  CHECK(left->on_status == 204);
  auto answered = route("POST", "/v1/sessions/s1/clients/c1/calls/k/result").implied();
  REQUIRE(answered);
  CHECK(answered->on_status == 200);
  CHECK(answered->session == "s1");
  // Each is named by what it is about: the new client (from the 201), the client that
  // left, the call answered.
  CHECK(registered->type == "client_registered");
  CHECK(route("POST", "/v1/sessions/s1/clients").implied_event_id(json{{"client_id", "c9"}}) ==
        "c9");
  CHECK(left->type == "client_unregistered");
  CHECK(route("DELETE", "/v1/sessions/s1/clients/c1").implied_event_id(json()) == "c1");
  CHECK(answered->type == "client_tool_completed");
  CHECK(answered->key == "call_id");
  CHECK(route("POST", "/v1/sessions/s1/clients/c1/calls/k/result")
            .implied_event_id(json{{"call_id", "k"}, {"status", "completed"}}) == "k");

  CHECK_FALSE(route("POST", "/v1/sessions/s1/clients/c1/calls/k/ack").implied());
  CHECK_FALSE(route("POST", "/v1/sessions/s1/clients/c1/ping").implied());
  CHECK_FALSE(route("GET", "/v1/sessions/s1/events").implied());
  CHECK_FALSE(route("DELETE", "/v1/sessions/s1").implied());
  CHECK_FALSE(route("POST", "/v1/sessions//clients").implied());
  CHECK_FALSE(route("POST", "/api/tasks/t1/tool-results").implied());
  // Why not PUT tools: SPEC names client_tools_updated (SES-4) but ties it to no answer.
  CHECK_FALSE(route("PUT", "/v1/sessions/s1/clients/c1/tools").implied());
}

TEST_CASE("An implied event that has not arrived holds quiet off until the wait's bound",
          "[remote][implied-events]") {
  arrivals inbox;
  inbox.follow_stream(1, "s1");
  inbox.push(event_on(1, "s1", 3, "c0"));
  inbox.await_event(registered("s1", "c1"));
  CHECK(quiet_after(inbox, 300ms) >= 300ms);
  // The bound passed: it is no longer awaited (the checks will tell what is missing),
  // and neither is any later one: a target that does not send them costs one bound.
  CHECK(quiet_after(inbox, 10s) < 10s);
  inbox.await_event(registered("s1", "c2"));
  CHECK(quiet_after(inbox, 10s) < 10s);
}

TEST_CASE("An implied event is owed only once, and only where a followed stream carries it",
          "[remote][implied-events]") {
  arrivals inbox;
  inbox.follow_stream(1, "s1");
  inbox.push(event_on(1, "s1", 3, "c0"));
  SECTION("it arrived before the answer did") {
    inbox.push(event_on(1, "s1", 4));
    inbox.await_event(registered("s1", "c1"));
    CHECK(quiet_after(inbox, 10s) < 10s);
  }
  SECTION("no followed stream of that session would carry it") {
    inbox.await_event(registered("s2", "c1"));
    CHECK(quiet_after(inbox, 10s) < 10s);
  }
  SECTION("it arrives while the harness waits") {
    inbox.await_event(registered("s1", "c1"));
    std::thread stream([&] { inbox.push(event_on(1, "s1", 4)); });
    CHECK(quiet_after(inbox, 10s) < 10s);
    stream.join();
    CHECK(inbox.latest_seq_of("s1") == 4);
  }
  SECTION("another event of the session does not stand in for it") {
    // A DELETE answered 204 implies the client's departure (LIFE-4); the PUT's
    // client_tools_updated sent just before it arrives first, and is not it.
    inbox.await_event({"s1", "client_unregistered", "client_id", "c1"});
    inbox.push(event_on(1, "s1", 4, "c1", "client_tools_updated"));
    CHECK(quiet_after(inbox, 300ms) >= 300ms);
  }
}

namespace {

//! How long the harness waits before its next request, after a turn step was answered.
std::chrono::milliseconds before_next_request(arrivals& inbox, std::chrono::milliseconds bound) {
  const auto start = std::chrono::steady_clock::now();
  inbox.await_turn_answers_applied(bound);
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

}  // namespace

TEST_CASE("After a turn's model answer the next request waits until the target applied it",
          "[remote][turn-answers]") {
  // Found by explore --bundled (seed 1000, 8 jobs): a DELETE of a client at the instant a
  // held answer calls its tool raced the target applying the answer; 4 of 5 runs showed
  // the DELETE first, an order the reference never shows (TOOLS-5, LIFE-5).
  arrivals inbox;
  inbox.follow_stream(1, "s1");
  inbox.follow_stream(2, "s2");
  SECTION("nothing was answered: no wait") {
    CHECK(before_next_request(inbox, 10s) < 10s);
  }
  SECTION("an event of the session shows the answer applied (a call dispatched)") {
    inbox.turn_answered("s1");
    std::thread stream([&] { inbox.push(event_on(1, "s1", 1, "c1", "client_tool_dispatched")); });
    CHECK(before_next_request(inbox, 10s) < 10s);
    stream.join();
  }
  SECTION("so does the next model request (no call could be dispatched)") {
    inbox.turn_answered("s1");
    std::thread stand_in([&] { inbox.push(toolwire::conformance::detail::model_arrival{}); });
    CHECK(before_next_request(inbox, 10s) < 10s);
    stand_in.join();
  }
  SECTION("another session's event does not; a target that shows nothing costs one bound") {
    inbox.turn_answered("s1");
    inbox.push(event_on(2, "s2", 1, "c9", "client_tool_dispatched"));
    CHECK(before_next_request(inbox, 300ms) >= 300ms);
    inbox.turn_answered("s1");
    CHECK(before_next_request(inbox, 10s) < 10s);
  }
}
