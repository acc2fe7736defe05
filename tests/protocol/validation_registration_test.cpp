// Tests for client registration and tool-list validation: REG-1..4, REG-8, TOOLS-2.
#include <catch2/catch.hpp>

#include <rapidcheck/catch.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "protocol/protocol_test_support.hpp"
#include "toolwire/protocol/validation.hpp"

using namespace toolwire::protocol;
using toolwire::protocol::testing::rejection;

namespace {

//! The message of a rejection, after checking that it is one and that it is a 400.

json tool(const std::string& name, const std::string& description = "does a thing") {
  return {{"name", name},
          {"description", description},
          {"parameters", {{"type", "object"}, {"properties", json::object()}}}};
}

json registration(json tools = json::array()) {
  return {{"name", "app"}, {"lifetime", {{"type", "never"}}}, {"tools", std::move(tools)}};
}

std::string repeat(const std::string& unit, std::size_t times) {
  std::string text;
  for (std::size_t i = 0; i < times; ++i)
    text += unit;
  return text;
}

const std::string japanese = "\xE6\x97\xA5";   // U+65E5, three bytes
const std::string emoji = "\xF0\x9F\x98\x80";  // U+1F600, four bytes

const std::string name_rule_reg1 = "must be 1-64 characters of [A-Za-z0-9_-] (REG-1)";

//! A generator of names that satisfy REG-1.
rc::Gen<std::string> valid_name() {
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
  return rc::gen::mapcat(rc::gen::inRange<std::size_t>(1, 65), [alphabet](std::size_t length) {
    return rc::gen::container<std::string>(length, rc::gen::elementOf(alphabet));
  });
}

}  // namespace

TEST_CASE("REG-1 is_valid_name: 1-64 characters of [A-Za-z0-9_-]", "[validation][REG-1]") {
  const auto [name, valid] = GENERATE(table<std::string, bool>({
      {"a", true},
      {"Z", true},
      {"0", true},
      {"_", true},
      {"-", true},
      {"read_form-field_2", true},
      {std::string(64, 'x'), true},
      {std::string(65, 'x'), false},
      {"", false},
      {"a b", false},
      {"a.b", false},
      {"a/b", false},
      {"a:b", false},
      {"tool!", false},
      {"a\tb", false},
      {std::string("a\0b", 3), false},
      {"na\xC3\xAFve", false},
      {japanese, false},
  }));
  CAPTURE(name);
  CHECK(is_valid_name(name) == valid);
}

TEST_CASE("REG-2 count_code_points counts Unicode code points of strict UTF-8",
          "[validation][REG-2]") {
  SECTION("REG-2 valid UTF-8 is counted by code point, not by byte") {
    const auto [text, count] = GENERATE_COPY(table<std::string, std::size_t>({
        {"", 0},
        {"abc", 3},
        {japanese, 1},
        {japanese + japanese + "a", 3},
        {emoji, 1},
        {"\xC2\x80", 1},          // U+0080, the smallest two-byte form
        {"\xEF\xBF\xBF", 1},      // U+FFFF
        {"\xF4\x8F\xBF\xBF", 1},  // U+10FFFF, the largest code point
        {std::string(1, '\0'), 1},
    }));
    CAPTURE(text);
    CHECK(count_code_points(text) == count);
  }
  SECTION("REG-2 invalid UTF-8 has no count") {
    const auto text =
        GENERATE(as<std::string>{}, "\x80", "\xFF", "\xC0\x80", "\xC1\xBF", "\xE0\x80\x80",
                 "\xED\xA0\x80", "\xF0\x80\x80\x80", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80",
                 "\xE6\x97", "a\xE6", "\xC3\x28");
    CAPTURE(text);
    CHECK_FALSE(count_code_points(text).has_value());
  }
  SECTION("REG-2 validity agrees with nlohmann's UTF-8 check") {
    rc::prop("count_code_points accepts exactly what json::dump accepts", [] {
      // Why: bias towards the bytes that matter for UTF-8 structure.
      const auto bytes = *rc::gen::container<std::string>(rc::gen::oneOf(
          rc::gen::arbitrary<char>(),
          rc::gen::map(rc::gen::inRange(0x80, 0x100), [](int b) { return static_cast<char>(b); })));
      bool dump_accepts = true;
      try {
        (void)json(bytes).dump();
      } catch (const json::type_error&) {
        dump_accepts = false;
      }
      RC_ASSERT(count_code_points(bytes).has_value() == dump_accepts);
    });
  }
  SECTION("REG-2 an encoded sequence of code points counts as its length") {
    rc::prop("count equals the number of encoded code points", [] {
      const auto points = *rc::gen::container<std::vector<std::uint32_t>>(
          rc::gen::oneOf(rc::gen::inRange<std::uint32_t>(0, 0xD800),
                         rc::gen::inRange<std::uint32_t>(0xE000, 0x110000)));
      std::string text;
      for (const auto cp : points) {
        if (cp < 0x80) {
          text += static_cast<char>(cp);
        } else if (cp < 0x800) {
          text += static_cast<char>(0xC0 | (cp >> 6));
          text += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
          text += static_cast<char>(0xE0 | (cp >> 12));
          text += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          text += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
          text += static_cast<char>(0xF0 | (cp >> 18));
          text += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
          text += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          text += static_cast<char>(0x80 | (cp & 0x3F));
        }
      }
      RC_ASSERT(count_code_points(text) == std::optional<std::size_t>(points.size()));
    });
  }
}

