// Tests for the JSON codecs and the chat-completions shapes: MODEL-1, MODEL-2, CALL-2, CALL-8.
#include <catch2/catch.hpp>

#include <rapidcheck/catch.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "protocol/protocol_test_support.hpp"
#include "toolwire/protocol/codec.hpp"
#include "toolwire/protocol/validation.hpp"

using namespace toolwire::protocol;
using toolwire::protocol::testing::rejection;

namespace {

//! A chat-completions response whose first choice carries `message`.
json completion(json message) {
  return {
      {"id", "chatcmpl-1"},
      {"object", "chat.completion"},
      {"choices",
       json::array({{{"index", 0}, {"message", std::move(message)}, {"finish_reason", "stop"}}})},
      {"usage", {{"prompt_tokens", 3}}}};
}

//! The offered tool as the model endpoint reads it; also checks the text is what a JSON
//! value of it would serialize to, byte for byte.
json openai_tool(const std::string& name, const tool_spec& tool) {
  std::string text = "[";  // appended after other text, as a step's list is written
  openai_tool_writer writer(text);
  writer.write(name, tool);
  const json parsed = json::parse(text.substr(1));
  CHECK(text.substr(1) == parsed.dump());
  return parsed;
}

json call(const std::string& id, const std::string& name, const std::string& arguments) {
  return {
      {"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", arguments}}}};
}

const json weather_schema = json::parse(
    R"({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})");

rc::Gen<std::string> ascii_text() {
  return rc::gen::container<std::string>(rc::gen::inRange(' ', '~'));
}

}  // namespace

TEST_CASE("wire codecs for tools and lifetimes", "[codec]") {
  SECTION("REG-1 a tool is {name, description, parameters}") {
    CHECK(
        to_json(tool_spec{"weather", "the weather", weather_schema}) ==
        json{{"name", "weather"}, {"description", "the weather"}, {"parameters", weather_schema}});
  }
  SECTION("REG-1 a tool list is an array in order; an empty list is []") {
    const std::vector<tool_spec> tools{{"b", "B", json::object()}, {"a", "A", weather_schema}};
    const auto list = to_json(tools);
    REQUIRE(list.is_array());
    REQUIRE(list.size() == 2);
    CHECK(list[0].at("name") == "b");
    CHECK(list[1].at("parameters") == weather_schema);
    CHECK(to_json(std::vector<tool_spec>{}) == json::array());
  }
  SECTION("REG-8 lifetimes have the registration shape") {
    CHECK(to_json(lifetime{lifetime::kind::never, 0}) == json{{"type", "never"}});
    CHECK(to_json(lifetime{lifetime::kind::ttl, 30}) ==
          json::parse(R"({"type": "ttl", "data": {"seconds": 30}})"));
  }
  SECTION("REG-8 an encoded lifetime validates back to itself") {
    rc::prop("parse(to_json(lifetime)) == lifetime", [] {
      const auto ttl = *rc::gen::arbitrary<bool>();
      const lifetime life{ttl ? lifetime::kind::ttl : lifetime::kind::never,
                          ttl ? *rc::gen::inRange<std::int64_t>(1, 86401) : 0};
      const json body = {{"name", "app"}, {"lifetime", to_json(life)}};
      const auto parsed = parse_register_request(body);
      RC_ASSERT(parsed.ok());
      RC_ASSERT(parsed->lifetime == life);
    });
  }
  SECTION("REG-1 an encoded valid tool list validates back to itself") {
    rc::prop("parse_tool_list(to_json(tools)) == tools", [] {
      const auto names = *rc::gen::unique<std::vector<std::string>>(rc::gen::container<std::string>(
          *rc::gen::inRange<std::size_t>(1, 65), rc::gen::elementOf(std::string("abcXYZ019_-"))));
      std::vector<tool_spec> tools;
      for (const auto& name : names) {
        tools.push_back({name, *ascii_text(), json{{"type", "object"}, {"title", *ascii_text()}}});
      }
      const auto parsed = parse_tool_list(to_json(tools), "tools");
      RC_ASSERT(parsed.ok());
      RC_ASSERT(*parsed == tools);
    });
  }
}

