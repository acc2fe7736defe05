// Tests for body parsing and the other request bodies: C-2, CALL-4, SES-2, TASK-1, TASK-4, CLOCK-1.
#include <catch2/catch.hpp>

#include <rapidcheck/catch.h>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <variant>

#include "protocol/protocol_test_support.hpp"
#include "toolwire/protocol/validation.hpp"

using namespace toolwire::protocol;
using toolwire::protocol::testing::rejection;

namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

json task_body() {
  return json::parse(R"({
    "assistant_id": 7,
    "input": [{"type": "text", "text": "case-17: find the weather"}],
    "client_tools": [
      {"name": "get_location", "description": "where the user is",
       "input_schema": {"type": "object", "properties": {"precise": {"type": "boolean"}}}},
      {"name": "confirm", "description": "ask the user"}
    ]
  })");
}

const std::string name_rule_reg1 = "must be 1-64 characters of [A-Za-z0-9_-] (REG-1)";

}  // namespace

TEST_CASE("C-2 parse_json_body", "[validation][C-2]") {
  SECTION("C-2 a JSON object is parsed") {
    const auto parsed = parse_json_body(R"({"content": "hi", "n": [1, 2]})");
    REQUIRE(parsed.ok());
    CHECK(*parsed == json{{"content", "hi"}, {"n", {1, 2}}});
  }
  SECTION("C-2 any JSON value parses; the shape is the request parser's check") {
    const auto parsed = parse_json_body("[1]");
    REQUIRE(parsed.ok());
    CHECK(*parsed == json::array({1}));
    CHECK(rejection(parse_register_request(*parsed)) == "body: must be a JSON object");
  }
  SECTION("C-2 malformed JSON is 400 with the parser's detail") {
    const auto body = GENERATE(as<std::string>{}, "", "   ", "{", "{\"a\":}", "{} x", "{'a': 1}",
                               "[1,]", "nul", "{\"a\": 1} {\"b\": 2}", "{\"a\": 1 /* c */}");
    CAPTURE(body);
    const auto message = rejection(parse_json_body(body));
    CHECK(starts_with(message, "body: malformed JSON: "));
    CHECK(message.size() > std::string("body: malformed JSON: ").size());
    CHECK(message.find("[json.exception") == std::string::npos);
  }
  SECTION("C-2 the detail locates the problem") {
    const auto message = rejection(parse_json_body("{\"a\": tru}"));
    CHECK(message.find("line 1") != std::string::npos);
    CHECK(message.find("column") != std::string::npos);
  }
  SECTION("C-2 an empty body is malformed JSON") {
    CHECK(starts_with(rejection(parse_json_body("")), "body: malformed JSON: "));
  }
  SECTION("C-2 serialized objects parse back to themselves") {
    rc::prop("parse_json_body(dump(x)) == x", [] {
      const auto entries = *rc::gen::container<std::map<std::string, std::int64_t>>(
          rc::gen::container<std::string>(rc::gen::inRange(' ', '~')),
          rc::gen::arbitrary<std::int64_t>());
      const json object(entries);
      const auto parsed = parse_json_body(object.dump());
      RC_ASSERT(parsed.ok());
      RC_ASSERT(*parsed == object);
    });
  }
}

