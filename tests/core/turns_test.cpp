// Core tests of model turns: SES-2, the step loop of section 6, MODEL-1, MODEL-3, MODEL-4.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/core_test_support.hpp"

using namespace toolwire::core_test;

TEST_CASE("SES-2 messages start a turn; one turn at a time", "[core][turns]") {
  // SPEC SES-2: "POST /v1/sessions/{sid}/messages {"content": "<text>"} -> 202 {"turn_id"}.
  // It starts a model turn. One turn at a time per session: a second while one runs is 409."
  session_fixture f;
  f.add("app", {"read"});

  SECTION("SES-2 202 {turn_id} and turn_started") {
    auto started = f.message("hello");
    CHECK(started.status == 202);
    REQUIRE(started.body["turn_id"].is_string());
    auto event = f.find("turn_started");
    REQUIRE(event);
    CHECK(event->data["turn_id"] == started.body["turn_id"]);
    CHECK(f.h.has_model_step());
  }
  SECTION("SES-2 a second message while the turn waits for the model is 409") {
    const std::string turn_id = f.start_turn("one");
    const std::size_t before = f.event_count();
    auto second = f.message("two");
    CHECK(second.status == 409);
    CHECK(error_type(second) == "conflict");
    CHECK(f.event_count() == before);
    auto step = f.step();
    CHECK_FALSE(f.h.has_model_step());  // the refused message started no step
    f.h.answer_text(step.step_id, "ok");
    CHECK(f.find("turn_completed", {{"turn_id", turn_id}}));
  }
  SECTION("SES-2 a second message while the turn waits for a client is 409") {
    f.turn_with_calls({{"app__read", json::object()}});
    CHECK(f.message("two").status == 409);
  }
  SECTION("SES-2 after turn_completed a new message starts a new turn") {
    const std::string first = f.start_turn("one");
    f.h.answer_text(f.step().step_id, "answer one");
    const std::string second = f.start_turn("two");
    CHECK(second != first);
    auto step = f.step();
    CHECK(step.conversation["messages"].back() == json{{"role", "user"}, {"content", "two"}});
  }
  SECTION("SES-2 after turn_failed a new message is accepted") {
    f.start_turn();
    f.h.fail_model(f.step().step_id, "down");
    CHECK(f.message("again").status == 202);
  }
  SECTION("SES-2 content missing or not a string is 400 and starts nothing") {
    CHECK(f.h.request("POST", "/v1/sessions/" + f.sid + "/messages", json::object()).status == 400);
    CHECK(f.h.request("POST", "/v1/sessions/" + f.sid + "/messages", {{"content", 5}}).status ==
          400);
    CHECK(f.events("turn_started").empty());
    CHECK(f.message("fine").status == 202);
  }
  SECTION("SES-2 one turn at a time is per session") {
    f.start_turn();
    const std::string other = f.h.create_session();
    CHECK(f.h.request("POST", "/v1/sessions/" + other + "/messages", {{"content", "x"}}).status ==
          202);
  }
}

TEST_CASE("Section 6 the step loop ends with turn_completed carrying the model's text",
          "[core][turns]") {
  session_fixture f;
  const std::string cid = f.add("app", {"read"})["client_id"];
  const std::string turn_id = f.start_turn("question");
  for (int round = 0; round < 3; ++round) {
    auto ids = f.answer_calls(f.step(), {{"app__read", {{"round", round}}}});
    REQUIRE(ids.size() == 1);
    REQUIRE(f.content(cid, ids[0], "r" + std::to_string(round)).status == 200);
  }
  auto last = f.step();
  CHECK(core_harness::tool_messages(last).size() == 3);
  f.h.answer_text(last.step_id, "final answer");
  auto completed = f.find("turn_completed");
  REQUIRE(completed);
  CHECK(completed->data == json{{"turn_id", turn_id}, {"output", "final answer"}});
  CHECK_FALSE(f.h.has_model_step());
}