TEST_CASE("MODEL-1 tools are offered in the OpenAI function shape", "[codec][MODEL-1]") {
  SECTION("MODEL-1 name, description and parameters are carried") {
    CHECK(openai_tool("browser__weather", {"weather", "the weather", weather_schema}) ==
          json{{"type", "function"},
               {"function",
                {{"name", "browser__weather"},
                 {"description", "the weather"},
                 {"parameters", weather_schema}}}});
  }
  SECTION("CALL-2 the offered name is the one given, not the declared one") {
    const auto offered = openai_tool("tab_2__pick", {"pick", "d", json::object()});
    CHECK(offered.at("function").at("name") == "tab_2__pick");
  }
  SECTION("MODEL-1 empty parameters go out as an empty object schema") {
    CHECK(openai_tool("confirm", {"confirm", "ask", json::object()})
              .at("function")
              .at("parameters") == json::parse(R"({"type": "object", "properties": {}})"));
  }
  SECTION("MODEL-1 non-empty parameters without a type are sent as declared") {
    const json schema = {{"properties", json::object()}};
    CHECK(openai_tool("t", {"t", "d", schema}).at("function").at("parameters") == schema);
  }
  SECTION("MODEL-1 quotes, control characters and non-ASCII text are carried exactly") {
    const std::string description = "a \"quoted\" \\ path\n\ttab \x01 caf\xc3\xa9 \xe2\x82\xac";
    const json schema = {{"type", "object"}, {"description", "\x7f\x1f"}};
    const auto offered = openai_tool("t\u00e9__x", {"x", description, schema});
    CHECK(offered.at("function").at("description") == description);
    CHECK(offered.at("function").at("name") == "t\u00e9__x");
    CHECK(offered.at("function").at("parameters") == schema);
  }
  SECTION("MODEL-1 one writer writes tool after tool; invalid UTF-8 becomes U+FFFD") {
    std::string text = "[";
    openai_tool_writer writer(text);
    const json bad = {{"type", "object"}, {"description", std::string("a\xff")}};
    writer.write("a__one", {"one", "first", bad});
    text += ',';
    writer.write("a__two", {"two", "second", weather_schema});
    text += ']';
    const json list = json::parse(text);
    REQUIRE(list.size() == 2);
    CHECK(list[0].at("function").at("parameters").at("description") == "a\xef\xbf\xbd");
    CHECK(list[1] == openai_tool("a__two", {"two", "second", weather_schema}));
  }
}

TEST_CASE("CALL-8 how an outcome reaches the model", "[codec][CALL-8]") {
  SECTION("CALL-8 string content reaches the model as that string") {
    const auto text = GENERATE(as<std::string>{}, "Paris", "", "{\"looks\": \"like json\"}",
                               "\"quoted\"", "\xE6\x97\xA5\xE6\x9C\xAC");
    CHECK(model_content(tool_outcome{json(text)}) == text);
  }
  SECTION("CALL-8 other JSON reaches the model as its serialization") {
    const auto [content, serialized] = GENERATE(table<json, std::string>({
        {json{{"b", 1}, {"a", {true, nullptr}}}, R"({"a":[true,null],"b":1})"},
        {json(42), "42"},
        {json(1.5), "1.5"},
        {json(nullptr), "null"},
        {json(false), "false"},
        {json::array(), "[]"},
        {json{{"city", "\xE6\x97\xA5"}}, "{\"city\":\"\xE6\x97\xA5\"}"},
    }));
    CHECK(model_content(tool_outcome{content}) == serialized);
  }
  SECTION("CALL-8 an error reaches the model as {error: {reason, message}}") {
    const auto text = model_content(tool_outcome{tool_error{"no form open", "client_error"}});
    CHECK(text == R"({"error":{"message":"no form open","reason":"client_error"}})");
    CHECK(json::parse(text) ==
          json{{"error", {{"reason", "client_error"}, {"message", "no form open"}}}});
  }
  SECTION("CALL-8 an error's reason is carried as given") {
    const auto text = model_content(tool_outcome{tool_error{"gone", "client_expired"}});
    CHECK(json::parse(text).at("error").at("reason") == "client_expired");
  }
  SECTION("CALL-8 serialized content parses back to the content") {
    rc::prop("json::parse(model_content(x)) == x for non-strings", [] {
      const auto values =
          *rc::gen::container<std::vector<std::int64_t>>(rc::gen::arbitrary<std::int64_t>());
      const json content = {{"values", values}, {"label", *ascii_text()}};
      RC_ASSERT(json::parse(model_content(tool_outcome{content})) == content);
    });
  }
}