TEST_CASE("CALL-4 result body: content or error", "[validation][CALL-4]") {
  const std::string exactly_one = "body: must have exactly one of content or error (CALL-4)";

  SECTION("CALL-4 content of any JSON type is kept as given") {
    const auto content = GENERATE(json("the form says 42"), json(""), json(42), json(nullptr),
                                  json(false), json{{"rows", {1, 2}}}, json::array());
    CAPTURE(content);
    const auto parsed = parse_result_request({{"content", content}});
    REQUIRE(parsed.ok());
    REQUIRE(std::holds_alternative<json>(parsed->outcome));
    CHECK(std::get<json>(parsed->outcome) == content);
  }
  SECTION("CALL-4 \"content\": null is present content, not absent") {
    const auto parsed = parse_result_request(json::parse(R"({"content": null})"));
    REQUIRE(parsed.ok());
    CHECK(std::get<json>(parsed->outcome).is_null());
    CHECK(rejection(parse_result_request(json::parse(R"({"content": null, "error": "x"})"))) ==
          exactly_one);
  }
  SECTION("CALL-4 an error without reason defaults to client_error") {
    const auto parsed = parse_result_request({{"error", "no form open"}});
    REQUIRE(parsed.ok());
    CHECK(std::get<tool_error>(parsed->outcome) == tool_error{"no form open", "client_error"});
  }
  SECTION("CALL-4 an error keeps its reason") {
    const auto parsed = parse_result_request({{"error", "denied"}, {"reason", "user_declined"}});
    REQUIRE(parsed.ok());
    CHECK(std::get<tool_error>(parsed->outcome) == tool_error{"denied", "user_declined"});
  }
  SECTION("CALL-4 an empty error message is accepted") {
    const auto parsed = parse_result_request({{"error", ""}});
    REQUIRE(parsed.ok());
    CHECK(std::get<tool_error>(parsed->outcome).message.empty());
  }
  SECTION("CALL-4 both content and error are rejected") {
    CHECK(rejection(parse_result_request({{"content", "x"}, {"error", "y"}})) == exactly_one);
  }
  SECTION("CALL-4 neither content nor error is rejected") {
    const auto body =
        GENERATE(json::object(), json{{"reason", "client_error"}}, json{{"result", "x"}});
    CAPTURE(body);
    CHECK(rejection(parse_result_request(body)) == exactly_one);
  }
  SECTION("CALL-4 error must be a string") {
    const auto error = GENERATE(json(nullptr), json(1), json{{"message", "x"}});
    CHECK(rejection(parse_result_request({{"error", error}})) ==
          "error: must be a string (CALL-4)");
  }
  SECTION("CALL-4 reason, if present, must be a non-empty string") {
    const auto reason = GENERATE(json(""), json(nullptr), json(5), json::array());
    CAPTURE(reason);
    CHECK(rejection(parse_result_request({{"error", "x"}, {"reason", reason}})) ==
          "reason: must be a non-empty string (CALL-4)");
  }
  SECTION("CALL-4 a reason next to content is ignored") {
    const auto parsed = parse_result_request({{"content", "x"}, {"reason", 5}});
    REQUIRE(parsed.ok());
    CHECK(std::get<json>(parsed->outcome) == "x");
  }
  SECTION("C-2 a body that is not a JSON object is rejected") {
    CHECK(rejection(parse_result_request(json("x"))) == "body: must be a JSON object");
  }
}

TEST_CASE("SES-2 message body", "[validation][SES-2]") {
  SECTION("SES-2 content is a string, kept unchanged (MODEL-3)") {
    const auto content = GENERATE(as<std::string>{}, "case-3: hello", "", "\xE6\x97\xA5 \n\t\"");
    const auto parsed = parse_message_request({{"content", content}});
    REQUIRE(parsed.ok());
    CHECK(parsed->content == content);
  }
  SECTION("SES-2 content is required") {
    CHECK(rejection(parse_message_request(json::object())) == "content: missing (SES-2)");
  }
  SECTION("SES-2 content must be a string") {
    const auto content = GENERATE(json(nullptr), json(1), json::array({"hi"}), json::object());
    CHECK(rejection(parse_message_request({{"content", content}})) ==
          "content: must be a string (SES-2)");
  }
  SECTION("C-2 a body that is not a JSON object is rejected") {
    CHECK(rejection(parse_message_request(json::array())) == "body: must be a JSON object");
  }
}

