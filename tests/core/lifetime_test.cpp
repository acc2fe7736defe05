// Core tests of SPEC section 4, client lifetime: LIFE-1..6, on the virtual clock.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/core_test_support.hpp"

using namespace toolwire::core_test;

TEST_CASE("LIFE-1 a never client lives until DELETE", "[core][lifetime]") {
  // SPEC LIFE-1: "never: the client lives until DELETE ... (-> 204). Pings are accepted and
  // change nothing ([P] 200 {"expires_at_ms": null})."
  session_fixture f;
  auto registered = f.add("srv", {"lookup"});
  const std::string cid = registered["client_id"];
  CHECK(registered["expires_at_ms"].is_null());

  SECTION("LIFE-1 pings answer expires_at_ms null") {
    auto ping = f.ping(cid);
    CHECK(ping.status == 200);
    CHECK(ping.body == json{{"expires_at_ms", nullptr}});
  }
  SECTION("LIFE-1 ten days without a ping change nothing") {
    f.h.advance(10LL * 86'400'000);
    CHECK(f.events("client_unregistered").empty());
    CHECK(f.ping(cid).status == 200);
    f.start_turn();
    CHECK(core_harness::offered_names(f.step()) == std::vector<std::string>{"srv__lookup"});
  }
  SECTION("LIFE-1 DELETE is 204 and ends the client with reason left") {
    auto deleted = f.remove(cid);
    CHECK(deleted.status == 204);
    auto event = f.find("client_unregistered", {{"client_id", cid}});
    REQUIRE(event);
    CHECK(event->data["name"] == "srv");
    CHECK(event->data["reason"] == "left");
    CHECK(f.ping(cid).status == 404);
  }
}

