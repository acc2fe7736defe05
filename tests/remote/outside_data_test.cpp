// Outside data (issue 10, items 1 and 2): UTF-8 checked, nesting bounded, serialisation safe.
#include <catch2/catch.hpp>

#include "toolwire/conformance/http_client.hpp"
#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/conformance/sse_parser.hpp"
#include "toolwire/conformance/target_profile.hpp"

using namespace toolwire::conformance;

TEST_CASE("Invalid UTF-8 is found and escaped", "[remote][utf8]") {
  // The variants of issue 10: 0xFF, C3 28, overlong C0 AF, surrogate ED A0 80,
  // F4 90 80 80 (above U+10FFFF), 0xFE.
  const auto [bytes, offset] = GENERATE(table<std::string, std::size_t>({
      {"ab\xFF", 2},
      {"\xC3\x28", 0},
      {"x\xC0\xAF", 1},
      {"\xED\xA0\x80", 0},
      {"ok \xF4\x90\x80\x80", 3},
      {"\xFE", 0},
      {"cut \xE2\x82", 4},
  }));
  CAPTURE(escape_invalid_utf8(bytes));
  CHECK(first_invalid_utf8(bytes) == offset);
  const auto escaped = escape_invalid_utf8(bytes);
  CHECK_FALSE(first_invalid_utf8(escaped));
  CHECK(escaped.find("\\x") != std::string::npos);
  const json value = json::parse(json(escaped).dump());  // strict dump: no throw
  CHECK(value.get<std::string>() == escaped);
}

TEST_CASE("Well-formed UTF-8 passes unchanged", "[remote][utf8]") {
  const std::string text =
      "plain, \xC3\xA9t\xC3\xA9, \xE2\x82\xAC, \xF0\x9F\x98\x80, \xF4\x8F\xBF\xBF";
  CHECK_FALSE(first_invalid_utf8(text));
  CHECK(escape_invalid_utf8(text) == text);
}

TEST_CASE("JSON nesting is bounded at 128", "[remote][depth]") {
  const auto nested = [](std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
  };
  CHECK_FALSE(nested_deeper_than(nested(128)));
  CHECK(nested_deeper_than(nested(129)));
  CHECK(nested_deeper_than(nested(200'000)));                             // one pass, no recursion
  CHECK_FALSE(nested_deeper_than("\"" + std::string(1000, '[') + "\""));  // inside a string
  CHECK(std::holds_alternative<json>(parse_outside_json(nested(128))));
  const auto deep = parse_outside_json(nested(129));
  REQUIRE(std::holds_alternative<std::string>(deep));
  CHECK(std::get<std::string>(deep) == "JSON nested deeper than 128 levels");
  const auto bad = parse_outside_json("{\"a\":\"\xFF\"}");
  REQUIRE(std::holds_alternative<std::string>(bad));
  CHECK(std::get<std::string>(bad) == "not valid UTF-8 (byte 0xFF at offset 6)");
}

TEST_CASE("A target's body is checked before it is believed", "[remote][utf8]") {
  CHECK(unreadable_body("{\"id\":\"s\xFF\"}")
            .value()
            .starts_with("the answer's body is not valid UTF-8 (byte \\xFF at offset 8)"));
  CHECK(unreadable_body(std::string(500, '[') + std::string(500, ']'))
            .value()
            .starts_with("the answer's body nests JSON deeper than 128 levels"));
  CHECK_FALSE(unreadable_body("{\"id\":\"s1\"}"));
  // Not JSON at all: kept as text, escaped.
  CHECK(response_body("oops \xFF") == json("oops \\xFF"));
}

TEST_CASE("safe_dump never throws", "[remote][utf8]") {
  const json value = {{"raw", std::string("a\xFF")}};
  CHECK_THROWS(value.dump());
  CHECK(safe_dump(value) == "{\"raw\":\"a\xEF\xBF\xBD\"}");
}

TEST_CASE("SSE data is bounded and escaped", "[remote][sse]") {
  SECTION("a block's data lines together are bounded") {
    sse_parser parser(1024, 4096);
    std::vector<sse_block> blocks;
    std::string many;
    for (int i = 0; i < 100; ++i)
      many += "data: " + std::string(100, 'x') + "\n";
    const auto error = parser.feed(many, blocks);
    REQUIRE(error);
    CHECK(*error == "an SSE block whose data is longer than 4096 bytes");
  }
  SECTION("data that is not UTF-8 or too deep is malformed, quoted escaped") {
    sse_block block{std::string("1"), "turn_started", "{\"x\":\"\xC3\x28\"}", true};
    auto item = read_block(block, "s1");
    REQUIRE(std::holds_alternative<std::string>(item));
    const auto what = std::get<std::string>(item);
    CHECK(what.find("not valid UTF-8") != std::string::npos);
    CHECK_FALSE(first_invalid_utf8(what));
    block.data = std::string(200, '[') + std::string(200, ']');
    item = read_block(block, "s1");
    REQUIRE(std::holds_alternative<std::string>(item));
    CHECK(std::get<std::string>(item).find("deeper than 128") != std::string::npos);
  }
}

TEST_CASE("Profiles with invalid UTF-8 or deep nesting are refused", "[remote][profile]") {
  const auto bad = parse_profile("{\"name\": \"x\xFF\"}", "acme.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "acme.json:1: not valid UTF-8 (byte \\xFF)");
  const auto deep = parse_profile(
      "{\"overrides\": " + std::string(300, '[') + std::string(300, ']') + "}", "acme.json");
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.error().message == "acme.json: JSON nested deeper than 128 levels");
}
