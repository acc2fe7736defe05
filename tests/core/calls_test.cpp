// Core tests of SPEC section 6, calls to client tools: CALL-1..9, timing on the virtual clock.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "core/core_test_support.hpp"

using namespace toolwire::core_test;

namespace {

//! A session with client `app` (tools read, write) and `other` (tool read), and a turn
//! whose first step the test answers.
struct call_fixture : session_fixture {
  std::string app;
  std::string other;

  explicit call_fixture(
      toolwire::reference_server::core_config config = toolwire::testing::default_config())
      : session_fixture(std::move(config)) {
    app = add("app", {"read", "write"})["client_id"];
    other = add("other", {"read"})["client_id"];
  }

  //! Starts a turn after `delay` ms and dispatches one app__read call; returns its id.
  std::string one_call(time_ms delay = 0) {
    h.advance(delay);
    auto ids = turn_with_calls({{"app__read", {{"q", "x"}}}});
    REQUIRE(ids.size() == 1);
    return ids[0];
  }

  //! The content of the one tool message the next step carries for the last answer's call.
  std::string model_sees() {
    auto next = step();
    auto ids = last_model_call_ids(next);
    REQUIRE(ids.size() == 1);
    auto content = tool_content(next, ids[0]);
    REQUIRE(content);
    CHECK(core_harness::tool_messages(next).size() >= 1);
    return *content;
  }
};

}  // namespace

TEST_CASE("CALL-1 client_tool_dispatched", "[core][calls]") {
  // SPEC CALL-1: "Each call to a client tool emits client_tool_dispatched with the owning
  // client_id, a fresh call_id, the tool name as the client declared it (no namespace) and
  // the arguments exactly as the model gave them."
  call_fixture f;
  const json arguments = {
      {"s", "\xE6\x97\xA5\xE6\x9C\xAC \"quoted\" \\ /"},
      {"n", 1.5},
      {"big", 12345678901234LL},
      {"neg", -7},
      {"nested", {{"list", {1, nullptr, true, "x"}}, {"empty", json::object()}}}};
  const std::string turn_id = f.start_turn();
  auto ids = f.answer_calls(
      f.step(),
      {{"app__read", arguments}, {"other__read", json::object()}, {"app__write", json::array()}});
  REQUIRE(ids.size() == 3);

  SECTION("CALL-1 client_id, unprefixed tool, exact arguments, turn_id") {
    auto first = f.find("client_tool_dispatched", {{"call_id", ids[0]}});
    REQUIRE(first);
    CHECK(first->data["client_id"] == f.app);
    CHECK(first->data["tool"] == "read");
    CHECK(first->data["arguments"] == arguments);
    CHECK(first->data["turn_id"] == turn_id);
    auto second = f.find("client_tool_dispatched", {{"call_id", ids[1]}});
    REQUIRE(second);
    CHECK(second->data["client_id"] == f.other);
    CHECK(second->data["tool"] == "read");
    CHECK(second->data["arguments"] == json::object());
    auto third = f.find("client_tool_dispatched", {{"call_id", ids[2]}});
    REQUIRE(third);
    CHECK(third->data["tool"] == "write");
    CHECK(third->data["arguments"] == json::array());
  }
  SECTION("CALL-1 call ids are fresh across calls, steps and turns") {
    std::set<std::string> seen(ids.begin(), ids.end());
    CHECK(seen.size() == 3);
    for (const auto& id : ids)
      REQUIRE(f.content(id == ids[1] ? f.other : f.app, id, "r").status == 200);
    auto more = f.answer_calls(f.step(), {{"app__read", json::object()}});
    REQUIRE(more.size() == 1);
    CHECK(seen.insert(more[0]).second);
    REQUIRE(f.content(f.app, more[0], "r").status == 200);
    f.h.answer_text(f.step().step_id, "done");
    auto later = f.turn_with_calls({{"app__read", json::object()}});
    REQUIRE(later.size() == 1);
    CHECK(seen.insert(later[0]).second);
  }
}