TEST_CASE("LIFE-2 a ttl client ends seconds after its last ping", "[core][lifetime]") {
  // SPEC LIFE-2: "ttl: the client ends seconds after its last ping; registration counts as
  // the first ping. POST .../clients/{cid}/ping -> 200 {"expires_at_ms"} [P]."
  session_fixture f;
  auto registered = f.add("tab", {"read"}, core_harness::ttl(30));
  const std::string cid = registered["client_id"];
  CHECK(registered["expires_at_ms"] == start_time + 30'000);

  SECTION("LIFE-2 registration counts as the first ping") {
    f.h.advance(29'999);
    CHECK(f.events("client_unregistered").empty());
    f.h.advance(1);
    auto event = f.find("client_unregistered", {{"client_id", cid}});
    REQUIRE(event);
    CHECK(event->data["reason"] == "expired");
    CHECK(event->data["name"] == "tab");
    CHECK(event->at == start_time + 30'000);
  }
  SECTION("LIFE-2 each ping restarts the TTL from the ping") {
    f.h.advance(10'000);
    auto ping = f.ping(cid);
    REQUIRE(ping.status == 200);
    CHECK(ping.body["expires_at_ms"] == start_time + 40'000);
    f.h.advance(25'000);
    CHECK(f.ping(cid).body["expires_at_ms"] == start_time + 65'000);
    f.h.advance(29'999);
    CHECK(f.events("client_unregistered").empty());
    f.h.advance(1);
    REQUIRE(f.find("client_unregistered", {{"client_id", cid}}));
    CHECK(f.find("client_unregistered")->at == start_time + 65'000);
  }
  SECTION("LIFE-2 the expiry happens on the clock alone, without any request") {
    f.h.advance(100'000);
    REQUIRE(f.events("client_unregistered").size() == 1);
    CHECK(f.events("client_unregistered")[0].at == start_time + 30'000);
  }
}

TEST_CASE("LIFE-3 exact boundary of a TTL", "[core][lifetime]") {
  // SPEC LIFE-3: "a ping at t < expires_at extends; at t >= expires_at the client is
  // already gone: 404."
  session_fixture f;
  const std::string cid = f.add("tab", {"read"}, core_harness::ttl(1))["client_id"];

  SECTION("LIFE-3 ping at expires_at - 1 extends") {
    f.h.advance(999);
    auto ping = f.ping(cid);
    CHECK(ping.status == 200);
    CHECK(ping.body["expires_at_ms"] == start_time + 999 + 1000);
    f.h.advance(1);  // the old expiry instant passes harmlessly
    CHECK(f.events("client_unregistered").empty());
    CHECK(f.ping(cid).status == 200);
  }
  SECTION("LIFE-3 ping exactly at expiry is 404") {
    f.h.advance(1000);
    auto ping = f.ping(cid);
    CHECK(ping.status == 404);
    CHECK(error_type(ping) == "not_found");
    CHECK(f.events("client_unregistered").size() == 1);
  }
  SECTION("LIFE-3 at expires_at every request on the client is 404, others live on") {
    const std::string other = f.add("srv", {}, core_harness::never())["client_id"];
    f.h.advance(999);
    CHECK(f.events("client_unregistered").empty());
    f.h.advance(1);
    CHECK(f.put_tools(cid, tool_list({"x"})).status == 404);
    CHECK(f.ping(other).status == 200);
  }
  SECTION("LIFE-3 ping after expiry is 404") {
    f.h.advance(5000);
    CHECK(f.ping(cid).status == 404);
  }
}

TEST_CASE("LIFE-4 an ended client is gone for good", "[core][lifetime]") {
  // SPEC LIFE-4: "When a client ends (left or expired) it emits client_unregistered, and
  // from then on its tools are never presented to the model again; every later request on
  // it is 404."
  auto how = GENERATE(as<std::string>{}, "left", "expired");
  CAPTURE(how);
  session_fixture f;
  const std::string keep = f.add("keep", {"stay"})["client_id"];
  const std::string cid = f.add("gone", {"read", "write"}, core_harness::ttl(5))["client_id"];
  const auto call_id = f.turn_with_calls({{"gone__read", json::object()}}).at(0);
  if (how == "left") {
    REQUIRE(f.remove(cid).status == 204);
  } else {
    f.h.advance(5000);
  }

  SECTION("LIFE-4 client_unregistered is emitted once with the reason") {
    auto events = f.events("client_unregistered");
    REQUIRE(events.size() == 1);
    CHECK(events[0].data["client_id"] == cid);
    CHECK(events[0].data["name"] == "gone");
    CHECK(events[0].data["reason"] == how);
  }
  SECTION("LIFE-4 its tools are never presented again") {
    auto next = f.step();  // the step after the failed call
    CHECK(core_harness::offered_names(next) == std::vector<std::string>{"keep__stay"});
    f.h.answer_text(next.step_id, "done");
    f.start_turn();
    CHECK(core_harness::offered_names(f.step()) == std::vector<std::string>{"keep__stay"});
  }
  SECTION("LIFE-4 every later request on it is 404") {
    const std::size_t before = f.event_count();
    std::vector<api_response> responses = {
        f.ping(cid),
        f.put_tools(cid, tool_list({"x"})),
        f.remove(cid),
        f.ack(cid, call_id),
        f.content(cid, call_id, "late"),
        f.result(cid, call_id, {{"error", "late"}}),
    };
    for (const auto& response : responses) {
      CAPTURE(response.body.dump());
      CHECK(response.status == 404);
      CHECK(error_type(response) == "not_found");
    }
    CHECK(f.event_count() == before);
    CHECK(f.ping(keep).status == 200);
  }
}

TEST_CASE("LIFE-5 open calls of a client that ends fail and the turn goes on", "[core][lifetime]") {
  // SPEC LIFE-5: "Every call still open on a client that ends is settled as
  // client_tool_failed with reason client_left or client_expired, and the model receives an
  // error tool result for it: the turn goes on, it never hangs waiting for a client that is
  // gone."
  session_fixture f;

  SECTION("LIFE-5 DELETE fails the open calls with client_left") {
    const std::string cid = f.add("tab", {"read", "write"})["client_id"];
    f.start_turn();
    auto first = f.step();
    auto ids = f.answer_calls(first, {{"tab__read", json::object()}, {"tab__write", {{"v", 1}}}});
    REQUIRE(ids.size() == 2);
    CHECK(f.ack(cid, ids[0]).status == 200);  // acked or not, both fail
    REQUIRE(f.remove(cid).status == 204);
    for (const auto& id : ids) {
      auto failed = f.find("client_tool_failed", {{"call_id", id}});
      REQUIRE(failed);
      CHECK(failed->data["reason"] == "client_left");
      CHECK(failed->data["client_id"] == cid);
      CHECK(f.settlements(id) == 1);
    }
    CHECK(f.find("client_tool_failed", {{"call_id", ids[0]}})->data["tool"] == "read");
    CHECK(f.find("client_tool_failed", {{"call_id", ids[1]}})->data["tool"] == "write");
    auto next = f.step();
    const auto model_ids = last_model_call_ids(next);
    REQUIRE(model_ids.size() == 2);
    for (const auto& model_id : model_ids) {
      auto content = tool_content(next, model_id);
      REQUIRE(content);
      const json error = json::parse(*content);
      CHECK(error["error"]["reason"] == "client_left");
      CHECK(error["error"]["message"].is_string());
    }
    f.h.answer_text(next.step_id, "recovered");
    auto completed = f.find("turn_completed");
    REQUIRE(completed);
    CHECK(completed->data["output"] == "recovered");
  }

  SECTION("LIFE-5 TTL expiry fails the open calls with client_expired at the expiry instant") {
    const std::string cid = f.add("tab", {"read"}, core_harness::ttl(3))["client_id"];
    f.start_turn();
    const auto ids = f.answer_calls(f.step(), {{"tab__read", json::object()}});
    REQUIRE(f.ack(cid, ids[0]).status == 200);  // the call now waits 300 s; the TTL is 3 s
    f.h.advance(2999);
    CHECK(f.settlements(ids[0]) == 0);
    CHECK_FALSE(f.h.has_model_step());
    f.h.advance(1);
    auto failed = f.find("client_tool_failed", {{"call_id", ids[0]}});
    REQUIRE(failed);
    CHECK(failed->data["reason"] == "client_expired");
    CHECK(failed->at == start_time + 3000);
    REQUIRE(f.h.has_model_step());
    auto next = f.step();
    auto content = tool_content(next, last_model_call_ids(next).at(0));
    REQUIRE(content);
    CHECK(json::parse(*content)["error"]["reason"] == "client_expired");
  }

  SECTION("LIFE-5 the turn still waits for calls on clients that stay") {
    const std::string stay = f.add("stay", {"s"})["client_id"];
    const std::string leave = f.add("leave", {"l"})["client_id"];
    f.start_turn();
    auto ids =
        f.answer_calls(f.step(), {{"stay__s", json::object()}, {"leave__l", json::object()}});
    REQUIRE(ids.size() == 2);
    REQUIRE(f.remove(leave).status == 204);
    CHECK(f.find("client_tool_failed", {{"call_id", ids[1]}}));
    CHECK_FALSE(f.h.has_model_step());
    CHECK(f.content(stay, ids[0], "kept").status == 200);
    auto next = f.step();
    CHECK(tool_content(next, last_model_call_ids(next).at(0)) == std::string("kept"));
  }

  SECTION("LIFE-5 a call settled before the departure is not failed again") {
    const std::string cid = f.add("tab", {"a", "b"})["client_id"];
    f.start_turn();
    auto ids = f.answer_calls(f.step(), {{"tab__a", json::object()}, {"tab__b", json::object()}});
    CHECK(f.content(cid, ids[0], "first").status == 200);
    REQUIRE(f.remove(cid).status == 204);
    CHECK(f.settlements(ids[0]) == 1);
    CHECK_FALSE(f.find("client_tool_failed", {{"call_id", ids[0]}}));
    CHECK(f.find("client_tool_failed", {{"call_id", ids[1]}, {"reason", "client_left"}}));
    auto next = f.step();
    const auto model_ids = last_model_call_ids(next);
    CHECK(tool_content(next, model_ids.at(0)) == std::string("first"));
  }
}

TEST_CASE("LIFE-6 only registration and pings extend a TTL", "[core][lifetime]") {
  // SPEC LIFE-6: "Only registration and pings extend a TTL; acks, results and tool-list
  // changes do not."
  session_fixture f;
  const std::string cid = f.add("tab", {"read", "write"}, core_harness::ttl(20))["client_id"];
  f.start_turn();
  auto ids = f.answer_calls(f.step(), {{"tab__read", json::object()}});
  f.h.advance(5000);
  REQUIRE(f.ack(cid, ids[0]).status == 200);
  f.h.advance(5000);
  auto put = f.put_tools(cid, tool_list({"read"}));
  REQUIRE(put.status == 200);
  f.h.advance(4000);
  REQUIRE(f.ack(cid, ids[0]).status == 200);  // a repeated ack
  REQUIRE(f.content(cid, ids[0], "x").status == 200);
  auto step = f.step();
  auto more = f.answer_calls(step, {{"tab__read", json::object()}});
  f.h.advance(1000);
  REQUIRE(f.result(cid, more.at(0), {{"error", "nope"}}).status == 200);
  f.h.advance(4999);  // start + 19999
  CHECK(f.events("client_unregistered").empty());
  f.h.advance(1);  // start + 20000: 20 s after registration, the only ping
  auto gone = f.find("client_unregistered", {{"client_id", cid}});
  REQUIRE(gone);
  CHECK(gone->data["reason"] == "expired");
  CHECK(gone->at == start_time + 20'000);
}