TEST_CASE("REG-1 parse_register_request", "[validation][REG-1]") {
  SECTION("REG-1 a complete registration is parsed") {
    const auto parsed = parse_register_request(registration({tool("read_form"), tool("pick")}));
    REQUIRE(parsed.ok());
    CHECK(parsed->name == "app");
    CHECK(parsed->lifetime == lifetime{lifetime::kind::never, 0});
    REQUIRE(parsed->tools.size() == 2);
    CHECK(parsed->tools[0] == tool_spec{"read_form",
                                        "does a thing",
                                        {{"type", "object"}, {"properties", json::object()}}});
    CHECK(parsed->tools[1].name == "pick");
  }
  SECTION("REG-1 tools may be omitted: an empty list") {
    auto body = registration();
    body.erase("tools");
    const auto parsed = parse_register_request(body);
    REQUIRE(parsed.ok());
    CHECK(parsed->tools.empty());
  }
  SECTION("REG-1 unknown keys are ignored, in the body and in a tool") {
    auto with_extra = tool("t");
    with_extra["icon"] = "wrench";
    auto body = registration(json::array({with_extra}));
    body["colour"] = 3;
    const auto parsed = parse_register_request(body);
    REQUIRE(parsed.ok());
    CHECK(parsed->tools.at(0) ==
          tool_spec{"t", "does a thing", {{"type", "object"}, {"properties", json::object()}}});
  }
  SECTION("REG-1 name and lifetime are required") {
    auto no_name = registration();
    no_name.erase("name");
    CHECK(rejection(parse_register_request(no_name)) == "name: missing (REG-1)");
    auto no_lifetime = registration();
    no_lifetime.erase("lifetime");
    CHECK(rejection(parse_register_request(no_lifetime)) == "lifetime: missing (REG-1)");
  }
  SECTION("REG-1 tools, when present, must be an array") {
    const auto value = GENERATE(json::object(), json("t"), json(nullptr), json(1));
    auto body = registration();
    body["tools"] = value;
    CHECK(rejection(parse_register_request(body)) == "tools: must be an array (REG-1)");
  }
  SECTION("REG-1 an invalid tool rejects the registration, naming its index") {
    const auto parsed = parse_register_request(registration({tool("a"), tool("b"), tool("c d")}));
    CHECK(rejection(parsed) == "tools[2].name: " + name_rule_reg1);
  }
  SECTION("C-2 a body that is not a JSON object is rejected") {
    const auto body = GENERATE(json::array(), json("x"), json(1), json(nullptr), json(true));
    CAPTURE(body);
    CHECK(rejection(parse_register_request(body)) == "body: must be a JSON object");
  }
}

TEST_CASE("REG-4 the client name follows the tool-name rule", "[validation][REG-4]") {
  SECTION("REG-4 names of 1 and 64 characters are accepted") {
    const auto name = GENERATE(std::string("a"), std::string(64, 'n'), std::string("web-tab_1"));
    auto body = registration();
    body["name"] = name;
    const auto parsed = parse_register_request(body);
    REQUIRE(parsed.ok());
    CHECK(parsed->name == name);
  }
  SECTION("REG-4 empty, 65-character and bad-character names are rejected") {
    const auto name = GENERATE(std::string(""), std::string(65, 'n'), std::string("my app"),
                               std::string("app.v2"), std::string("caf\xC3\xA9"));
    CAPTURE(name);
    auto body = registration();
    body["name"] = name;
    CHECK(rejection(parse_register_request(body)) ==
          "name: must be 1-64 characters of [A-Za-z0-9_-] (REG-4)");
  }
  SECTION("REG-4 a name that is not a string is rejected") {
    const auto name = GENERATE(json(5), json(nullptr), json::array({"a"}), json(true));
    auto body = registration();
    body["name"] = name;
    CHECK(rejection(parse_register_request(body)) == "name: must be a string (REG-4)");
  }
}