TEST_CASE("MODEL-1 a step request carries the model, the messages and the tools", "[core][turns]") {
  session_fixture f;
  const std::string cid = f.add("app", {"read"})["client_id"];
  f.start_turn("hi");
  auto step = f.step();
  CHECK(step.owner == model_step_request::owner_kind::turn);
  CHECK(step.owner_id == f.sid);
  CHECK(step.conversation["model"].is_string());
  REQUIRE(step.body()["tools"].size() == 1);
  CHECK(step.body()["tools"][0] == json{{"type", "function"},
                                        {"function",
                                         {{"name", "app__read"},
                                          {"description", "a tool"},
                                          {"parameters", {{"type", "object"}}}}}});
  // Over HTTP the same body goes out as text, byte for byte what a JSON value gives.
  CHECK(step.body_text() == step.body().dump());
  CHECK(step.tools.names() == std::vector<std::string>{"app__read"});
  CHECK(step.tools.offers("app__read"));
  CHECK_FALSE(step.tools.offers("app__rea"));
  auto ids = f.answer_calls(step, {{"app__read", {{"x", 1}}}});
  REQUIRE(f.content(cid, ids.at(0), "r").status == 200);
  auto next = f.step();
  const json& messages = next.conversation["messages"];
  REQUIRE(messages.size() == 3);
  CHECK(messages[1]["role"] == "assistant");
  CHECK(messages[1]["tool_calls"][0]["function"]["name"] == "app__read");
  CHECK(json::parse(messages[1]["tool_calls"][0]["function"]["arguments"].get<std::string>()) ==
        json{{"x", 1}});
  CHECK(messages[2] == json{{"role", "tool"},
                            {"tool_call_id", messages[1]["tool_calls"][0]["id"]},
                            {"content", "r"}});
}

TEST_CASE("MODEL-3 the user's text reaches the model unchanged", "[core][turns]") {
  session_fixture f;
  const std::string text = "case-17: \xE6\x97\xA5\xE6\x9C\xAC \"quoted\"\n\ttabs and  spaces ";
  f.start_turn(text);
  auto step = f.step();
  REQUIRE(step.conversation["messages"].size() == 1);
  CHECK(step.conversation["messages"][0] == json{{"role", "user"}, {"content", text}});
}

TEST_CASE("MODEL-4 a failing model ends the turn as turn_failed", "[core][turns]") {
  session_fixture f;
  const std::string cid = f.add("app", {"read"})["client_id"];
  SECTION("MODEL-4 on the first step") {
    const std::string turn_id = f.start_turn();
    f.h.fail_model(f.step().step_id, "connection refused");
    auto failed = f.find("turn_failed");
    REQUIRE(failed);
    CHECK(failed->data["turn_id"] == turn_id);
    CHECK(failed->data["reason"].get<std::string>().find("model_error") == 0);
    CHECK_FALSE(f.find("turn_completed"));
    CHECK_FALSE(f.h.has_model_step());
  }
  SECTION("MODEL-4 on a later step, after a call") {
    auto ids = f.turn_with_calls({{"app__read", json::object()}});
    REQUIRE(f.content(cid, ids.at(0), "x").status == 200);
    f.h.fail_model(f.step().step_id, "HTTP 500");
    REQUIRE(f.find("turn_failed"));
    CHECK(f.message("next").status == 202);
  }
  SECTION("MODEL-4 a late answer to the failed step is ignored") {
    f.start_turn();
    auto step = f.step();
    f.h.fail_model(step.step_id, "timeout");
    const std::size_t before = f.event_count();
    f.h.answer_text(step.step_id, "late");
    CHECK(f.event_count() == before);
  }
}

TEST_CASE("Section 6 model calls the core cannot dispatch", "[core][turns]") {
  session_fixture f;
  const std::string cid = f.add("app", {"read"})["client_id"];
  f.start_turn();
  auto step = f.step();

  SECTION("Section 6 arguments that are not JSON: the model gets invalid_arguments") {
    toolwire::protocol::model_answer answer;
    answer.tool_calls.push_back({"m1", "app__read", "{not json"});
    f.h.answer(step.step_id, answer);
    CHECK(f.events("client_tool_dispatched").empty());
    auto next = f.step();
    auto content = tool_content(next, "m1");
    REQUIRE(content);
    CHECK(json::parse(*content)["error"]["reason"] == "invalid_arguments");
  }
  SECTION("Section 6 text beside tool calls: the turn goes on with the calls") {
    toolwire::protocol::model_answer answer;
    answer.text = "let me look";
    answer.tool_calls.push_back({"m1", "app__read", "{}"});
    f.h.answer(step.step_id, answer);
    CHECK(f.events("client_tool_dispatched").size() == 1);
    CHECK_FALSE(f.find("turn_completed"));
  }
  SECTION("Section 6 a turn that never stops calling fails after max_model_steps") {
    for (std::size_t i = 0; i < 64; ++i) {
      auto ids = f.answer_calls(i == 0 ? step : f.step(), {{"app__read", json::object()}});
      REQUIRE(ids.size() == 1);
      REQUIRE(f.content(cid, ids[0], "again").status == 200);
      if (f.find("turn_failed")) break;
    }
    auto failed = f.find("turn_failed");
    REQUIRE(failed);
    CHECK(failed->data["reason"] == "max_steps_exceeded");
    CHECK_FALSE(f.h.has_model_step());
    CHECK(f.message("again").status == 202);
  }
}
