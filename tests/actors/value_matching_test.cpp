// How expected values match what a target sent (C-6): legitimate variation never fails
// a case, and `$exactly` keeps the rules that demand exactness strict. Each relaxation is
// shown needed: the first section of each test case is what the old whole-array
// comparison failed.
#include <catch2/catch.hpp>

#include <optional>

#include "toolwire/actors/expectations.hpp"

using toolwire::actors::value_matches;
using json = nlohmann::json;

TEST_CASE("C-6 extra fields are ignored at every depth, array items included",
          "[expectations][matching]") {
  const json expected = json::parse(R"({"status": "completed", "output": [
      {"type": "tool_call", "tool_call": {"name": "locate", "input": {},
                                          "output": {"type": "content"}}},
      {"type": "text", "text": "done"}]})");
  SECTION("an extra field inside an array item passes (TASK-6 output with tool_call.id)") {
    json actual = expected;
    actual["output"][0]["tool_call"]["id"] = "call-17";
    actual["output"][1]["x_extra"] = {{"note", 1}};
    actual["assistant_id"] = 1;
    CHECK(value_matches(expected, actual));
  }
  SECTION("a missing field inside an array item fails") {
    json actual = expected;
    actual["output"][0]["tool_call"].erase("name");
    CHECK_FALSE(value_matches(expected, actual));
  }
  SECTION("a different value inside an array item fails") {
    json actual = expected;
    actual["output"][1]["text"] = "not done";
    CHECK_FALSE(value_matches(expected, actual));
  }
  SECTION("an extra or a missing item fails: lengths are equal") {
    json longer = expected;
    longer["output"].push_back({{"type", "text"}, {"text", "more"}});
    CHECK_FALSE(value_matches(expected, longer));
    json shorter = expected;
    shorter["output"].erase(1);
    CHECK_FALSE(value_matches(expected, shorter));
  }
  SECTION("items match at their own index, not anywhere") {
    json swapped = expected;
    std::swap(swapped["output"][0], swapped["output"][1]);
    CHECK_FALSE(value_matches(expected, swapped));
  }
  SECTION("a scalar never matches a container, nor the other way round") {
    CHECK_FALSE(value_matches(json::array({1}), 1));
    CHECK_FALSE(value_matches(json{{"a", 1}}, json::array()));
    CHECK_FALSE(value_matches("1", 1));
    CHECK(value_matches(nullptr, nullptr));
  }
}

TEST_CASE("$exactly asks for equality where a SPEC rule demands it (CALL-1)",
          "[expectations][matching]") {
  const json expected = json::parse(R"({"type": "client_tool_dispatched",
      "arguments": {"$exactly": {"cell": "C1", "lines": [1, 2]}}})");
  const json actual = json::parse(R"({"type": "client_tool_dispatched", "call_id": "x",
      "arguments": {"cell": "C1", "lines": [1, 2]}})");
  SECTION("equal arguments pass, with extra fields around them") {
    CHECK(value_matches(expected, actual));
  }
  SECTION("an extra field in the arguments fails") {
    json extra = actual;
    extra["arguments"]["sheet"] = "A";
    CHECK_FALSE(value_matches(expected, extra));
    // ...which the ordinary subset form would have let through.
    CHECK(value_matches(json{{"arguments", {{"cell", "C1"}, {"lines", {1, 2}}}}}, extra));
  }
  SECTION("an extra item fails") {
    json extra = actual;
    extra["arguments"]["lines"].push_back(3);
    CHECK_FALSE(value_matches(expected, extra));
  }
  SECTION("empty arguments are exactly empty") {
    const json empty = json::parse(R"({"arguments": {"$exactly": {}}})");
    CHECK(value_matches(empty, json{{"arguments", json::object()}}));
    CHECK_FALSE(value_matches(empty, json{{"arguments", {{"a", 1}}}}));
    CHECK(value_matches(json{{"arguments", json::object()}}, json{{"arguments", {{"a", 1}}}}));
  }
  SECTION("an object that merely has a $exactly key beside others is an ordinary object") {
    const json both = json::parse(R"({"$exactly": 1, "b": 2})");
    CHECK(value_matches(both, json::parse(R"({"$exactly": 1, "b": 2, "c": 3})")));
  }
}