TEST_CASE("CALL-2 the model sees <assigned client name>__<tool>", "[core][calls]") {
  session_fixture f;
  const std::string first = f.add("web", {"read"})["client_id"];
  const std::string second = f.add("web", {"read", "click"})["client_id"];
  f.start_turn();
  auto step = f.step();
  CHECK(core_harness::offered_names(step) ==
        std::vector<std::string>{"web__read", "web_2__read", "web_2__click"});

  SECTION("CALL-2 a call to web_2__read goes to the second client") {
    auto ids =
        f.answer_calls(step, {{"web_2__read", json::object()}, {"web__read", json::object()}});
    REQUIRE(ids.size() == 2);
    CHECK(f.find("client_tool_dispatched", {{"call_id", ids[0]}})->data["client_id"] == second);
    CHECK(f.find("client_tool_dispatched", {{"call_id", ids[1]}})->data["client_id"] == first);
  }
  SECTION("CALL-2 the unprefixed or wrongly prefixed name is not a client tool") {
    f.h.answer_calls(step.step_id, {{"read", json::object()},
                                    {"web_3__read", json::object()},
                                    {"web_2_read", json::object()}});
    CHECK(f.events("client_tool_dispatched").empty());
  }
}

TEST_CASE("CALL-2 an offered name whose tool part contains __ reaches its client",
          "[core][calls]") {
  // Tool and client names may contain "__" (REG-1, REG-4). Client `a` declares tool `b__c`
  // and client `a__b` declares tool `d`: the model is offered `a__b__c` (a's tool) and
  // `a__b__d`. A call to the offered `a__b__c` must be dispatched to `a` as `b__c`; the
  // longest-prefix resolution picks client `a__b`, finds no tool `c` and refuses it.
  session_fixture f;
  const std::string a = f.add("a", {"b__c"})["client_id"];
  f.add("a__b", {"d"});
  f.start_turn();
  auto step = f.step();
  REQUIRE(core_harness::offered_names(step) == std::vector<std::string>{"a__b__c", "a__b__d"});
  auto ids = f.answer_calls(step, {{"a__b__c", json::object()}});
  CHECK_FALSE(f.find("client_tool_failed", {{"reason", "tool_unavailable"}}));
  REQUIRE(ids.size() == 1);
  auto dispatched = f.find("client_tool_dispatched", {{"call_id", ids[0]}});
  REQUIRE(dispatched);
  CHECK(dispatched->data["client_id"] == a);
  CHECK(dispatched->data["tool"] == "b__c");
}