TEST_CASE("TASK-1 task creation body", "[validation][TASK-1]") {
  SECTION("TASK-1 a complete body is parsed") {
    const auto parsed = parse_task_create_request(task_body());
    REQUIRE(parsed.ok());
    CHECK(parsed->assistant_id == 7);
    CHECK(parsed->input_texts == std::vector<std::string>{"case-17: find the weather"});
    REQUIRE(parsed->client_tools.size() == 2);
    CHECK(parsed->client_tools[0] ==
          tool_spec{"get_location", "where the user is", json::parse(R"({"type": "object",
                                    "properties": {"precise": {"type": "boolean"}}})")});
  }
  SECTION("TASK-1 input_schema is optional: parameters are then {}") {
    const auto parsed = parse_task_create_request(task_body());
    REQUIRE(parsed.ok());
    CHECK(parsed->client_tools[1] == tool_spec{"confirm", "ask the user", json::object()});
  }
  SECTION("TASK-1 a parameters member is not an input_schema and is ignored") {
    auto body = task_body();
    body["client_tools"][1]["parameters"] = 5;
    const auto parsed = parse_task_create_request(body);
    REQUIRE(parsed.ok());
    CHECK(parsed->client_tools[1].parameters == json::object());
  }
  SECTION("TASK-1 client_tools may be omitted") {
    auto body = task_body();
    body.erase("client_tools");
    const auto parsed = parse_task_create_request(body);
    REQUIRE(parsed.ok());
    CHECK(parsed->client_tools.empty());
  }
  SECTION("TASK-1 every text item is kept, in order") {
    auto body = task_body();
    body["input"].push_back({{"type", "text"}, {"text", "second"}});
    body["input"].push_back({{"type", "text"}, {"text", ""}});
    const auto parsed = parse_task_create_request(body);
    REQUIRE(parsed.ok());
    CHECK(parsed->input_texts ==
          std::vector<std::string>{"case-17: find the weather", "second", ""});
  }
  SECTION("TASK-1 assistant_id is required and an integer") {
    auto body = task_body();
    body.erase("assistant_id");
    CHECK(rejection(parse_task_create_request(body)) == "assistant_id: missing (TASK-1)");
    const auto id = GENERATE(json("7"), json(7.0), json(7.5), json(true), json(nullptr),
                             json(std::numeric_limits<std::uint64_t>::max()));
    CAPTURE(id);
    body["assistant_id"] = id;
    CHECK(rejection(parse_task_create_request(body)) ==
          "assistant_id: must be an integer (TASK-1)");
  }
  SECTION("TASK-1 any integer assistant_id passes validation (unknown ones are the core's 404)") {
    const auto id = GENERATE(as<std::int64_t>{}, 0, -3, std::numeric_limits<std::int64_t>::max());
    auto body = task_body();
    body["assistant_id"] = id;
    const auto parsed = parse_task_create_request(body);
    REQUIRE(parsed.ok());
    CHECK(parsed->assistant_id == id);
  }
  SECTION("TASK-1 input is a required non-empty array") {
    auto body = task_body();
    body.erase("input");
    CHECK(rejection(parse_task_create_request(body)) == "input: missing (TASK-1)");
    const auto input = GENERATE(json::array(), json("hello"), json::object(), json(nullptr));
    body["input"] = input;
    CHECK(rejection(parse_task_create_request(body)) ==
          "input: must be a non-empty array (TASK-1)");
  }
  SECTION("TASK-1 input items are text items") {
    const auto [item, message] = GENERATE(table<json, std::string>({
        {json("hello"), "input[1]: must be an object (TASK-1)"},
        {json{{"type", "image"}, {"text", "x"}}, "input[1].type: must be \"text\" (TASK-1)"},
        {json{{"text", "x"}}, "input[1].type: must be \"text\" (TASK-1)"},
        {json{{"type", "text"}}, "input[1].text: missing (TASK-1)"},
        {json{{"type", "text"}, {"text", 5}}, "input[1].text: must be a string (TASK-1)"},
    }));
    auto body = task_body();
    body["input"].push_back(item);
    CHECK(rejection(parse_task_create_request(body)) == message);
  }
  SECTION("TASK-1 client tool names follow REG-1") {
    auto body = task_body();
    body["client_tools"][1]["name"] =
        GENERATE(std::string(65, 'c'), std::string(""), std::string("get location"));
    CHECK(rejection(parse_task_create_request(body)) == "client_tools[1].name: " + name_rule_reg1);
  }
  SECTION("TASK-1 a 64-character client tool name is accepted") {
    auto body = task_body();
    body["client_tools"][1]["name"] = std::string(64, 'c');
    CHECK(parse_task_create_request(body).ok());
  }
  SECTION("TASK-1 name and description are required strings") {
    const auto member = GENERATE(as<std::string>{}, "name", "description");
    auto body = task_body();
    body["client_tools"][0].erase(member);
    CHECK(rejection(parse_task_create_request(body)) ==
          "client_tools[0]." + member + ": missing (TASK-1)");
    body["client_tools"][0][member] = 12;
    CHECK(rejection(parse_task_create_request(body)) ==
          "client_tools[0]." + member + ": must be a string (TASK-1)");
  }
  SECTION("REG-2 a client tool description counts code points") {
    auto body = task_body();
    std::string japanese;
    for (int i = 0; i < 4096; ++i)
      japanese += "\xE6\x97\xA5";
    body["client_tools"][0]["description"] = japanese;
    CHECK(parse_task_create_request(body).ok());
    body["client_tools"][0]["description"] = std::string(4097, 'd');
    CHECK(rejection(parse_task_create_request(body)) ==
          "client_tools[0].description: must be at most 4096 characters (REG-2)");
  }
  SECTION("TASK-1 input_schema, if present, is a JSON object of type object") {
    const auto [schema, message] = GENERATE(table<json, std::string>({
        {json("object"), "client_tools[0].input_schema: must be a JSON object (TASK-1)"},
        {json(nullptr), "client_tools[0].input_schema: must be a JSON object (TASK-1)"},
        {json{{"type", "string"}},
         "client_tools[0].input_schema.type: must be \"object\" (TASK-1)"},
    }));
    auto body = task_body();
    body["client_tools"][0]["input_schema"] = schema;
    CHECK(rejection(parse_task_create_request(body)) == message);
  }
  SECTION("TASK-1 duplicate client tool names are rejected") {
    auto body = task_body();
    body["client_tools"].push_back({{"name", "get_location"}, {"description", "again"}});
    CHECK(rejection(parse_task_create_request(body)) ==
          "client_tools[2].name: duplicate tool name 'get_location' (TASK-1)");
  }
  SECTION("TASK-1 client_tools must be an array of objects") {
    auto body = task_body();
    body["client_tools"] = json::object();
    CHECK(rejection(parse_task_create_request(body)) == "client_tools: must be an array (TASK-1)");
    body["client_tools"] = json::array({"confirm"});
    CHECK(rejection(parse_task_create_request(body)) ==
          "client_tools[0]: must be an object (TASK-1)");
  }
  SECTION("TASK-1 client tools follow REG-1 and REG-2") {
    auto body = task_body();
    body["client_tools"][1]["name"] = "get location";
    CHECK(rejection(parse_task_create_request(body)).find("(REG-1)") != std::string::npos);
    std::string japanese;
    for (int i = 0; i < 2000; ++i)
      japanese += "\xE6\x97\xA5";
    body["client_tools"][1]["name"] = "confirm";
    body["client_tools"][1]["description"] = japanese;
    CHECK(parse_task_create_request(body).ok());
  }
  SECTION("C-2 a body that is not a JSON object is rejected") {
    CHECK(rejection(parse_task_create_request(json(7))) == "body: must be a JSON object");
  }
}

TEST_CASE("TASK-4 tool-results body shape", "[validation][TASK-4]") {
  SECTION("TASK-4 content and error items are parsed, in order") {
    const auto parsed = parse_tool_results_request(json::parse(R"({"tool_results": [
      {"id": "tc_1", "content": "Paris"},
      {"id": "tc_2", "error": "user said no", "reason": "declined"},
      {"id": "tc_3", "error": "broke"},
      {"id": "tc_4", "content": {"lat": 48.8}},
      {"id": "tc_5", "content": null}
    ]})"));
    REQUIRE(parsed.ok());
    const auto& results = parsed->results;
    REQUIRE(results.size() == 5);
    CHECK(results[0].id == "tc_1");
    CHECK(std::get<json>(results[0].outcome) == "Paris");
    CHECK(results[1].id == "tc_2");
    CHECK(std::get<tool_error>(results[1].outcome) == tool_error{"user said no", "declined"});
    CHECK(std::get<tool_error>(results[2].outcome) == tool_error{"broke", "client_error"});
    CHECK(std::get<json>(results[3].outcome) == json{{"lat", 48.8}});
    CHECK(std::get<json>(results[4].outcome).is_null());
  }
  SECTION("TASK-4 coverage is not a shape rule: empty lists and repeated ids pass") {
    const auto empty = parse_tool_results_request({{"tool_results", json::array()}});
    REQUIRE(empty.ok());
    CHECK(empty->results.empty());
    const auto repeated = parse_tool_results_request(json::parse(
        R"({"tool_results": [{"id": "tc_1", "content": 1}, {"id": "tc_1", "content": 2}]})"));
    REQUIRE(repeated.ok());
    CHECK(repeated->results.size() == 2);
  }
  SECTION("TASK-4 an item with both or neither of content/error is rejected") {
    const auto item = GENERATE(json{{"id", "tc_2"}, {"content", "x"}, {"error", "y"}},
                               json{{"id", "tc_2"}, {"content", nullptr}, {"error", "y"}},
                               json{{"id", "tc_2"}}, json{{"id", "tc_2"}, {"reason", "r"}});
    CAPTURE(item);
    const json body = {{"tool_results", {{{"id", "tc_1"}, {"content", "ok"}}, item}}};
    CHECK(rejection(parse_tool_results_request(body)) ==
          "tool_results[1]: must have exactly one of content or error (TASK-4)");
  }
  SECTION("TASK-4 items are objects with a string id") {
    const auto [item, message] = GENERATE(table<json, std::string>({
        {json("tc_1"), "tool_results[0]: must be an object (TASK-4)"},
        {json{{"content", "x"}}, "tool_results[0].id: missing (TASK-4)"},
        {json{{"id", 1}, {"content", "x"}}, "tool_results[0].id: must be a string (TASK-4)"},
        {json{{"id", nullptr}, {"content", "x"}}, "tool_results[0].id: must be a string (TASK-4)"},
        {json{{"id", "tc_1"}, {"error", 5}}, "tool_results[0].error: must be a string (TASK-4)"},
        {json{{"id", "tc_1"}, {"error", "x"}, {"reason", ""}},
         "tool_results[0].reason: must be a non-empty string (TASK-4)"},
        {json{{"id", "tc_1"}, {"error", "x"}, {"reason", 3}},
         "tool_results[0].reason: must be a non-empty string (TASK-4)"},
    }));
    CAPTURE(item);
    CHECK(rejection(parse_tool_results_request({{"tool_results", json::array({item})}})) ==
          message);
  }
  SECTION("TASK-4 tool_results is a required array") {
    CHECK(rejection(parse_tool_results_request(json::object())) ==
          "tool_results: missing (TASK-4)");
    const auto value = GENERATE(json::object(), json(nullptr), json("tc_1"));
    CHECK(rejection(parse_tool_results_request({{"tool_results", value}})) ==
          "tool_results: must be an array (TASK-4)");
  }
  SECTION("C-2 a body that is not a JSON object is rejected") {
    CHECK(rejection(parse_tool_results_request(json::array())) == "body: must be a JSON object");
  }
}

