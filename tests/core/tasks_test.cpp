// Core tests of SPEC section 9, tasks (Part B): TASK-1..10 and MODEL-4 for tasks.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "core/core_test_support.hpp"

using namespace toolwire::core_test;

namespace {

json task_tool(const std::string& name, std::optional<json> schema = std::nullopt) {
  json tool = {{"name", name}, {"description", "the " + name + " tool"}};
  if (schema) tool["input_schema"] = *schema;
  return tool;
}

json task_body(const json& tools, const std::vector<std::string>& texts = {"please help"}) {
  json input = json::array();
  for (const auto& text : texts)
    input.push_back({{"type", "text"}, {"text", text}});
  return {{"assistant_id", 1}, {"input", input}, {"client_tools", tools}};
}

//! A harness and helpers for one task at a time.
struct task_fixture {
  core_harness h;
  std::uint64_t model_ids = 0;

  explicit task_fixture(
      toolwire::reference_server::core_config config = toolwire::testing::default_config())
      : h(std::move(config)) {}

  api_response create_raw(const json& body, credential who = admin_key) {
    return h.request("POST", "/api/tasks", body, std::move(who));
  }
  //! Creates a task (REQUIREs 201); returns its uuid.
  std::string create(const json& tools, const std::vector<std::string>& texts = {"please help"}) {
    auto created = create_raw(task_body(tools, texts));
    INFO(created.body.dump());
    REQUIRE(created.status == 201);
    return created.body["uuid"];
  }
  json get(const std::string& uuid) {
    auto response = h.request("GET", "/api/tasks/" + uuid);
    REQUIRE(response.status == 200);
    return response.body;
  }
  std::string status(const std::string& uuid) { return get(uuid)["status"]; }
  api_response submit(const std::string& uuid, const json& items) {
    return h.request("POST", "/api/tasks/" + uuid + "/tool-results", {{"tool_results", items}});
  }
  //! Answers the next model step with text and/or calls (model ids m1, m2, ...).
  model_step_request answer(const std::optional<std::string>& text,
                            const std::vector<std::pair<std::string, json>>& calls) {
    auto step = h.next_model_step();
    REQUIRE(step.owner == model_step_request::owner_kind::task);
    toolwire::protocol::model_answer a;
    a.text = text;
    for (const auto& [name, arguments] : calls) {
      a.tool_calls.push_back({"m" + std::to_string(++model_ids), name, arguments.dump()});
    }
    h.answer(step.step_id, a);
    return step;
  }
  //! The ids of the pending calls of an interrupted task.
  std::vector<std::string> pending_ids(const std::string& uuid) {
    auto body = get(uuid);
    REQUIRE(body["status"] == "interrupted");
    std::vector<std::string> ids;
    for (const auto& call : body["pending_tool_calls"])
      ids.push_back(call["id"]);
    return ids;
  }
  //! Content results for every pending call, `content` each.
  api_response submit_all(const std::string& uuid, const std::string& content = "ok") {
    json items = json::array();
    for (const auto& id : pending_ids(uuid))
      items.push_back({{"id", id}, {"content", content}});
    return submit(uuid, items);
  }
};

}  // namespace