TEST_CASE("MODEL-2 parse_chat_completion reads choices[0].message", "[codec][MODEL-2]") {
  SECTION("MODEL-2 a text answer") {
    const auto parsed =
        parse_chat_completion(completion({{"role", "assistant"}, {"content", "It is sunny."}}));
    REQUIRE(parsed.ok());
    CHECK(*parsed == model_answer{"It is sunny.", {}});
  }
  SECTION("MODEL-2 tool calls with null content") {
    const auto parsed = parse_chat_completion(completion(
        {{"role", "assistant"},
         {"content", nullptr},
         {"tool_calls",
          {call("c1", "app__weather", R"({"city":"Paris"})"), call("c2", "app__pick", "{}")}}}));
    REQUIRE(parsed.ok());
    CHECK_FALSE(parsed->text.has_value());
    CHECK(parsed->tool_calls ==
          std::vector<model_tool_call>{{"c1", "app__weather", R"({"city":"Paris"})"},
                                       {"c2", "app__pick", "{}"}});
  }
  SECTION("MODEL-2 tool calls without a content member") {
    const auto parsed =
        parse_chat_completion(completion({{"tool_calls", json::array({call("c1", "t", "{}")})}}));
    REQUIRE(parsed.ok());
    CHECK_FALSE(parsed->text.has_value());
    CHECK(parsed->tool_calls.size() == 1);
  }
  SECTION("MODEL-2 text and tool calls together") {
    const auto parsed = parse_chat_completion(completion(
        {{"content", "Let me check."}, {"tool_calls", json::array({call("c1", "t", "{}")})}}));
    REQUIRE(parsed.ok());
    CHECK(parsed->text == "Let me check.");
    CHECK(parsed->tool_calls.at(0).id == "c1");
  }
  SECTION("MODEL-2 a message with neither text nor tool calls is the empty answer") {
    const auto message =
        GENERATE(json{{"role", "assistant"}, {"content", nullptr}}, json{{"role", "assistant"}},
                 json::object(), json{{"content", nullptr}, {"tool_calls", nullptr}},
                 json{{"content", nullptr}, {"tool_calls", json::array()}});
    CAPTURE(message);
    const auto parsed = parse_chat_completion(completion(message));
    REQUIRE(parsed.ok());
    CHECK(*parsed == model_answer{std::string(), {}});
  }
  SECTION("MODEL-2 arguments are kept as the model's text, even when not JSON") {
    const auto arguments = GENERATE(as<std::string>{}, "{not json", "", " { \"a\" : 1 } ");
    const auto parsed = parse_chat_completion(
        completion({{"tool_calls", json::array({call("c", "t", arguments)})}}));
    REQUIRE(parsed.ok());
    CHECK(parsed->tool_calls.at(0).arguments == arguments);
  }
  SECTION("MODEL-2 a tool call without type is still a function call") {
    json item = call("c", "t", "{}");
    item.erase("type");
    const auto parsed = parse_chat_completion(completion({{"tool_calls", json::array({item})}}));
    REQUIRE(parsed.ok());
    CHECK(parsed->tool_calls.at(0) == model_tool_call{"c", "t", "{}"});
  }
  SECTION("MODEL-2 only the first choice counts") {
    auto body = completion({{"content", "first"}});
    body["choices"].push_back({{"index", 1}, {"message", {{"content", 5}}}});
    const auto parsed = parse_chat_completion(body);
    REQUIRE(parsed.ok());
    CHECK(parsed->text == "first");
  }
}

