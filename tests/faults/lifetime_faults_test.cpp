// Fault tests for client lifetimes: TTLs, pings and departures (LIFE-2..6), on virtual time.
#include <catch2/catch.hpp>

#include <string>

#include "faults/fault_contrast.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference_server::fault;

namespace {

//! Pings a client; returns the status.
int ping(core_harness& h, const std::string& sid, const std::string& cid) {
  return h.request("POST", h.client_path(sid, cid) + "/ping").status;
}

}  // namespace

TEST_CASE("fault ping_does_not_extend breaks LIFE-2", "[faults][LIFE-2]") {
  // LIFE-2: "`ttl`: the client ends `seconds` after its last ping; registration counts as
  // the first ping."
  const auto seen = run_clean_and_faulty(fault::ping_does_not_extend, [](core_harness& h) {
    const auto sid = h.create_session();
    const std::string cid = h.register_client(sid, "tab", core_harness::ttl(10))["client_id"];
    h.advance(6'000);
    const auto pinged = h.request("POST", h.client_path(sid, cid) + "/ping");
    REQUIRE(pinged.status == 200);
    h.advance(6'000);  // 12 s after registration, 6 s after the ping
    return json{{"expires_in_ms", pinged.body["expires_at_ms"].get<time_ms>() - start_time},
                {"unregistered", count_events(h, sid, "client_unregistered")},
                {"ping_at_12s", ping(h, sid, cid)}};
  });
  CHECK(seen.clean == json{{"expires_in_ms", 16'000}, {"unregistered", 0}, {"ping_at_12s", 200}});
  CHECK(seen.faulty == json{{"expires_in_ms", 10'000}, {"unregistered", 1}, {"ping_at_12s", 404}});
}

TEST_CASE("fault ttl_boundary_inclusive breaks LIFE-3", "[faults][LIFE-3]") {
  // LIFE-3: "a ping at `t < expires_at` extends; at `t >= expires_at` the client is already
  // gone: 404."
  const auto seen = run_clean_and_faulty(fault::ttl_boundary_inclusive, [](core_harness& h) {
    const auto sid = h.create_session();
    const std::string cid = h.register_client(sid, "tab", core_harness::ttl(10))["client_id"];
    h.advance(9'999);
    const int just_before = ping(h, sid, cid);  // extends to 19 999 ms
    h.advance(10'000);                          // exactly the new expires_at
    return json{{"ping_before", just_before},
                {"ping_at_expiry", ping(h, sid, cid)},
                {"unregistered", count_events(h, sid, "client_unregistered")}};
  });
  CHECK(seen.clean == json{{"ping_before", 200}, {"ping_at_expiry", 404}, {"unregistered", 1}});
  CHECK(seen.faulty == json{{"ping_before", 200}, {"ping_at_expiry", 200}, {"unregistered", 0}});
}

TEST_CASE("fault ack_extends_ttl breaks LIFE-6", "[faults][LIFE-6]") {
  // LIFE-6: "Only registration and pings extend a TTL; acks, results and tool-list changes
  // do not."
  const auto seen = run_clean_and_faulty(fault::ack_extends_ttl, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1, core_harness::ttl(10));
    h.advance(6'000);
    REQUIRE(h.request("POST", h.call_path(turn.sid, turn.cid, turn.calls[0]) + "/ack").status ==
            200);
    h.advance(6'000);  // 12 s after registration, 6 s after the ack
    json reasons = json::array();
    for (const auto& event : h.events_of(turn.sid, "client_unregistered")) {
      reasons.push_back(event.data["reason"]);
    }
    return json{{"unregistered", reasons},
                {"call_failures", failure_reasons(h, turn.sid)},
                {"ping_at_12s", ping(h, turn.sid, turn.cid)}};
  });
  CHECK(seen.clean == json{{"unregistered", {"expired"}},
                           {"call_failures", {"client_expired"}},
                           {"ping_at_12s", 404}});
  CHECK(seen.faulty == json{{"unregistered", json::array()},
                            {"call_failures", json::array()},
                            {"ping_at_12s", 200}});
}

TEST_CASE("fault vanished_calls_left_open breaks LIFE-5", "[faults][LIFE-5]") {
  // LIFE-5: "Every call still open on a client that ends is settled as `client_tool_failed`
  // with reason `client_left` or `client_expired`, and the model receives an error tool
  // result for it: the turn goes on, it never hangs waiting for a client that is gone."
  const auto seen = run_clean_and_faulty(fault::vanished_calls_left_open, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    REQUIRE(h.request("DELETE", h.client_path(turn.sid, turn.cid)).status == 204);
    json observed = {{"call_failures", failure_reasons(h, turn.sid)},
                     {"next_step", h.has_model_step()}};
    if (h.has_model_step()) {
      const auto results = core_harness::tool_messages(h.next_model_step());
      REQUIRE(results.size() == 1);
      observed["model_saw"] = json::parse(results[0]["content"].get<std::string>());
      observed["model_saw"]["error"].erase("message");
    }
    return observed;
  });
  CHECK(seen.clean == json{{"call_failures", {"client_left"}},
                           {"next_step", true},
                           {"model_saw", {{"error", {{"reason", "client_left"}}}}}});
  CHECK(seen.faulty == json{{"call_failures", json::array()}, {"next_step", false}});
}

TEST_CASE("fault departed_client_tools_offered breaks LIFE-4", "[faults][LIFE-4]") {
  // LIFE-4: "When a client ends (left or expired) it emits `client_unregistered`, and from
  // then on its tools are never presented to the model again."
  const auto seen = run_clean_and_faulty(fault::departed_client_tools_offered, [](core_harness& h) {
    const auto sid = h.create_session();
    const std::string left = h.register_client(
        sid, "web", core_harness::never(), json::array({core_harness::tool("read")}))["client_id"];
    h.register_client(sid, "tab", core_harness::ttl(5), json::array({core_harness::tool("pick")}));
    h.register_client(sid, "app", core_harness::never(), json::array({core_harness::tool("open")}));
    REQUIRE(h.request("DELETE", h.client_path(sid, left)).status == 204);
    h.advance(5'000);  // `tab` expires
    REQUIRE(count_events(h, sid, "client_unregistered") == 2);
    start_turn(h, sid);
    return offered_in_next_step(h);
  });
  CHECK(seen.clean == json{"app__open"});
  CHECK(seen.faulty == json{"app__open", "web__read", "tab__pick"});
}

TEST_CASE("fault put_tools_extends_ttl breaks LIFE-6", "[faults][LIFE-6]") {
  // LIFE-6: "Only registration and pings extend a TTL; acks, results and tool-list changes
  // do not."
  const auto seen = run_clean_and_faulty(fault::put_tools_extends_ttl, [](core_harness& h) {
    const auto sid = h.create_session();
    const std::string cid = h.register_client(
        sid, "tab", core_harness::ttl(10), json::array({core_harness::tool("read")}))["client_id"];
    h.advance(6'000);
    const auto put = h.request("PUT", h.client_path(sid, cid) + "/tools",
                               {{"tools", json::array({core_harness::tool("pick")})}});
    h.advance(6'000);  // 12 s after registration, 6 s after the PUT
    json reasons = json::array();
    for (const auto& event : h.events_of(sid, "client_unregistered"))
      reasons.push_back(event.data["reason"]);
    return json{{"put", put.status}, {"unregistered", reasons}, {"ping_at_12s", ping(h, sid, cid)}};
  });
  CHECK(seen.clean == json{{"put", 200}, {"unregistered", {"expired"}}, {"ping_at_12s", 404}});
  CHECK(seen.faulty == json{{"put", 200}, {"unregistered", json::array()}, {"ping_at_12s", 200}});
}