TEST_CASE("TASK-1 creating a task", "[core][tasks]") {
  // SPEC TASK-1: "POST /api/tasks {"assistant_id", "input": [{"type": "text", "text"}],
  // "client_tools": [{"name", "description", "input_schema"?}]} -> 201 {"uuid", "status":
  // "pending"}. name and description are required, input_schema optional. [P] Auth: API key;
  // tool names follow REG-1; duplicate names 400; assistant_id is an integer; unknown
  // assistant_id 404."
  task_fixture f;

  SECTION("TASK-1 201 {uuid, status pending}") {
    auto created = f.create_raw(task_body(json::array({task_tool("where")})));
    REQUIRE(created.status == 201);
    CHECK(created.body["uuid"].is_string());
    CHECK(created.body["status"] == "pending");
    CHECK(f.h.has_model_step());
  }
  SECTION("TASK-1 input_schema is optional; given, it reaches the model") {
    const json schema = {{"type", "object"}, {"properties", {{"q", {{"type", "string"}}}}}};
    f.create(json::array({task_tool("plain"), task_tool("typed", schema)}));
    auto step = f.h.next_model_step();
    REQUIRE(step.body()["tools"].size() == 2);
    CHECK(step.body()["tools"][1]["function"]["parameters"] == schema);
    CHECK(step.body()["tools"][0]["function"]["parameters"].is_object());
    CHECK(step.body()["tools"][0]["function"]["description"] == "the plain tool");
  }
  SECTION("TASK-1 client_tools may be empty") {
    CHECK(f.create_raw(task_body(json::array())).status == 201);
  }
  SECTION("TASK-1 invalid bodies are 400 and create nothing") {
    struct bad_task {
      std::string label;
      json body;
    };
    auto bad = GENERATE(values<bad_task>({
        {"no name", task_body(json::array({{{"description", "d"}}}))},
        {"no description", task_body(json::array({{{"name", "a"}}}))},
        {"65-character name", task_body(json::array({task_tool(std::string(65, 'a'))}))},
        {"bad character", task_body(json::array({task_tool("a b")}))},
        {"duplicate names", task_body(json::array({task_tool("a"), task_tool("a")}))},
        {"input_schema not an object", task_body(json::array({task_tool("a", json("x"))}))},
        {"assistant_id a string",
         {{"assistant_id", "1"}, {"input", {{{"type", "text"}, {"text", "x"}}}}}},
        {"assistant_id fractional",
         {{"assistant_id", 1.5}, {"input", {{{"type", "text"}, {"text", "x"}}}}}},
        {"no assistant_id", {{"input", {{{"type", "text"}, {"text", "x"}}}}}},
        {"no input", {{"assistant_id", 1}}},
        {"input not text", {{"assistant_id", 1}, {"input", {{{"type", "image"}}}}}},
    }));
    CAPTURE(bad.label);
    auto response = f.create_raw(bad.body);
    CHECK(response.status == 400);
    CHECK(error_type(response) == "invalid_request");
    CHECK_FALSE(f.h.has_model_step());
  }
  SECTION("TASK-1 an unknown assistant_id is 404") {
    auto body = task_body(json::array());
    body["assistant_id"] = 2;
    auto response = f.create_raw(body);
    CHECK(response.status == 404);
    CHECK(error_type(response) == "not_found");
    CHECK_FALSE(f.h.has_model_step());
  }
  SECTION("TASK-1 any workspace API key may create a task") {
    CHECK(f.create_raw(task_body(json::array()), std::string(reader_key)).status == 201);
    CHECK(f.create_raw(task_body(json::array()), std::nullopt).status == 401);
  }
}

TEST_CASE("TASK-2 GET shows the uuid and a status", "[core][tasks]") {
  task_fixture f;
  const std::string uuid = f.create(json::array({task_tool("where")}));
  auto body = f.get(uuid);
  CHECK(body["uuid"] == uuid);
  const std::set<std::string> statuses = {"pending", "processing", "interrupted", "completed",
                                          "failed"};
  CHECK(statuses.count(body["status"].get<std::string>()) == 1);
  CHECK(body["status"] == "processing");  // docs: the first model step starts at once
  SECTION("TASK-2 an unknown uuid is 404") {
    auto missing = f.h.request("GET", "/api/tasks/00000000-0000-4000-8000-0000000000ff");
    CHECK(missing.status == 404);
    CHECK(error_type(missing) == "not_found");
  }
}

TEST_CASE("TASK-3 a client tool call interrupts the task", "[core][tasks]") {
  // SPEC TASK-3: "When the model calls a client tool the task becomes interrupted with
  // pending_tool_calls: [{"id", "name", "arguments"}] (name as declared)."
  task_fixture f;
  const std::string uuid = f.create(json::array({task_tool("get_location"), task_tool("ask")}));
  f.answer(std::nullopt, {{"get_location", {{"precision", "city"}}}, {"ask", json::object()}});
  auto body = f.get(uuid);
  CHECK(body["status"] == "interrupted");
  REQUIRE(body["pending_tool_calls"].size() == 2);
  const auto& first = body["pending_tool_calls"][0];
  CHECK(first["id"].is_string());
  CHECK(first["name"] == "get_location");
  CHECK(first["arguments"] == json{{"precision", "city"}});
  CHECK(body["pending_tool_calls"][1]["name"] == "ask");
  CHECK(body["pending_tool_calls"][1]["arguments"] == json::object());
  CHECK(first["id"] != body["pending_tool_calls"][1]["id"]);
  CHECK_FALSE(f.h.has_model_step());  // nothing runs while interrupted
}