TEST_CASE("MODEL-4 a malformed chat completion names what is wrong", "[codec][MODEL-2][MODEL-4]") {
  const auto with_call = [](json item) {
    return completion({{"tool_calls", json::array({call("c0", "t", "{}"), std::move(item)})}});
  };
  json no_id = call("c1", "t", "{}");
  no_id.erase("id");
  json numeric_id = call("c1", "t", "{}");
  numeric_id["id"] = 1;
  json wrong_type = call("c1", "t", "{}");
  wrong_type["type"] = "tool";
  json no_function = call("c1", "t", "{}");
  no_function.erase("function");
  json string_function = call("c1", "t", "{}");
  string_function["function"] = "t";
  json no_name = call("c1", "t", "{}");
  no_name["function"].erase("name");
  json numeric_name = call("c1", "t", "{}");
  numeric_name["function"]["name"] = 3;
  json no_arguments = call("c1", "t", "{}");
  no_arguments["function"].erase("arguments");
  json object_arguments = call("c1", "t", "{}");
  object_arguments["function"]["arguments"] = json::object();
  const std::string call_path = "choices[0].message.tool_calls[1]";

  const std::vector<std::pair<json, std::string>> cases{
      {json::array(), "body: must be a JSON object"},
      {json("ok"), "body: must be a JSON object"},
      {json::object(), "choices: missing"},
      {json{{"error", {{"message", "rate limited"}}}}, "choices: missing"},
      {json{{"choices", json::array()}}, "choices: must be a non-empty array"},
      {json{{"choices", json::object()}}, "choices: must be a non-empty array"},
      {json{{"choices", json::array({1})}}, "choices[0]: must be an object"},
      {json{{"choices", json::array({json::object()})}}, "choices[0].message: missing"},
      {json{{"choices", json::array({{{"message", "hi"}}})}},
       "choices[0].message: must be an object"},
      {completion({{"content", 5}}), "choices[0].message.content: must be a string or null"},
      {completion({{"content", json::array({{{"type", "text"}, {"text", "hi"}}})}}),
       "choices[0].message.content: must be a string or null"},
      {completion({{"tool_calls", json::object()}}),
       "choices[0].message.tool_calls: must be an array"},
      {with_call(json(5)), call_path + ": must be an object"},
      {with_call(no_id), call_path + ".id: missing"},
      {with_call(numeric_id), call_path + ".id: must be a string"},
      {with_call(wrong_type), call_path + ".type: must be \"function\""},
      {with_call(no_function), call_path + ".function: missing"},
      {with_call(string_function), call_path + ".function: must be an object"},
      {with_call(no_name), call_path + ".function.name: missing"},
      {with_call(numeric_name), call_path + ".function.name: must be a string"},
      {with_call(no_arguments), call_path + ".function.arguments: missing"},
      {with_call(object_arguments), call_path + ".function.arguments: must be a string"},
  };
  for (const auto& [response, message] : cases) {
    CAPTURE(response);
    CHECK(rejection(parse_chat_completion(response)) == message);
  }
}

TEST_CASE("MODEL-2 to_chat_completion builds what a model stand-in sends", "[codec][MODEL-2]") {
  SECTION("MODEL-2 a text answer stops") {
    CHECK(to_chat_completion(model_answer{"done", {}}) == json::parse(R"({
      "id": "chatcmpl-toolwire", "object": "chat.completion",
      "choices": [{"index": 0, "message": {"role": "assistant", "content": "done"},
                   "finish_reason": "stop"}]})"));
  }
  SECTION("MODEL-2 tool calls finish with tool_calls and null content") {
    const auto body = to_chat_completion(model_answer{std::nullopt, {{"c1", "app__t", "{}"}}});
    const auto& choice = body.at("choices").at(0);
    CHECK(choice.at("finish_reason") == "tool_calls");
    CHECK(choice.at("message").at("content").is_null());
    CHECK(choice.at("message").at("tool_calls") == json::array({call("c1", "app__t", "{}")}));
  }
  SECTION("MODEL-2 text with tool calls keeps both") {
    const auto body = to_chat_completion(model_answer{"checking", {{"c1", "t", "{}"}}});
    const auto& message = body.at("choices").at(0).at("message");
    CHECK(message.at("content") == "checking");
    CHECK(message.at("tool_calls").size() == 1);
    CHECK(body.at("choices").at(0).at("finish_reason") == "tool_calls");
  }
  SECTION("MODEL-2 tool_calls is omitted when there are none") {
    const auto body = to_chat_completion(model_answer{"hi", {}});
    CHECK_FALSE(body.at("choices").at(0).at("message").contains("tool_calls"));
  }
  SECTION("MODEL-2 an answer without text or calls reads back as the empty answer") {
    const auto parsed = parse_chat_completion(to_chat_completion(model_answer{}));
    REQUIRE(parsed.ok());
    CHECK(*parsed == model_answer{std::string(), {}});
  }
  SECTION("MODEL-2 answers survive the round trip") {
    rc::prop("parse_chat_completion(to_chat_completion(a)) == a", [] {
      model_answer answer;
      const auto calls = *rc::gen::container<std::vector<std::vector<std::string>>>(
          rc::gen::container<std::vector<std::string>>(3, ascii_text()));
      for (const auto& parts : calls)
        answer.tool_calls.push_back({parts[0], parts[1], parts[2]});
      // Why: with no calls the text must be present; "no text, no calls" reads back as "".
      if (answer.tool_calls.empty() || *rc::gen::arbitrary<bool>()) answer.text = *ascii_text();
      const auto parsed = parse_chat_completion(to_chat_completion(answer));
      RC_ASSERT(parsed.ok());
      RC_ASSERT(*parsed == answer);
    });
  }
}
