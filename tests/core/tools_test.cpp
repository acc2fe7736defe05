// Core tests of SPEC section 5, changing the tool list: TOOLS-1..6.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/core_test_support.hpp"

using namespace toolwire::core_test;

using names = std::vector<std::string>;

TEST_CASE("TOOLS-1 PUT replaces the whole list", "[core][tools]") {
  // SPEC TOOLS-1: "PUT .../tools {"tools": [...]} -> 200 replaces the whole list; a tool not
  // named again is withdrawn."
  session_fixture f;
  const std::string cid = f.add("app", {"a", "b", "c"})["client_id"];

  SECTION("TOOLS-1 the 200 body, the event and the next step show the new list") {
    const json next_tools = tool_list({"c", "d"});
    auto put = f.put_tools(cid, next_tools);
    REQUIRE(put.status == 200);
    CHECK(put.body["client_id"] == cid);
    CHECK(put.body["tools"] == next_tools);
    auto updated = f.find("client_tools_updated", {{"client_id", cid}});
    REQUIRE(updated);
    CHECK(updated->data["tools"] == json::array({"c", "d"}));
    f.start_turn();
    CHECK(core_harness::offered_names(f.step()) == names{"app__c", "app__d"});
  }
  SECTION("TOOLS-1 an empty list withdraws everything and the client stays live") {
    REQUIRE(f.put_tools(cid, json::array()).status == 200);
    f.start_turn();
    auto step = f.step();
    CHECK(core_harness::offered_names(step).empty());
    CHECK_FALSE(step.body().contains("tools"));  // docs: `tools` omitted when empty
    CHECK(json::parse(step.body_text()) == step.body());
    CHECK(f.ping(cid).status == 200);
  }
  SECTION("TOOLS-1 a changed description replaces the old one") {
    REQUIRE(f.put_tools(cid, json::array({core_harness::tool("a", "new words")})).status == 200);
    f.start_turn();
    auto step = f.step();
    REQUIRE(step.body()["tools"].size() == 1);
    CHECK(step.body()["tools"][0]["function"]["description"] == "new words");
  }
  SECTION("TOOLS-1 a PUT without tools is 400") {
    auto put = f.h.request("PUT", f.h.client_path(f.sid, cid) + "/tools", json::object());
    CHECK(put.status == 400);
  }
}

TEST_CASE("TOOLS-2 an invalid list is 400 and changes nothing", "[core][tools]") {
  // SPEC TOOLS-2: "Same validation as REG-1..3; an invalid list changes nothing."
  session_fixture f;
  const std::string cid = f.add("app", {"a", "b"})["client_id"];
  const std::string japanese = "\xE6\x97\xA5";
  struct bad_list {
    std::string label;
    json tools;
  };
  auto bad = GENERATE_COPY(values<bad_list>({
      {"65-character name",
       json::array({core_harness::tool("ok"), core_harness::tool(std::string(65, 'n'))})},
      {"empty name", json::array({core_harness::tool("")})},
      {"bad character", json::array({core_harness::tool("a:b")})},
      {"duplicate", tool_list({"x", "y", "x"})},
      {"4097 characters", json::array({core_harness::tool("x", std::string(4097, 'd'))})},
      {"4097 Japanese", json::array({core_harness::tool("x", repeat(japanese, 4097))})},
      {"missing parameters", json::array({{{"name", "x"}, {"description", "d"}}})},
      {"parameters of type string",
       json::array({{{"name", "x"}, {"description", "d"}, {"parameters", {{"type", "string"}}}}})},
      {"not a list", json("a")},
  }));
  CAPTURE(bad.label);
  const std::size_t before = f.event_count();
  auto put = f.put_tools(cid, bad.tools);
  CHECK(put.status == 400);
  CHECK(error_type(put) == "invalid_request");
  CHECK(f.event_count() == before);
  f.start_turn();
  CHECK(core_harness::offered_names(f.step()) == names{"app__a", "app__b"});

  SECTION("TOOLS-2 4096 Japanese characters are accepted by PUT too") {
    CHECK(f.put_tools(cid, json::array({core_harness::tool("x", repeat(japanese, 4096))})).status ==
          200);
  }
}