TEST_CASE("REG-8 lifetime", "[validation][REG-8]") {
  const auto with_lifetime = [](json life) {
    auto body = registration();
    body["lifetime"] = std::move(life);
    return parse_register_request(body);
  };
  const auto ttl = [](json seconds) {
    return json{{"type", "ttl"}, {"data", {{"seconds", std::move(seconds)}}}};
  };
  const std::string seconds_message =
      "lifetime.data.seconds: must be an integer from 1 to 86400 (REG-8)";

  SECTION("REG-8 never is parsed, extra members ignored") {
    const auto parsed = with_lifetime({{"type", "never"}, {"data", {{"seconds", 0}}}});
    REQUIRE(parsed.ok());
    CHECK(parsed->lifetime == lifetime{lifetime::kind::never, 0});
  }
  SECTION("REG-8 ttl seconds 1 and 86400 are accepted") {
    const auto seconds = GENERATE(as<std::int64_t>{}, 1, 2, 30, 86399, 86400);
    const auto parsed = with_lifetime(ttl(seconds));
    REQUIRE(parsed.ok());
    CHECK(parsed->lifetime == lifetime{lifetime::kind::ttl, seconds});
  }
  SECTION("REG-8 ttl seconds outside 1..86400 or not an integer are rejected") {
    const auto seconds = GENERATE(json(0), json(-1), json(86401), json(1.5), json(5.0), json("5"),
                                  json(true), json(false), json(nullptr), json::array({5}),
                                  json::object(), json(std::numeric_limits<std::uint64_t>::max()),
                                  json(std::numeric_limits<std::int64_t>::min()));
    CAPTURE(seconds);
    CHECK(rejection(with_lifetime(ttl(seconds))) == seconds_message);
  }
  SECTION("REG-8 ttl without seconds is rejected") {
    CHECK(rejection(with_lifetime({{"type", "ttl"}, {"data", json::object()}})) == seconds_message);
  }
  SECTION("REG-8 ttl without a data object is rejected") {
    CHECK(rejection(with_lifetime({{"type", "ttl"}})) ==
          "lifetime.data: must be an object (REG-8)");
    CHECK(rejection(with_lifetime({{"type", "ttl"}, {"data", 60}})) ==
          "lifetime.data: must be an object (REG-8)");
    CHECK(rejection(with_lifetime({{"type", "ttl"}, {"seconds", 60}})) ==
          "lifetime.data: must be an object (REG-8)");
  }
  SECTION("REG-8 an unknown or missing lifetime type is rejected") {
    const auto life = GENERATE(json{{"type", "forever"}}, json{{"type", "TTL"}}, json{{"type", 1}},
                               json::object());
    CAPTURE(life);
    CHECK(rejection(with_lifetime(life)) == "lifetime.type: must be \"never\" or \"ttl\" (REG-8)");
  }
  SECTION("REG-8 a lifetime that is not an object is rejected") {
    const auto life = GENERATE(json("never"), json(nullptr), json(60));
    CHECK(rejection(with_lifetime(life)) == "lifetime: must be an object (REG-8)");
  }
  SECTION("REG-8 any integer is accepted exactly when it is within 1..86400") {
    rc::prop("ttl acceptance matches the range", [&] {
      const auto seconds = *rc::gen::oneOf(rc::gen::arbitrary<std::int64_t>(),
                                           rc::gen::inRange<std::int64_t>(-5, 86410));
      const auto parsed = with_lifetime(ttl(seconds));
      RC_ASSERT(parsed.ok() == (seconds >= 1 && seconds <= 86400));
      if (parsed.ok()) RC_ASSERT(parsed->lifetime.seconds == seconds);
    });
  }
}