TEST_CASE("TASK-4 tool results must cover exactly the pending calls", "[core][tasks]") {
  // SPEC TASK-4: "[P] Missing, unknown or duplicate ids, or an item with both or neither of
  // content/error: 400 and nothing is applied. Not interrupted: 409 (checked before the
  // items). Accepted: 200, the task returns to processing."
  task_fixture f;
  const std::string uuid = f.create(json::array({task_tool("a"), task_tool("b")}));
  f.answer(std::nullopt, {{"a", json::object()}, {"b", json::object()}});
  const auto ids = f.pending_ids(uuid);
  REQUIRE(ids.size() == 2);

  SECTION("TASK-4 a full submission is 200 {uuid, status processing}") {
    auto accepted = f.submit(uuid, {{{"id", ids[0]}, {"content", "A"}},
                                    {{"id", ids[1]}, {"error", "no"}, {"reason", "denied"}}});
    CHECK(accepted.status == 200);
    CHECK(accepted.body == json{{"uuid", uuid}, {"status", "processing"}});
    CHECK(f.status(uuid) == "processing");
    CHECK(f.h.has_model_step());
  }
  SECTION("TASK-4 partial, unknown, duplicate or malformed items are 400 and apply nothing") {
    struct bad_items {
      std::string label;
      json items;
    };
    auto bad = GENERATE_COPY(values<bad_items>({
        {"missing one", {{{"id", ids[0]}, {"content", "A"}}}},
        {"empty", json::array()},
        {"unknown id",
         {{{"id", ids[0]}, {"content", "A"}},
          {{"id", ids[1]}, {"content", "B"}},
          {{"id", "tc_999"}, {"content", "C"}}}},
        {"unknown instead of one",
         {{{"id", ids[0]}, {"content", "A"}}, {{"id", "tc_999"}, {"content", "B"}}}},
        {"duplicate",
         {{{"id", ids[0]}, {"content", "A"}},
          {{"id", ids[1]}, {"content", "B"}},
          {{"id", ids[0]}, {"content", "again"}}}},
        {"both content and error",
         {{{"id", ids[0]}, {"content", "A"}, {"error", "x"}}, {{"id", ids[1]}, {"content", "B"}}}},
        {"neither", {{{"id", ids[0]}}, {{"id", ids[1]}, {"content", "B"}}}},
        {"id missing", {{{"content", "A"}}, {{"id", ids[1]}, {"content", "B"}}}},
    }));
    CAPTURE(bad.label);
    auto refused = f.submit(uuid, bad.items);
    CHECK(refused.status == 400);
    CHECK(error_type(refused) == "invalid_request");
    CHECK(f.pending_ids(uuid) == ids);  // still interrupted, the same calls pending
    CHECK_FALSE(f.h.has_model_step());
    // Nothing was applied: a correct submission now goes through, and the model sees it.
    REQUIRE(f.submit(uuid, {{{"id", ids[1]}, {"content", "B"}}, {{"id", ids[0]}, {"content", "A"}}})
                .status == 200);
    auto step = f.h.next_model_step();
    CHECK(tool_content(step, "m1") == std::string("A"));
    CHECK(tool_content(step, "m2") == std::string("B"));
  }
  SECTION("TASK-4 tool_results missing or not a list is 400") {
    CHECK(f.h.request("POST", "/api/tasks/" + uuid + "/tool-results", json::object()).status ==
          400);
    CHECK(f.h.request("POST", "/api/tasks/" + uuid + "/tool-results", {{"tool_results", "x"}})
              .status == 400);
    CHECK(f.pending_ids(uuid) == ids);
  }
  SECTION("TASK-4 not interrupted is 409, checked before the items") {
    REQUIRE(f.submit_all(uuid).status == 200);  // processing now
    auto conflict = f.submit(uuid, json::array({{{"id", "nonsense"}}}));
    CHECK(conflict.status == 409);
    CHECK(error_type(conflict) == "conflict");
    CHECK(f.h.request("POST", "/api/tasks/" + uuid + "/tool-results", json::object()).status ==
          409);
    f.answer("all done", {});
    CHECK(f.status(uuid) == "completed");
    CHECK(f.submit(uuid, json::array()).status == 409);  // completed
  }
  SECTION("TASK-4 an unknown task is 404") {
    CHECK(f.submit("00000000-0000-4000-8000-0000000000ff", json::array()).status == 404);
  }
}

