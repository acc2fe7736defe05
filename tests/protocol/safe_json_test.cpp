// Outside JSON: bounded parsing (UTF-8, depth, numbers) and serialization that never throws.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "protocol_test_support.hpp"
#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/protocol/validation.hpp"

using namespace toolwire::protocol;
using toolwire::protocol::testing::rejection;

namespace {

std::string nested(std::size_t depth, char open = '[', char close = ']') {
  return std::string(depth, open) + std::string(depth, close);
}

//! Text of every kind a JSON string may hold: plain ASCII, quotes and backslashes,
//! control characters and DEL, other letters in UTF-8, and bytes that are not UTF-8.
rc::Gen<std::string> any_text() {
  return rc::gen::map(rc::gen::container<std::vector<std::string>>(
                          rc::gen::elementOf(std::vector<std::string>{"a",
                                                                      "Z",
                                                                      "0",
                                                                      " ",
                                                                      "_",
                                                                      "\"",
                                                                      "\\",
                                                                      "/",
                                                                      "\n",
                                                                      "\t",
                                                                      std::string(1, '\0'),
                                                                      "\x01",
                                                                      "\x1f",
                                                                      "\x7f",
                                                                      "\xc3\xa9",
                                                                      "\xe2\x82\xac",
                                                                      "\xf0\x9f\x98\x80",
                                                                      "\xff",
                                                                      "\xc3",
                                                                      "\xed\xa0\x80"})),
                      [](const std::vector<std::string>& pieces) {
                        std::string text;
                        for (const auto& piece : pieces)
                          text += piece;
                        return text;
                      });
}

//! A JSON value that holds no other.
rc::Gen<json> any_scalar() {
  return rc::gen::weightedOneOf<json>({
      {1, rc::gen::just(json(nullptr))},
      {1, rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return json(b); })},
      {2, rc::gen::map(rc::gen::arbitrary<std::int64_t>(), [](std::int64_t n) { return json(n); })},
      {1,
       rc::gen::map(rc::gen::arbitrary<std::uint64_t>(), [](std::uint64_t n) { return json(n); })},
      {1, rc::gen::map(rc::gen::arbitrary<double>(), [](double d) { return json(d); })},
      {1, rc::gen::just(json(std::numeric_limits<std::int64_t>::min()))},
      {3, rc::gen::map(any_text(), [](std::string text) { return json(std::move(text)); })},
  });
}

//! A JSON value of any type, `depth` levels of arrays and objects at most.
rc::Gen<json> any_json(int depth) {
  if (depth == 0) return any_scalar();
  return rc::gen::weightedOneOf<json>({
      {4, any_scalar()},
      {2, rc::gen::map(rc::gen::container<std::vector<json>>(any_json(depth - 1)),
                       [](std::vector<json> items) { return json(std::move(items)); })},
      {2, rc::gen::map(
              rc::gen::container<std::map<std::string, json>>(any_text(), any_json(depth - 1)),
              [](std::map<std::string, json> members) { return json(std::move(members)); })},
  });
}

}  // namespace

TEST_CASE("C-1 invalid UTF-8 in a body is 400 and the message carries no raw byte",
          "[safe_json][C-1]") {
  const auto [name, body] = GENERATE(table<std::string, std::string>({
      {"lone 0xFF", "{\"content\": \"a\xFF\"}"},
      {"C3 28 (bad continuation)", "{\"content\": \"\xC3\x28\"}"},
      {"overlong C0 AF", "{\"content\": \"\xC0\xAF\"}"},
      {"surrogate ED A0 80", "{\"content\": \"\xED\xA0\x80\"}"},
      {"above U+10FFFF F4 90 80 80", "{\"content\": \"\xF4\x90\x80\x80\"}"},
      {"0xFE", "{\"content\": \"\xFE\"}"},
      {"truncated E2 82", "{\"content\": \"\xE2\x82\"}"},
      {"outside a string", "{\"a\": 1}\xFF"},
  }));
  CAPTURE(name);
  const auto parsed = parse_json_body(body);
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().code == error_code::invalid_request);
  CHECK(parsed.error().message.starts_with("body: not valid UTF-8 (byte \\x"));
  CHECK(first_invalid_utf8(parsed.error().message) == std::string_view::npos);
  // The C-2 body can be written out: this is what crashed the server (type_error.316).
  CHECK_NOTHROW(to_json(parsed.error()).dump());
}

TEST_CASE("a lone surrogate escape is malformed JSON, not a string", "[safe_json][C-1]") {
  const auto parsed = parse_json_body(R"({"content": "\ud800"})");
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().message.starts_with("body: malformed JSON: "));
}