TEST_CASE("TOOLS-3 each step is offered exactly the live tools", "[core][tools]") {
  // SPEC TOOLS-3: "The model is offered exactly the tools that live clients offer at the
  // moment of each model step: withdrawn tools never, added tools from the next step on."
  session_fixture f;
  const std::string a = f.add("a", {"x", "y"})["client_id"];
  const std::string b = f.add("b", {"z"}, core_harness::ttl(60))["client_id"];
  f.start_turn();
  auto first = f.step();
  CHECK(core_harness::offered_names(first) == names{"a__x", "a__y", "b__z"});

  SECTION("TOOLS-3 added tools from the next step on, withdrawn tools never") {
    auto ids = f.answer_calls(first, {{"a__x", json::object()}});
    REQUIRE(f.put_tools(a, tool_list({"y", "w"})).status == 200);
    const std::string c = f.add("c", {"v"})["client_id"];
    CHECK_FALSE(f.h.has_model_step());
    REQUIRE(f.content(a, ids.at(0), "ok").status == 200);
    auto second = f.step();
    CHECK(core_harness::offered_names(second) == names{"a__y", "a__w", "b__z", "c__v"});
    REQUIRE(f.answer_calls(second, {{"c__v", json::object()}}).size() == 1);
    REQUIRE(f.remove(c).status == 204);
    auto third = f.step();
    CHECK(core_harness::offered_names(third) == names{"a__y", "a__w", "b__z"});
    f.h.answer_text(third.step_id, "done");
  }
  SECTION("TOOLS-3 an expired client's tools are not offered at the next step") {
    auto ids = f.answer_calls(first, {{"a__x", json::object()}});
    REQUIRE(f.ack(a, ids.at(0)).status == 200);
    f.h.advance(60'000);
    REQUIRE(f.find("client_unregistered", {{"client_id", b}}));
    REQUIRE(f.content(a, ids.at(0), "ok").status == 200);
    CHECK(core_harness::offered_names(f.step()) == names{"a__x", "a__y"});
  }
  SECTION("TOOLS-3 a new turn is offered the list as it is when the turn starts") {
    f.h.answer_text(first.step_id, "bye");
    REQUIRE(f.put_tools(b, tool_list({"q"})).status == 200);
    f.start_turn();
    CHECK(core_harness::offered_names(f.step()) == names{"a__x", "a__y", "b__q"});
  }
}

TEST_CASE("TOOLS-3 a step issued at the instant a client expires does not offer it",
          "[core][tools]") {
  // A call on client a fails by ack_timeout at t = T; client b (registered after that call
  // was dispatched) expires at the same instant T. LIFE-3: at t >= expires_at b is gone, so
  // the step that the failure triggers at T must not offer b's tools.
  session_fixture f;
  f.add("a", {"x"});
  f.start_turn();
  auto ids = f.answer_calls(f.step(), {{"a__x", json::object()}});
  REQUIRE(ids.size() == 1);
  f.add("b", {"z"}, core_harness::ttl(10));  // expires at start + 10000 = the ack deadline
  f.h.advance(10'000);
  REQUIRE(f.find("client_tool_failed", {{"call_id", ids[0]}, {"reason", "ack_timeout"}}));
  REQUIRE(f.find("client_unregistered", {{"reason", "expired"}}));
  CHECK(core_harness::offered_names(f.step()) == names{"a__x"});
}

TEST_CASE("TOOLS-4 a dispatched call survives the withdrawal of its tool", "[core][tools]") {
  // SPEC TOOLS-4: "A call already dispatched when its tool is withdrawn stays open and can
  // still be acked and answered."
  session_fixture f;
  const std::string cid = f.add("app", {"read", "write"})["client_id"];
  auto ids = f.turn_with_calls({{"app__read", {{"page", 2}}}});
  REQUIRE(f.put_tools(cid, tool_list({"write"})).status == 200);
  CHECK(f.settlements(ids.at(0)) == 0);
  CHECK(f.ack(cid, ids[0]).status == 200);
  CHECK(f.content(cid, ids[0], "page two").status == 200);
  auto completed = f.find("client_tool_completed", {{"call_id", ids[0]}});
  REQUIRE(completed);
  CHECK(completed->data["is_error"] == false);
  auto next = f.step();
  CHECK(tool_content(next, last_model_call_ids(next).at(0)) == std::string("page two"));
  CHECK(core_harness::offered_names(next) == names{"app__write"});
}

TEST_CASE("TOOLS-5 a call to a tool no longer offered is not dispatched", "[core][tools]") {
  // SPEC TOOLS-5: "A model call that names a tool that is no longer offered (race between the
  // model step and a PUT, DELETE or expiry) is not dispatched: it is settled at once with
  // reason tool_unavailable and the model gets an error tool result. Where the name
  // designates a live client, a client_tool_failed event with its client_id and tool (the
  // part after __) is emitted; where no live client has that name, only the model's error
  // result records it."
  session_fixture f;
  const std::string cid = f.add("app", {"read", "write"}, core_harness::ttl(30))["client_id"];
  f.start_turn();
  auto step = f.step();
  REQUIRE(core_harness::offered_names(step) == names{"app__read", "app__write"});

  auto model_error_reason = [&](const model_step_request& next, std::size_t index) {
    auto content = tool_content(next, last_model_call_ids(next).at(index));
    REQUIRE(content);
    return json::parse(*content)["error"]["reason"].get<std::string>();
  };

  SECTION("TOOLS-5 withdrawn by PUT: client_tool_failed with client_id and tool") {
    REQUIRE(f.put_tools(cid, tool_list({"write"})).status == 200);
    auto ids = f.answer_calls(step, {{"app__read", {{"q", 1}}}});
    CHECK(ids.empty());
    auto failed = f.find("client_tool_failed", {{"reason", "tool_unavailable"}});
    REQUIRE(failed);
    CHECK(failed->data["client_id"] == cid);
    CHECK(failed->data["tool"] == "read");
    CHECK(failed->data["call_id"].is_string());
    CHECK(f.events("client_tool_dispatched").empty());
    auto next = f.step();
    CHECK(model_error_reason(next, 0) == "tool_unavailable");
  }
  SECTION("TOOLS-5 client deleted: no event, only the model's error") {
    REQUIRE(f.remove(cid).status == 204);
    const std::size_t before = f.event_count();
    f.h.answer_calls(step.step_id, {{"app__read", json::object()}});
    CHECK(f.event_count() == before);
    auto next = f.step();
    CHECK(model_error_reason(next, 0) == "tool_unavailable");
  }
  SECTION("TOOLS-5 client expired: no event, only the model's error") {
    f.h.advance(30'000);
    REQUIRE(f.find("client_unregistered", {{"reason", "expired"}}));
    const std::size_t before = f.event_count();
    f.h.answer_calls(step.step_id, {{"app__write", json::object()}});
    CHECK(f.event_count() == before);
    CHECK(model_error_reason(f.step(), 0) == "tool_unavailable");
  }
  SECTION("TOOLS-5 a name no client ever had: only the model's error") {
    const std::size_t before = f.event_count();
    f.h.answer_calls(step.step_id, {{"ghost__read", json::object()}, {"read", json::object()}});
    CHECK(f.event_count() == before);
    auto next = f.step();
    CHECK(model_error_reason(next, 0) == "tool_unavailable");
    CHECK(model_error_reason(next, 1) == "tool_unavailable");
  }
  SECTION("TOOLS-5 an unavailable call beside a dispatched one: the step waits for the other") {
    REQUIRE(f.put_tools(cid, tool_list({"write"})).status == 200);
    auto ids = f.answer_calls(step, {{"app__read", json::object()}, {"app__write", {{"v", 2}}}});
    REQUIRE(ids.size() == 1);
    auto dispatched = f.find("client_tool_dispatched", {{"call_id", ids[0]}});
    REQUIRE(dispatched);
    CHECK(dispatched->data["tool"] == "write");
    auto failed = f.find("client_tool_failed", {{"reason", "tool_unavailable"}});
    REQUIRE(failed);
    CHECK(failed->data["call_id"] != ids[0]);  // a fresh call id of its own
    CHECK_FALSE(f.h.has_model_step());
    REQUIRE(f.content(cid, ids[0], "written").status == 200);
    auto next = f.step();
    CHECK(model_error_reason(next, 0) == "tool_unavailable");
    CHECK(tool_content(next, last_model_call_ids(next).at(1)) == std::string("written"));
  }
  SECTION("TOOLS-5 the unavailable call's id cannot be acked or answered: it is settled") {
    REQUIRE(f.put_tools(cid, tool_list({"write"})).status == 200);
    f.h.answer_calls(step.step_id, {{"app__read", json::object()}});
    auto failed = f.find("client_tool_failed", {{"reason", "tool_unavailable"}});
    REQUIRE(failed);
    const std::string call_id = failed->data["call_id"];
    CHECK(f.ack(cid, call_id).status == 409);  // CALL-6
    CHECK(f.content(cid, call_id, "x").status == 409);
  }
}

TEST_CASE("TOOLS-5 regression: a result on a tool_unavailable call id was 404, not 409",
          "[core][tools]") {
  // The call of TOOLS-5 got an id and a client_tool_failed event but no call record, so a
  // result on that id answered 404 as for an id never issued. CALL-6: "a result or ack
  // after the call was settled (completed or failed): 409, and nothing changes".
  session_fixture f;
  const std::string cid = f.add("app", {"read", "write"})["client_id"];
  f.start_turn();
  auto step = f.step();
  REQUIRE(f.put_tools(cid, tool_list({"write"})).status == 200);
  f.h.answer_calls(step.step_id, {{"app__read", json::object()}});
  auto failed = f.find("client_tool_failed", {{"reason", "tool_unavailable"}});
  REQUIRE(failed);
  const std::string call_id = failed->data["call_id"];
  const std::size_t events_before = f.event_count();
  auto next = f.step();

  const auto result = f.content(cid, call_id, "too late");
  CHECK(result.status == 409);
  // C-2: {"error": {"type": "conflict", "message": "<text>"}}
  REQUIRE(result.body.is_object());
  REQUIRE(result.body.contains("error"));
  CHECK(result.body["error"]["type"] == "conflict");
  CHECK(result.body["error"]["message"].is_string());
  CHECK(f.event_count() == events_before);  // C-3: no event
  CHECK_FALSE(f.h.has_model_step());        // and nothing for the model
  auto content = tool_content(next, last_model_call_ids(next).at(0));
  REQUIRE(content);
  CHECK(json::parse(*content)["error"]["reason"] == "tool_unavailable");

  SECTION("CALL-7 through another client the id is still 404") {
    const std::string other = f.add("other")["client_id"];
    CHECK(f.content(other, call_id, "not mine").status == 404);
  }
  SECTION("LIFE-4 once its client is gone the id is 404") {
    REQUIRE(f.remove(cid).status == 204);
    CHECK(f.content(cid, call_id, "gone").status == 404);
  }
}

TEST_CASE("TOOLS-6 each step sees one consistent tool list", "[core][tools]") {
  // SPEC TOOLS-6: "Each model step sees one consistent tool list: the list before a PUT or
  // the list after it, never a mix of the two."
  session_fixture f;
  const std::string cid = f.add("app", {"a1", "a2", "a3"})["client_id"];
  f.add("other", {"o"});
  f.start_turn();
  auto first = f.step();
  const names before{"app__a1", "app__a2", "app__a3", "other__o"};
  const names after{"app__b1", "app__b2", "other__o"};
  CHECK(core_harness::offered_names(first) == before);
  REQUIRE(f.put_tools(cid, tool_list({"b1", "b2"})).status == 200);
  // The request already issued keeps the list it was issued with.
  CHECK(core_harness::offered_names(first) == before);
  auto ids = f.answer_calls(first, {{"app__b1", json::object()}});
  CHECK(ids.size() == 1);  // the new list is live now, so the call is dispatched
  REQUIRE(f.content(cid, ids.at(0), "ok").status == 200);
  auto second = f.step();
  CHECK(core_harness::offered_names(second) == after);
  // The step's function list and the names agree one to one (no half-updated entry).
  for (const auto& tool : second.tools.to_json()) {
    CHECK(tool["type"] == "function");
    CHECK(tool["function"]["parameters"].is_object());
  }
}