TEST_CASE("TASK-5 interrupted -> tool-results -> processing repeats until completed",
          "[core][tasks]") {
  // SPEC TASK-5: "Statuses only move along pending -> processing -> (interrupted ->
  // processing)* -> completed | failed."
  task_fixture f;
  const std::string uuid = f.create(json::array({task_tool("step")}));
  std::vector<std::string> seen = {"pending", f.status(uuid)};
  for (int round = 0; round < 3; ++round) {
    f.answer(std::nullopt, {{"step", {{"round", round}}}});
    seen.push_back(f.status(uuid));
    REQUIRE(f.submit_all(uuid, "r" + std::to_string(round)).status == 200);
    seen.push_back(f.status(uuid));
  }
  f.answer("finished", {});
  seen.push_back(f.status(uuid));
  CHECK(seen == std::vector<std::string>{"pending", "processing", "interrupted", "processing",
                                         "interrupted", "processing", "interrupted", "processing",
                                         "completed"});
  auto body = f.get(uuid);
  CHECK_FALSE(body.contains("pending_tool_calls"));
  REQUIRE(body["output"].size() == 4);  // three tool calls and the final text
  SECTION("TASK-5 completed is final") {
    CHECK(f.submit(uuid, json::array()).status == 409);
    CHECK(f.status(uuid) == "completed");
  }
}

TEST_CASE("TASK-6 the output of a completed task", "[core][tasks]") {
  // SPEC TASK-6: output lists every client tool call as {"type": "tool_call", "tool_call":
  // {"name", "input", "output"}}, name without any prefix; content as {"type": "content",
  // "content": [{"type": "text", "text"}]}; [P] an error as {"type": "error", "error",
  // "reason"}; text answers as {"type": "text", "text"}; for each model answer, its text
  // first, then its client tool calls in the order the model gave them.
  task_fixture f;
  const std::string uuid =
      f.create(json::array({task_tool("get_location"), task_tool("lookup"), task_tool("confirm")}));
  f.answer("Looking it up.", {{"get_location", {{"p", 1}}}, {"lookup", {{"k", "v"}}}});
  auto ids = f.pending_ids(uuid);
  REQUIRE(ids.size() == 2);
  // Results in reverse order: output order follows the model, not the submission.
  REQUIRE(f.submit(uuid, {{{"id", ids[1]}, {"content", {{"rows", 3}}}},
                          {{"id", ids[0]}, {"content", "Paris"}}})
              .status == 200);
  f.answer(std::nullopt, {{"confirm", json::object()}});
  auto more = f.pending_ids(uuid);
  REQUIRE(f.submit(uuid, {{{"id", more.at(0)}, {"error", "user declined"}, {"reason", "declined"}}})
              .status == 200);
  f.answer("Done: Paris.", {});
  auto body = f.get(uuid);
  REQUIRE(body["status"] == "completed");
  const json expected = json::array({
      {{"type", "text"}, {"text", "Looking it up."}},
      {{"type", "tool_call"},
       {"tool_call",
        {{"name", "get_location"},
         {"input", {{"p", 1}}},
         {"output", {{"type", "content"}, {"content", {{{"type", "text"}, {"text", "Paris"}}}}}}}}},
      {{"type", "tool_call"},
       {"tool_call",
        {{"name", "lookup"},
         {"input", {{"k", "v"}}},
         {"output",
          {{"type", "content"}, {"content", {{{"type", "text"}, {"text", "{\"rows\":3}"}}}}}}}}},
      {{"type", "tool_call"},
       {"tool_call",
        {{"name", "confirm"},
         {"input", json::object()},
         {"output", {{"type", "error"}, {"error", "user declined"}, {"reason", "declined"}}}}}},
      {{"type", "text"}, {"text", "Done: Paris."}},
  });
  CHECK(body["output"] == expected);

  SECTION("TASK-6 an error without a reason appears with reason client_error") {
    const std::string other = f.create(json::array({task_tool("t")}));
    f.answer(std::nullopt, {{"t", json::object()}});
    REQUIRE(f.submit(other, {{{"id", f.pending_ids(other).at(0)}, {"error", "broke"}}}).status ==
            200);
    f.answer("ok", {});
    auto output = f.get(other)["output"];
    CHECK(output[0]["tool_call"]["output"] ==
          json{{"type", "error"}, {"error", "broke"}, {"reason", "client_error"}});
  }
}