TEST_CASE("$any_order pairs the items of a list whose order SPEC leaves open",
          "[expectations][matching]") {
  // client_tools_updated.tools (SES-4) lists names; SPEC does not order them.
  const json expected = json::parse(R"({"type": "client_tools_updated",
      "tools": {"$any_order": ["highlight_row", "pick_date"]}})");
  SECTION("either order passes") {
    CHECK(value_matches(expected, json::parse(R"({"type": "client_tools_updated",
        "tools": ["pick_date", "highlight_row"]})")));
    CHECK(value_matches(expected, json::parse(R"({"type": "client_tools_updated",
        "tools": ["highlight_row", "pick_date"]})")));
  }
  SECTION("a missing, extra, repeated or other item fails") {
    CHECK_FALSE(value_matches(expected, json::parse(R"({"tools": ["pick_date"]})")));
    CHECK_FALSE(value_matches(expected,
                              json::parse(R"({"tools": ["pick_date", "highlight_row", "sum"]})")));
    CHECK_FALSE(value_matches(expected, json::parse(R"({"tools": ["pick_date", "pick_date"]})")));
    CHECK_FALSE(value_matches(expected, json::parse(R"({"tools": ["pick_date", "sum"]})")));
    CHECK_FALSE(value_matches(expected, json::parse(R"({"tools": "pick_date"})")));
  }
  SECTION("items are subsets, paired one to one even when one item could take two") {
    const json items = json::parse(R"({"$any_order": [{"name": "a"}, {"name": "a", "n": 1}]})");
    CHECK(value_matches(items, json::parse(R"([{"name": "a", "n": 1, "x": 0}, {"name": "a"}])")));
    CHECK_FALSE(value_matches(items, json::parse(R"([{"name": "a"}, {"name": "a"}])")));
  }
}

namespace {

//! A one-step plan expecting `model_received {tool: web__list_ids, content: <want>}`, and a
//! trace in which the model got `got` as that call's tool message content.
toolwire::actors::expectation_report received(const json& want, const json& got,
                                              std::optional<int> count = std::nullopt) {
  toolwire::scenarios::scenario plan;
  toolwire::scenarios::scripted_step step;
  step.at = 10;
  json args = {{"tool", "web__list_ids"}, {"content", want}};
  if (count) args["count"] = *count;
  step.expect.push_back({"model_received", args, {"CALL-8"}, ""});
  plan.steps.push_back(step);
  toolwire::actors::trace run;
  run.add(
      1, "model", "model_reply",
      {{"step_id", 1}, {"reply", {{"tool_calls", {{{"id", "m1"}, {"name", "web__list_ids"}}}}}}});
  run.add(5, "target", "model_step",
          {{"step_id", 2}, {"tool_results", {{{"tool_call_id", "m1"}, {"content", got}}}}});
  run.add(10, "director", "expect",
          {{"step", 0}, {"session", "s"}, {"args", json::array({step.expect[0].args})}});
  return toolwire::actors::check_expectations(plan, run);
}

}  // namespace

TEST_CASE("CALL-8 JSON content is compared as a value, a string as that string",
          "[expectations][matching]") {
  SECTION("JSON content serialized with other spacing or key order passes") {
    CHECK(received(json::parse(R"({"ids": [7], "more": true})"),
                   "{\n  \"more\": true,\n  \"ids\": [ 7 ]\n}")
              .passed());
    CHECK(received(json::parse(R"({"ids": [7], "more": true})"), R"({"ids":[7],"more":true})")
              .passed());
  }
  SECTION("other JSON fails") {
    CHECK_FALSE(received(json::array({7}), "[7, 8]").passed());
    CHECK_FALSE(received(json::array({7}), "not json").passed());
  }
  SECTION("a string must be the very string") {
    CHECK(received("[7]", "[7]").passed());
    CHECK_FALSE(received("[7]", "[ 7 ]").passed());
  }
}

TEST_CASE("model_received with a count wants exactly that many matching results",
          "[expectations][matching]") {
  // Why exactly: explore pins a missing model step with it, where another owner's step
  // received a result of the same kind and "at least one" held on the faulty target.
  CHECK(received("ok", "ok", 1).passed());
  CHECK_FALSE(received("ok", "ok", 2).passed());
  CHECK_FALSE(received("ok", "ok", 0).passed());
  CHECK(received("ok", "other", 0).passed());
}