TEST_CASE("REG-1 tool list validation", "[validation][REG-1]") {
  const auto one = [](json item) {
    return parse_tool_list(json::array({std::move(item)}), "tools");
  };

  SECTION("REG-1 tool names of 1 and 64 characters are accepted") {
    const auto name = GENERATE(std::string("x"), std::string(64, 't'), std::string("A-z_09"));
    const auto parsed = one(tool(name));
    REQUIRE(parsed.ok());
    CHECK(parsed->at(0).name == name);
  }
  SECTION("REG-1 a tool name of 65 characters, empty or with a bad character is rejected") {
    const auto name = GENERATE(std::string(65, 't'), std::string(""), std::string("read form"),
                               std::string("read.form"), std::string("read/form"),
                               std::string("tool!"), std::string("na\xC3\xAFve"), japanese);
    CAPTURE(name);
    CHECK(rejection(one(tool(name))) == "tools[0].name: " + name_rule_reg1);
  }
  SECTION("REG-1 the field path names the list and the index") {
    const auto list = json::array({tool("a"), tool("b"), tool("c"), tool(std::string(65, 'x'))});
    CHECK(rejection(parse_tool_list(list, "tools")) == "tools[3].name: " + name_rule_reg1);
    CHECK(rejection(parse_tool_list(list, "next_tools")) ==
          "next_tools[3].name: " + name_rule_reg1);
  }
  SECTION("REG-1 name, description and parameters are all required") {
    const auto member = GENERATE(as<std::string>{}, "name", "description", "parameters");
    auto item = tool("t");
    item.erase(member);
    CHECK(rejection(one(item)) == "tools[0]." + member + ": missing (REG-1)");
  }
  SECTION("REG-1 a tool that is not an object is rejected") {
    const auto item = GENERATE(json("t"), json(nullptr), json::array({"t"}), json(3));
    CHECK(rejection(one(item)) == "tools[0]: must be an object (REG-1)");
  }
  SECTION("REG-1 name and description must be strings") {
    const auto member = GENERATE(as<std::string>{}, "name", "description");
    const auto value = GENERATE(json(1), json(nullptr), json::object(), json::array());
    auto item = tool("t");
    item[member] = value;
    CHECK(rejection(one(item)) == "tools[0]." + member + ": must be a string (REG-1)");
  }
  SECTION("REG-1 parameters must be a JSON object") {
    const auto value = GENERATE(json("object"), json(nullptr), json::array(), json(true));
    auto item = tool("t");
    item["parameters"] = value;
    CHECK(rejection(one(item)) == "tools[0].parameters: must be a JSON object (REG-1)");
  }
  SECTION("REG-1 parameters.type, if present, must be \"object\"") {
    const auto type =
        GENERATE(json("array"), json("string"), json(nullptr), json(1), json::array({"object"}));
    auto item = tool("t");
    item["parameters"] = {{"type", type}};
    CHECK(rejection(one(item)) == "tools[0].parameters.type: must be \"object\" (REG-1)");
  }
  SECTION("REG-1 parameters without a type, or empty, are accepted as given") {
    const auto parameters =
        GENERATE(json::object(), json{{"properties", {{"q", {{"type", "string"}}}}}});
    auto item = tool("t");
    item["parameters"] = parameters;
    const auto parsed = one(item);
    REQUIRE(parsed.ok());
    CHECK(parsed->at(0).parameters == parameters);
  }
  SECTION("REG-1 an empty list is accepted") {
    const auto parsed = parse_tool_list(json::array(), "tools");
    REQUIRE(parsed.ok());
    CHECK(parsed->empty());
  }
  SECTION("REG-1 a list that is not an array is rejected") {
    CHECK(rejection(parse_tool_list(json::object(), "tools")) == "tools: must be an array (REG-1)");
  }
  SECTION("REG-1 the declared order is kept") {
    rc::prop("parsed names equal declared names", [] {
      const auto order = *rc::gen::unique<std::vector<std::string>>(valid_name());
      json list = json::array();
      for (const auto& name : order)
        list.push_back(tool(name));
      const auto parsed = parse_tool_list(list, "tools");
      RC_ASSERT(parsed.ok());
      std::vector<std::string> parsed_names;
      for (const auto& spec : *parsed)
        parsed_names.push_back(spec.name);
      RC_ASSERT(parsed_names == order);
    });
  }
}