TEST_CASE("CLOCK-1 advance body", "[validation][CLOCK-1]") {
  SECTION("CLOCK-1 a non-negative integer is accepted") {
    const auto ms = GENERATE(as<std::int64_t>{}, 0, 1, 999, 86'400'000,
                             std::numeric_limits<std::int64_t>::max());
    const auto parsed = parse_advance_request({{"ms", ms}});
    REQUIRE(parsed.ok());
    CHECK(parsed->ms == ms);
  }
  SECTION("CLOCK-1 anything else is 400") {
    const auto ms = GENERATE(json(-1), json(1.5), json(1.0), json("5"), json(true), json(nullptr),
                             json::array({1}), json(std::numeric_limits<std::uint64_t>::max()),
                             json(std::numeric_limits<std::int64_t>::min()));
    CAPTURE(ms);
    CHECK(rejection(parse_advance_request({{"ms", ms}})) ==
          "ms: must be a non-negative integer (CLOCK-1)");
  }
  SECTION("CLOCK-1 ms is required") {
    CHECK(rejection(parse_advance_request(json::object())) == "ms: missing (CLOCK-1)");
  }
  SECTION("C-2 a body that is not a JSON object is rejected") {
    CHECK(rejection(parse_advance_request(json(5))) == "body: must be a JSON object");
  }
  SECTION("CLOCK-1 acceptance matches the sign for every integer") {
    rc::prop("accepted exactly when ms >= 0", [] {
      const auto ms = *rc::gen::arbitrary<std::int64_t>();
      const auto parsed = parse_advance_request({{"ms", ms}});
      RC_ASSERT(parsed.ok() == (ms >= 0));
      if (parsed.ok()) RC_ASSERT(parsed->ms == ms);
    });
  }
}