TEST_CASE("CALL-3 ack and the two deadlines", "[core][calls]") {
  // SPEC CALL-3: "An un-acked call fails at dispatched + ack_timeout (reason ack_timeout);
  // an acked one at dispatched + result_timeout (reason result_timeout) ... [P] Defaults
  // 10 s and 300 s."
  call_fixture f;
  const std::string call_id = f.one_call(777);
  const time_ms dispatched = start_time + 777;

  SECTION("CALL-3 ack is 200 {call_id, status acked} and idempotent") {
    auto ack = f.ack(f.app, call_id);
    CHECK(ack.status == 200);
    CHECK(ack.body == json{{"call_id", call_id}, {"status", "acked"}});
    CHECK(f.ack(f.app, call_id).status == 200);
    CHECK(f.ack(f.app, call_id).body == ack.body);
    CHECK(f.settlements(call_id) == 0);
  }
  SECTION("CALL-3 an un-acked call fails exactly at dispatched + 10000") {
    f.h.advance(9999);
    CHECK(f.settlements(call_id) == 0);
    f.h.advance(1);
    auto failed = f.find("client_tool_failed", {{"call_id", call_id}});
    REQUIRE(failed);
    CHECK(failed->data["reason"] == "ack_timeout");
    CHECK(failed->data["client_id"] == f.app);
    CHECK(failed->data["tool"] == "read");
    CHECK(failed->at == dispatched + 10'000);
    CHECK(json::parse(f.model_sees())["error"]["reason"] == "ack_timeout");
  }
  SECTION("CALL-3 ack at dispatched + 9999 is in time and lifts the ack deadline") {
    f.h.advance(9999);
    CHECK(f.ack(f.app, call_id).status == 200);
    f.h.advance(1);
    CHECK(f.settlements(call_id) == 0);  // acked: the ack deadline no longer applies
  }
  SECTION("CALL-3 ack exactly at the ack deadline is too late: 409") {
    f.h.advance(10'000);
    auto ack = f.ack(f.app, call_id);
    CHECK(ack.status == 409);
    CHECK(error_type(ack) == "conflict");
    CHECK(f.find("client_tool_failed", {{"call_id", call_id}, {"reason", "ack_timeout"}}));
  }
  SECTION("CALL-3 ack moves the deadline to dispatched + 300000, not ack + 300000") {
    f.h.advance(9000);
    REQUIRE(f.ack(f.app, call_id).status == 200);
    f.h.advance(300'000 - 9000 - 1);  // dispatched + 299999
    CHECK(f.settlements(call_id) == 0);
    f.h.advance(1);
    auto failed = f.find("client_tool_failed", {{"call_id", call_id}});
    REQUIRE(failed);
    CHECK(failed->data["reason"] == "result_timeout");
    CHECK(failed->at == dispatched + 300'000);
    CHECK(json::parse(f.model_sees())["error"]["reason"] == "result_timeout");
  }
  SECTION("CALL-3 result at dispatched + 299999 after an ack is accepted") {
    REQUIRE(f.ack(f.app, call_id).status == 200);
    f.h.advance(299'999);
    CHECK(f.content(f.app, call_id, "just in time").status == 200);
    CHECK(f.model_sees() == "just in time");
  }
  SECTION("CALL-3 result exactly at dispatched + 300000 is 409: the call already failed") {
    REQUIRE(f.ack(f.app, call_id).status == 200);
    f.h.advance(300'000);
    auto result = f.content(f.app, call_id, "too late");
    CHECK(result.status == 409);
    CHECK(f.settlements(call_id) == 1);
    CHECK(json::parse(f.model_sees())["error"]["reason"] == "result_timeout");
  }
  SECTION("CALL-3 an un-acked result at dispatched + 9999 is accepted, at + 10000 is 409") {
    f.h.advance(9999);
    CHECK(f.content(f.app, call_id, "quick").status == 200);
    f.h.advance(1);
    CHECK(f.settlements(call_id) == 1);
  }
  SECTION("CALL-3 an un-acked result exactly at the ack deadline is 409") {
    f.h.advance(10'000);
    CHECK(f.content(f.app, call_id, "slow").status == 409);
  }
}

TEST_CASE("CALL-3 configured timeouts are honoured exactly", "[core][calls]") {
  auto config = toolwire::testing::default_config();
  config.ack_timeout_ms = 50;
  config.result_timeout_ms = 200;
  call_fixture f(config);
  const std::string unacked = f.one_call();
  f.h.advance(49);
  CHECK(f.settlements(unacked) == 0);
  f.h.advance(1);
  CHECK(f.find("client_tool_failed", {{"call_id", unacked}, {"reason", "ack_timeout"}}));
  auto next = f.step();
  auto ids = f.answer_calls(next, {{"app__write", json::object()}});
  REQUIRE(ids.size() == 1);
  REQUIRE(f.ack(f.app, ids[0]).status == 200);
  f.h.advance(199);
  CHECK(f.settlements(ids[0]) == 0);
  f.h.advance(1);
  CHECK(f.find("client_tool_failed", {{"call_id", ids[0]}, {"reason", "result_timeout"}}));
}

TEST_CASE("CALL-4 results: content or error", "[core][calls]") {
  // SPEC CALL-4: "POST .../result with {"content": <string or JSON>} or {"error": "<message>",
  // "reason": "<code>"} [reason optional, default client_error] -> 200, emits
  // client_tool_completed {call_id, client_id, is_error}. Both or neither of content/error:
  // 400. A client's error result completes the call."
  call_fixture f;
  const std::string call_id = f.one_call();

  SECTION("CALL-4 content is 200 {call_id, status completed} and is_error false") {
    auto result = f.content(f.app, call_id, {{"rows", 3}});
    CHECK(result.status == 200);
    CHECK(result.body == json{{"call_id", call_id}, {"status", "completed"}});
    auto completed = f.find("client_tool_completed", {{"call_id", call_id}});
    REQUIRE(completed);
    CHECK(completed->data["client_id"] == f.app);
    CHECK(completed->data["is_error"] == false);
    CHECK_FALSE(f.find("client_tool_failed", {{"call_id", call_id}}));
  }
  SECTION("CALL-4 an error result completes the call with is_error true, reason client_error") {
    auto result = f.result(f.app, call_id, {{"error", "disk full"}});
    CHECK(result.status == 200);
    auto completed = f.find("client_tool_completed", {{"call_id", call_id}});
    REQUIRE(completed);
    CHECK(completed->data["is_error"] == true);
    CHECK_FALSE(f.find("client_tool_failed", {{"call_id", call_id}}));
    CHECK(json::parse(f.model_sees()) ==
          json{{"error", {{"reason", "client_error"}, {"message", "disk full"}}}});
  }
  SECTION("CALL-4 an error result with its own reason") {
    REQUIRE(f.result(f.app, call_id, {{"error", "user said no"}, {"reason", "denied"}}).status ==
            200);
    CHECK(json::parse(f.model_sees()) ==
          json{{"error", {{"reason", "denied"}, {"message", "user said no"}}}});
  }
  SECTION("CALL-4 both, neither, or ill-typed members are 400 and the call stays open") {
    const std::vector<json> bad = {
        json::object(),
        {{"content", "x"}, {"error", "y"}},
        {{"error", 5}},
        {{"error", "x"}, {"reason", ""}},
        {{"error", "x"}, {"reason", 7}},
        {{"reason", "denied"}},
        json::array({"content"}),
    };
    for (const auto& body : bad) {
      CAPTURE(body.dump());
      auto result = f.result(f.app, call_id, body);
      CHECK(result.status == 400);
      CHECK(error_type(result) == "invalid_request");
    }
    CHECK(f.settlements(call_id) == 0);
    CHECK(f.content(f.app, call_id, "fine").status == 200);
  }
}

TEST_CASE("CALL-5 every dispatched call is settled exactly once", "[core][calls]") {
  call_fixture f;
  f.start_turn();
  auto ids = f.answer_calls(f.step(), {{"app__read", json::object()},
                                       {"app__write", json::object()},
                                       {"other__read", json::object()}});
  REQUIRE(ids.size() == 3);
  REQUIRE(f.content(f.app, ids[0], "done").status == 200);         // completed
  REQUIRE(f.ack(f.other, ids[2]).status == 200);                   // will time out later
  f.h.advance(10'000);                                             // ids[1]: ack_timeout
  CHECK(f.content(f.app, ids[1], "late").status == 409);           // never both
  CHECK(f.result(f.app, ids[0], {{"error", "x"}}).status == 409);  // never twice
  f.h.advance(400'000);                                            // ids[2]: result_timeout
  CHECK(f.content(f.other, ids[2], "late").status == 409);
  REQUIRE(f.remove(f.app).status == 204);  // departure after settlement fails nothing again
  for (const auto& id : ids) {
    CAPTURE(id);
    CHECK(f.settlements(id) == 1);
  }
  CHECK(f.find("client_tool_completed", {{"call_id", ids[0]}}));
  CHECK(f.find("client_tool_failed", {{"call_id", ids[1]}, {"reason", "ack_timeout"}}));
  CHECK(f.find("client_tool_failed", {{"call_id", ids[2]}, {"reason", "result_timeout"}}));
  auto next = f.step();
  CHECK(core_harness::tool_messages(next).size() == 3);  // one per call, never lost
}

TEST_CASE("CALL-6 late, repeated and ended-client results and acks", "[core][calls]") {
  // SPEC CALL-6: "A second result, or a result or ack after the call was settled (completed
  // or failed): 409, and nothing changes (the first outcome stands and is what the model
  // saw). A repeated ack of an open call is 200. On a client that has ended, LIFE-4 applies
  // first: 404."
  call_fixture f;
  const std::string call_id = f.one_call();

  SECTION("CALL-6 a second result is 409 and the first one stands") {
    REQUIRE(f.content(f.app, call_id, "first").status == 200);
    const std::size_t before = f.event_count();
    auto second = f.content(f.app, call_id, "second");
    CHECK(second.status == 409);
    CHECK(error_type(second) == "conflict");
    CHECK(f.result(f.app, call_id, {{"error", "third"}}).status == 409);
    CHECK(f.event_count() == before);
    CHECK(f.model_sees() == "first");
  }
  SECTION("CALL-6 ack after completion is 409") {
    REQUIRE(f.content(f.app, call_id, "first").status == 200);
    CHECK(f.ack(f.app, call_id).status == 409);
  }
  SECTION("CALL-6 result and ack after failure are 409 and the failure stands") {
    f.h.advance(10'000);
    const std::size_t before = f.event_count();
    CHECK(f.content(f.app, call_id, "late").status == 409);
    CHECK(f.ack(f.app, call_id).status == 409);
    CHECK(f.event_count() == before);
    CHECK(json::parse(f.model_sees())["error"]["reason"] == "ack_timeout");
  }
  SECTION("CALL-6 a repeated ack of an open call is 200") {
    CHECK(f.ack(f.app, call_id).status == 200);
    CHECK(f.ack(f.app, call_id).status == 200);
  }
  SECTION("CALL-6 on a client that has ended, 404 comes first") {
    REQUIRE(f.content(f.app, call_id, "done").status == 200);  // settled ...
    REQUIRE(f.remove(f.app).status == 204);                    // ... and the client gone
    CHECK(f.content(f.app, call_id, "again").status == 404);
    CHECK(f.ack(f.app, call_id).status == 404);
  }
}

TEST_CASE("CALL-7 a call is addressed only through its own client", "[core][calls]") {
  call_fixture f;
  const std::string call_id = f.one_call();
  const std::size_t before = f.event_count();
  SECTION("CALL-7 another client's cid is 404 for ack and result") {
    CHECK(f.ack(f.other, call_id).status == 404);
    auto result = f.content(f.other, call_id, "hijack");
    CHECK(result.status == 404);
    CHECK(error_type(result) == "not_found");
    CHECK(f.event_count() == before);
    CHECK(f.content(f.app, call_id, "mine").status == 200);
    CHECK(f.model_sees() == "mine");
  }
  SECTION("CALL-7 an unknown call id is 404") {
    CHECK(f.ack(f.app, "call_999").status == 404);
    CHECK(f.content(f.app, "call_999", "x").status == 404);
  }
  SECTION("CALL-7 the same cid and call id in another session is 404") {
    const std::string other_sid = f.h.create_session();
    const std::string path = f.h.call_path(other_sid, f.app, call_id);
    CHECK(f.h.request("POST", path + "/ack").status == 404);
    CHECK(f.h.request("POST", path + "/result", {{"content", "x"}}).status == 404);
    CHECK(f.settlements(call_id) == 0);
  }
}

TEST_CASE("CALL-8 exactly what the model receives", "[core][calls]") {
  // SPEC CALL-8: "[P] Content that is a string reaches the model as that string, other JSON
  // as its serialization; an error reaches the model as a tool message whose content is
  // {"error": {"reason": "<reason>", "message": "<text>"}}."
  struct expected_content {
    json content;
    std::string seen;
  };
  auto c = GENERATE(values<expected_content>({
      {"hello", "hello"},
      {"", ""},
      {"{\"looks\": \"like json\"}", "{\"looks\": \"like json\"}"},
      {"\"quoted\"", "\"quoted\""},
      {"\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E"},
      {{{"a", 1}}, "{\"a\":1}"},
      {json::array({1, "two", nullptr}), "[1,\"two\",null]"},
      {42, "42"},
      {true, "true"},
      {nullptr, "null"},
  }));
  CAPTURE(c.content.dump());
  call_fixture f;
  const std::string call_id = f.one_call();
  REQUIRE(f.content(f.app, call_id, c.content).status == 200);
  CHECK(f.model_sees() == c.seen);
}

TEST_CASE("CALL-8 errors reach the model as {error: {reason, message}}", "[core][calls]") {
  call_fixture f;
  const std::string call_id = f.one_call();
  SECTION("CALL-8 a client's error result") {
    REQUIRE(
        f.result(f.app, call_id, {{"error", "no \"access\""}, {"reason", "forbidden"}}).status ==
        200);
    const json seen = json::parse(f.model_sees());
    CHECK(seen == json{{"error", {{"reason", "forbidden"}, {"message", "no \"access\""}}}});
  }
  SECTION("CALL-8 a failed call") {
    f.h.advance(10'000);
    const json seen = json::parse(f.model_sees());
    REQUIRE(seen.size() == 1);
    REQUIRE(seen["error"].size() == 2);
    CHECK(seen["error"]["reason"] == "ack_timeout");
    CHECK(seen["error"]["message"].is_string());
  }
  SECTION("CALL-8 one tool message per call, with the model's own call id") {
    REQUIRE(f.content(f.app, call_id, "x").status == 200);
    auto next = f.step();
    auto messages = core_harness::tool_messages(next);
    REQUIRE(messages.size() == 1);
    CHECK(messages[0]["tool_call_id"] == last_model_call_ids(next).at(0));
    CHECK(messages[0]["role"] == "tool");
  }
}

TEST_CASE("CALL-9 concurrent calls are matched by call_id", "[core][calls]") {
  // SPEC CALL-9: "Calls run concurrently: results may arrive in any order and are matched by
  // call_id, never by position; the next model step runs only once every call of the step
  // is settled. Of two concurrent results for one call exactly one is accepted."
  call_fixture f;
  f.start_turn();
  auto ids = f.answer_calls(
      f.step(),
      {{"app__read", {{"n", 0}}}, {"app__write", {{"n", 1}}}, {"other__read", {{"n", 2}}}});
  REQUIRE(ids.size() == 3);

  SECTION("CALL-9 results in reverse order reach the model under the right call ids") {
    REQUIRE(f.content(f.other, ids[2], "result of 2").status == 200);
    CHECK_FALSE(f.h.has_model_step());
    REQUIRE(f.content(f.app, ids[1], "result of 1").status == 200);
    CHECK_FALSE(f.h.has_model_step());
    REQUIRE(f.content(f.app, ids[0], "result of 0").status == 200);
    REQUIRE(f.h.has_model_step());
    auto next = f.step();
    auto model_ids = last_model_call_ids(next);
    REQUIRE(model_ids.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(tool_content(next, model_ids[i]) == "result of " + std::to_string(i));
    }
    CHECK_FALSE(f.h.has_model_step());
  }
  SECTION("CALL-9 the next step waits for the last call, even a slow failure") {
    REQUIRE(f.content(f.app, ids[0], "a").status == 200);
    REQUIRE(f.ack(f.other, ids[2]).status == 200);
    REQUIRE(f.content(f.other, ids[2], "c").status == 200);
    f.h.advance(9999);
    CHECK_FALSE(f.h.has_model_step());
    f.h.advance(1);  // ids[1] fails by ack_timeout, the last one
    REQUIRE(f.h.has_model_step());
    auto next = f.step();
    auto model_ids = last_model_call_ids(next);
    CHECK(tool_content(next, model_ids[0]) == std::string("a"));
    CHECK(json::parse(*tool_content(next, model_ids[1]))["error"]["reason"] == "ack_timeout");
    CHECK(tool_content(next, model_ids[2]) == std::string("c"));
  }
  SECTION("CALL-9 of two results for one call exactly one is accepted") {
    auto first = f.content(f.app, ids[1], "one");
    auto second = f.content(f.app, ids[1], "two");
    CHECK(first.status == 200);
    CHECK(second.status == 409);
    REQUIRE(f.content(f.app, ids[0], "zero").status == 200);
    REQUIRE(f.content(f.other, ids[2], "two").status == 200);
    auto next = f.step();
    CHECK(tool_content(next, last_model_call_ids(next).at(1)) == std::string("one"));
  }
}