TEST_CASE("REG-2 descriptions are limited to 4096 code points", "[validation][REG-2]") {
  const auto one = [](const std::string& description) {
    return parse_tool_list(json::array({tool("t", description)}), "tools");
  };
  const std::string too_long = "tools[0].description: must be at most 4096 characters (REG-2)";

  SECTION("REG-2 4096 Japanese characters are accepted") {
    const auto description = repeat(japanese, 4096);
    REQUIRE(description.size() == 3 * 4096);
    const auto parsed = one(description);
    REQUIRE(parsed.ok());
    CHECK(parsed->at(0).description == description);
  }
  SECTION("REG-2 4096 ASCII characters are accepted") {
    CHECK(one(std::string(4096, 'a')).ok());
  }
  SECTION("REG-2 4096 four-byte characters are accepted") {
    CHECK(one(repeat(emoji, 4096)).ok());
  }
  SECTION("REG-2 an empty description is accepted") {
    CHECK(one("").ok());
  }
  SECTION("REG-2 4097 ASCII characters are rejected") {
    CHECK(rejection(one(std::string(4097, 'a'))) == too_long);
  }
  SECTION("REG-2 4097 Japanese characters are rejected") {
    CHECK(rejection(one(repeat(japanese, 4097))) == too_long);
  }
  SECTION("REG-2 4095 ASCII plus one Japanese character is exactly 4096 and accepted") {
    CHECK(one(std::string(4095, 'a') + japanese).ok());
  }
  SECTION("REG-2 a description that is not valid UTF-8 is rejected") {
    CHECK(rejection(one("bad \xFF byte")) == "tools[0].description: must be valid UTF-8 (REG-2)");
  }
}

TEST_CASE("REG-3 duplicate tool names in one list are rejected", "[validation][REG-3]") {
  SECTION("REG-3 the second occurrence is named") {
    const auto list = json::array({tool("a"), tool("b"), tool("c"), tool("b")});
    CHECK(rejection(parse_tool_list(list, "tools")) ==
          "tools: duplicate tool name 'b' at tools[3] (REG-3)");
  }
  SECTION("REG-3 the duplicate is reported even when the descriptions differ") {
    const auto list = json::array({tool("x", "one"), tool("x", "two")});
    CHECK(rejection(parse_tool_list(list, "tools")) ==
          "tools: duplicate tool name 'x' at tools[1] (REG-3)");
  }
  SECTION("REG-3 names differing only in case are distinct") {
    const auto parsed = parse_tool_list(json::array({tool("x"), tool("X")}), "tools");
    REQUIRE(parsed.ok());
    CHECK(parsed->size() == 2);
  }
  SECTION("REG-3 applies at registration") {
    CHECK(rejection(parse_register_request(registration({tool("a"), tool("a")}))) ==
          "tools: duplicate tool name 'a' at tools[1] (REG-3)");
  }
}

TEST_CASE("TOOLS-2 PUT tools validates like registration", "[validation][TOOLS-2]") {
  SECTION("TOOLS-2 a valid list is parsed in order") {
    const auto parsed = parse_put_tools_request({{"tools", {tool("b"), tool("a")}}});
    REQUIRE(parsed.ok());
    REQUIRE(parsed->tools.size() == 2);
    CHECK(parsed->tools[0].name == "b");
    CHECK(parsed->tools[1].name == "a");
  }
  SECTION("TOOLS-2 an empty list is accepted: every tool withdrawn") {
    const auto parsed = parse_put_tools_request({{"tools", json::array()}});
    REQUIRE(parsed.ok());
    CHECK(parsed->tools.empty());
  }
  SECTION("TOOLS-2 tools is required and must be an array") {
    CHECK(rejection(parse_put_tools_request(json::object())) == "tools: missing (TOOLS-2)");
    const auto value = GENERATE(json(nullptr), json::object(), json("a"));
    CHECK(rejection(parse_put_tools_request({{"tools", value}})) ==
          "tools: must be an array (TOOLS-2)");
  }
  SECTION("TOOLS-2 the REG-1..3 rules apply") {
    CHECK(rejection(parse_put_tools_request({{"tools", {tool("ok"), tool("not ok")}}})) ==
          "tools[1].name: " + name_rule_reg1);
    CHECK(rejection(parse_put_tools_request(
              {{"tools", json::array({tool("t", std::string(4097, 'd'))})}})) ==
          "tools[0].description: must be at most 4096 characters (REG-2)");
    CHECK(rejection(parse_put_tools_request({{"tools", {tool("t"), tool("t")}}})) ==
          "tools: duplicate tool name 't' at tools[1] (REG-3)");
  }
  SECTION("C-2 a body that is not a JSON object is rejected") {
    CHECK(rejection(parse_put_tools_request(json::array({tool("t")}))) ==
          "body: must be a JSON object");
  }
}