TEST_CASE("nesting is bounded at max_json_depth", "[safe_json]") {
  SECTION("128 levels parse") {
    const auto parsed = parse_json_body(nested(max_json_depth));
    REQUIRE(parsed);
    CHECK(parsed->is_array());
  }
  SECTION("129 levels, and deep bodies that crashed the server, are 400") {
    const auto depth = GENERATE(max_json_depth + 1, std::size_t{70'000}, std::size_t{200'000});
    CAPTURE(depth);
    const auto parsed = parse_json_body(nested(depth, '{', '}'));
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().message == "body: nested deeper than 128 levels");
    CHECK(rejection(parse_json_body(nested(depth))) == "body: nested deeper than 128 levels");
  }
  SECTION("brackets inside strings do not count") {
    const std::string text = "{\"a\": \"" + std::string(1000, '[') + "\\\"{\"}";
    CHECK(json_nesting_depth(text) == 1);
    CHECK(parse_json_body(text));
  }
  SECTION("the count stops once over the limit") {
    CHECK(json_nesting_depth(nested(1'000'000), 10) == 11);
  }
}

TEST_CASE("numbers beyond a double are 400, not an exception", "[safe_json][C-2]") {
  const auto text = GENERATE(as<std::string>{}, R"({"ms": 1e400})", R"({"assistant_id": -1e999})",
                             R"({"content": 1e400})", "[1E+99999]");
  CAPTURE(text);
  CHECK(rejection(parse_json_body(text)) == "body: a number is out of range");
}

TEST_CASE("safe_dump replaces invalid UTF-8 instead of throwing", "[safe_json]") {
  const json value = {{"text", std::string("a\xFF"
                                           "b")}};
  CHECK_THROWS(value.dump());
  CHECK(safe_dump(value) ==
        "{\"text\":\"a\xEF\xBF\xBD"
        "b\"}");
}

TEST_CASE("safe_dump writes what json::dump writes, for every kind of value", "[safe_json]") {
  const auto nlohmann_dump = [](const json& value) {
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
  };
  SECTION("examples") {
    for (const json& value :
         {json(nullptr), json(true), json(0), json(-1), json(1700000060000), json(0.5), json(1e300),
          json(std::numeric_limits<std::uint64_t>::max()), json(""), json::array(), json::object(),
          json{{"expires_at_ms", 1700000060000}}, json{{"b", {1, "two", nullptr}}, {"a", false}},
          json{{"caf\xc3\xa9", "\x7f\x01\xff"}}, json{{"", json::object()}}}) {
      INFO(nlohmann_dump(value));
      CHECK(safe_dump(value) == nlohmann_dump(value));
      std::string appended = "x";
      append_json(appended, value);
      CHECK(appended == "x" + nlohmann_dump(value));
    }
  }
  rc::prop("any value", [&] {
    const json value = *any_json(3);
    RC_ASSERT(safe_dump(value) == nlohmann_dump(value));
  });
  SECTION("an indent is json::dump's own") {
    const json value = {{"a", {1, 2}}, {"b", "c\xff"}};
    CHECK(safe_dump(value, 2) == value.dump(2, ' ', false, json::error_handler_t::replace));
  }
}

TEST_CASE("append_json_string writes a string as safe_dump does", "[safe_json]") {
  for (const std::string& text :
       {std::string(""), std::string("plain_name-1"), std::string("say \"hi\""),
        std::string("back\\slash"), std::string("line\nbreak\r\t\b\f"), std::string("\x01\x1f\x7f"),
        std::string("caf\xc3\xa9 \xf0\x9f\x98\x80"), std::string("bad \xff\xc3 bytes"),
        std::string("nul\0inside", 10)}) {
    std::string out = "x";
    append_json_string(out, text);
    CHECK(out == "x" + safe_dump(json(text)));
  }
}

TEST_CASE("first_invalid_utf8 finds the first bad byte wherever it falls", "[safe_json]") {
  // Long ASCII runs are skipped a word at a time; a bad byte or a sequence at any offset
  // of that word must still be seen, and a valid one that straddles two words accepted.
  for (std::size_t at = 0; at < 24; ++at) {
    std::string text(24, 'a');
    text[at] = '\xFF';
    CHECK(first_invalid_utf8(text) == at);
    text[at] = '\xC3';  // a lead byte whose continuation is missing
    CHECK(first_invalid_utf8(text) == at);
    if (at + 1 < text.size()) {
      text[at + 1] = '\xA9';  // é, whole
      CHECK(first_invalid_utf8(text) == std::string_view::npos);
    }
  }
  CHECK(first_invalid_utf8(std::string(1000, 'x') + "\xF0\x9F\x98\x80") == std::string_view::npos);
  CHECK(first_invalid_utf8(std::string(1000, 'x') + "\xF0\x9F\x98") == 1000);
  CHECK(first_invalid_utf8("") == std::string_view::npos);
}

TEST_CASE("escape_bytes writes invalid and control bytes as \\xNN", "[safe_json]") {
  CHECK(escape_bytes("plain é") == "plain é");
  CHECK(escape_bytes(std::string("a\xFF\x01\xC0\xAF", 5)) == "a\\xFF\\x01\\xC0\\xAF");
  CHECK(first_invalid_utf8(escape_bytes("\xED\xA0\x80")) == std::string_view::npos);
}