TEST_CASE("TASK-6 the model receives the task's results as CALL-8 content", "[core][tasks]") {
  task_fixture f;
  const std::string uuid = f.create(json::array({task_tool("a"), task_tool("b"), task_tool("c")}));
  f.answer(std::nullopt, {{"a", json::object()}, {"b", json::object()}, {"c", json::object()}});
  auto ids = f.pending_ids(uuid);
  REQUIRE(f.submit(uuid, {{{"id", ids[0]}, {"content", "text"}},
                          {{"id", ids[1]}, {"content", {{"n", 1}}}},
                          {{"id", ids[2]}, {"error", "bad"}, {"reason", "oops"}}})
              .status == 200);
  auto step = f.h.next_model_step();
  CHECK(tool_content(step, "m1") == std::string("text"));
  CHECK(tool_content(step, "m2") == std::string("{\"n\":1}"));
  CHECK(json::parse(*tool_content(step, "m3")) ==
        json{{"error", {{"reason", "oops"}, {"message", "bad"}}}});
}

TEST_CASE("TASK-7 an interrupted task times out exactly at interrupt_timeout", "[core][tasks]") {
  // SPEC TASK-7: "A task interrupted longer than the profile's interrupt_timeout becomes
  // failed with error.reason = tool_results_timeout."
  task_fixture f;
  const std::string uuid = f.create(json::array({task_tool("slow")}));
  f.h.advance(123);
  f.answer(std::nullopt, {{"slow", json::object()}});  // interrupted at start + 123
  const auto ids = f.pending_ids(uuid);

  SECTION("TASK-7 results one ms before the deadline are accepted") {
    f.h.advance(600'000 - 1);
    CHECK(f.status(uuid) == "interrupted");
    CHECK(f.submit_all(uuid).status == 200);
    f.h.advance(10);
    CHECK(f.status(uuid) == "processing");
  }
  SECTION("TASK-7 at the deadline the task has failed with tool_results_timeout") {
    f.h.advance(600'000);
    auto body = f.get(uuid);
    CHECK(body["status"] == "failed");
    CHECK(body["error"]["reason"] == "tool_results_timeout");
    CHECK(body["error"]["message"].is_string());
    CHECK_FALSE(body.contains("pending_tool_calls"));
    auto late = f.submit(uuid, {{{"id", ids.at(0)}, {"content", "late"}}});
    CHECK(late.status == 409);
  }
  SECTION("TASK-7 each interruption has its own deadline") {
    f.h.advance(500'000);
    REQUIRE(f.submit_all(uuid).status == 200);
    f.answer(std::nullopt, {{"slow", json::object()}});  // interrupted again at +500123
    f.h.advance(599'999);
    CHECK(f.status(uuid) == "interrupted");
    f.h.advance(1);
    CHECK(f.status(uuid) == "failed");
  }
}

TEST_CASE("TASK-7 a configured interrupt_timeout is honoured", "[core][tasks]") {
  auto config = toolwire::testing::default_config();
  config.interrupt_timeout_ms = 1000;
  task_fixture f(config);
  const std::string uuid = f.create(json::array({task_tool("slow")}));
  f.answer(std::nullopt, {{"slow", json::object()}});
  f.h.advance(999);
  CHECK(f.status(uuid) == "interrupted");
  f.h.advance(1);
  CHECK(f.get(uuid)["error"]["reason"] == "tool_results_timeout");
}

TEST_CASE("TASK-8 a call to an undeclared tool is not surfaced", "[core][tasks]") {
  // SPEC TASK-8: "A model call to a tool that is neither a client tool of the task nor the
  // assistant's own is not surfaced as pending; the model gets an error tool result instead."
  task_fixture f;
  const std::string uuid = f.create(json::array({task_tool("known")}));

  SECTION("TASK-8 only undeclared calls: no interruption, the model gets an error") {
    f.answer(std::nullopt, {{"unknown_tool", json::object()}});
    CHECK(f.status(uuid) == "processing");
    auto step = f.h.next_model_step();
    auto content = tool_content(step, "m1");
    REQUIRE(content);
    CHECK(json::parse(*content)["error"]["reason"] == "unknown_tool");
    f.h.answer_text(step.step_id, "gave up");
    auto body = f.get(uuid);
    CHECK(body["status"] == "completed");
    CHECK(body["output"] == json::array({{{"type", "text"}, {"text", "gave up"}}}));
  }
  SECTION("TASK-8 mixed: only the declared call is pending; the model gets both results") {
    f.answer(std::nullopt, {{"client_tools__known", json::object()}, {"known", {{"x", 1}}}});
    auto body = f.get(uuid);
    REQUIRE(body["status"] == "interrupted");
    REQUIRE(body["pending_tool_calls"].size() == 1);
    CHECK(body["pending_tool_calls"][0]["name"] == "known");
    REQUIRE(f.submit_all(uuid, "fine").status == 200);
    auto step = f.h.next_model_step();
    CHECK(json::parse(*tool_content(step, "m1"))["error"]["reason"] == "unknown_tool");
    CHECK(tool_content(step, "m2") == std::string("fine"));
  }
}

TEST_CASE("TASK-9 call ids, settled calls and concurrent submissions", "[core][tasks]") {
  // SPEC TASK-9: "Call ids are never reused within a task; a GET after an accepted
  // submission never shows the settled calls as pending again; of two concurrent
  // submissions for the same round exactly one is accepted."
  task_fixture f;
  const std::string uuid = f.create(json::array({task_tool("a")}));
  std::set<std::string> all_ids;
  for (int round = 0; round < 3; ++round) {
    f.answer(std::nullopt, {{"a", json::object()}, {"a", {{"again", true}}}});
    auto ids = f.pending_ids(uuid);
    REQUIRE(ids.size() == 2);
    for (const auto& id : ids)
      CHECK(all_ids.insert(id).second);
    auto first = f.submit_all(uuid, "one");
    auto second = f.submit(
        uuid, {{{"id", ids[0]}, {"content", "two"}}, {{"id", ids[1]}, {"content", "two"}}});
    CHECK(first.status == 200);
    CHECK(second.status == 409);
    auto body = f.get(uuid);
    CHECK(body["status"] == "processing");
    CHECK_FALSE(body.contains("pending_tool_calls"));
    auto step = f.h.next_model_step();
    const auto model_ids = last_model_call_ids(step);
    REQUIRE(model_ids.size() == 2);
    CHECK(tool_content(step, model_ids[0]) == std::string("one"));
    // Hand the step back: the next round's answer goes to it.
    toolwire::protocol::model_answer a;
    a.tool_calls.push_back({"r" + std::to_string(round) + "a", "a", "{}"});
    f.h.answer(step.step_id, a);
    auto next_ids = f.pending_ids(uuid);
    REQUIRE(next_ids.size() == 1);
    CHECK(all_ids.insert(next_ids[0]).second);
    REQUIRE(f.submit_all(uuid).status == 200);
  }
  CHECK(all_ids.size() == 9);
}

TEST_CASE("TASK-10 the model sees the task's tools unprefixed and each input text",
          "[core][tasks]") {
  task_fixture f;
  f.create(json::array({task_tool("get_location"), task_tool("pick_date")}),
           {"first text", "second \xE6\x97\xA5 text"});
  auto step = f.h.next_model_step();
  CHECK(core_harness::offered_names(step) == std::vector<std::string>{"get_location", "pick_date"});
  REQUIRE(step.conversation["messages"].size() == 2);
  CHECK(step.conversation["messages"][0] == json{{"role", "user"}, {"content", "first text"}});
  CHECK(step.conversation["messages"][1] ==
        json{{"role", "user"}, {"content", "second \xE6\x97\xA5 text"}});
}

TEST_CASE("MODEL-4 a failing model fails the task", "[core][tasks]") {
  task_fixture f;
  const std::string uuid = f.create(json::array({task_tool("a")}));
  SECTION("MODEL-4 on the first step") {
    f.h.fail_model(f.h.next_model_step().step_id, "connection refused");
    auto body = f.get(uuid);
    CHECK(body["status"] == "failed");
    CHECK(body["error"]["reason"] == "model_error");
    CHECK(body["error"]["message"].is_string());
    CHECK(f.submit(uuid, json::array()).status == 409);
  }
  SECTION("MODEL-4 after a round of tool results") {
    f.answer(std::nullopt, {{"a", json::object()}});
    REQUIRE(f.submit_all(uuid).status == 200);
    f.h.fail_model(f.h.next_model_step().step_id, "HTTP 502");
    CHECK(f.status(uuid) == "failed");
  }
}
