// The SSE reader, sans-I/O: how bytes become blocks and blocks become events (SES-3).
#include <catch2/catch.hpp>

#include "toolwire/conformance/sse_parser.hpp"

using namespace toolwire::conformance;

namespace {

std::vector<sse_block> parse_all(std::string_view bytes) {
  sse_parser parser;
  std::vector<sse_block> blocks;
  REQUIRE_FALSE(parser.feed(bytes, blocks));
  return blocks;
}

}  // namespace

TEST_CASE("SES-3 frames become blocks", "[remote][sse]") {
  SECTION("id, event and data, one block per blank line") {
    auto blocks = parse_all(
        "id: 1\nevent: turn_started\ndata: {\"turn_id\":\"t1\"}\n\n"
        "id: 2\nevent: turn_completed\ndata: {}\n\n");
    REQUIRE(blocks.size() == 2);
    CHECK(blocks[0] == sse_block{"1", "turn_started", R"({"turn_id":"t1"})", true});
    CHECK(blocks[1].id == "2");
  }
  SECTION("comments are ignored, also the keep-alive") {
    auto blocks = parse_all(": keep-alive\n\n:another\nid: 3\nevent: e\ndata: {}\n\n");
    REQUIRE(blocks.size() == 1);
    CHECK(blocks[0].id == "3");
  }
  SECTION("CRLF and CR end lines as LF does") {
    auto blocks = parse_all("id: 4\r\nevent: e\r\ndata: {}\r\n\r\nid: 5\revent: f\rdata: {}\r\r");
    REQUIRE(blocks.size() == 2);
    CHECK(blocks[0].event == "e");
    CHECK(blocks[1].event == "f");
  }
  SECTION("several data lines are joined by newlines; no space after the colon is fine") {
    auto blocks = parse_all("event:e\ndata:{\"a\":\ndata: 1}\n\n");
    REQUIRE(blocks.size() == 1);
    CHECK(blocks[0].data == "{\"a\":\n1}");
  }
  SECTION("bytes split anywhere, even inside a CRLF, give the same blocks") {
    const std::string bytes = "id: 7\r\nevent: e\r\ndata: {}\r\n\r\n";
    for (std::size_t cut = 0; cut <= bytes.size(); ++cut) {
      CAPTURE(cut);
      sse_parser parser;
      std::vector<sse_block> blocks;
      REQUIRE_FALSE(parser.feed(std::string_view(bytes).substr(0, cut), blocks));
      REQUIRE_FALSE(parser.feed(std::string_view(bytes).substr(cut), blocks));
      REQUIRE(blocks.size() == 1);
      CHECK(blocks[0] == sse_block{"7", "e", "{}", true});
    }
  }
  SECTION("a block is only dispatched by its blank line") {
    CHECK(parse_all("id: 8\nevent: e\ndata: {}\n").empty());
  }
  SECTION("a line over the bound is an error") {
    sse_parser parser(16);
    std::vector<sse_block> blocks;
    auto error = parser.feed(std::string(17, 'x'), blocks);
    REQUIRE(error);
    CHECK(*error == "an SSE line longer than 16 bytes");
  }
}

TEST_CASE("SES-3 blocks become events, gaps, or reasons they are malformed", "[remote][sse]") {
  SECTION("an event") {
    auto item = read_block({"12", "client_registered", R"({"client_id":"c1"})", true}, "s1");
    auto* event = std::get_if<toolwire::reference_server::session_event>(&item);
    REQUIRE(event != nullptr);
    CHECK(event->session_id == "s1");
    CHECK(event->seq == 12);
    CHECK(event->type == "client_registered");
    CHECK(event->data == json{{"client_id", "c1"}});
  }
  SECTION("a stream_gap, which needs no id") {
    auto item = read_block({std::nullopt, "stream_gap", R"({"oldest_seq":40})", true}, "s1");
    REQUIRE(std::holds_alternative<stream_gap>(item));
    CHECK(std::get<stream_gap>(item).oldest_seq == 40);
  }
  SECTION("malformed") {
    using row = std::tuple<sse_block, std::string>;
    auto [block, reason] = GENERATE(table<sse_block, std::string>({
        row{{"x", "e", "{}", true}, "e event: the id is not a non-negative integer: x"},
        row{{std::nullopt, "e", "{}", true},
            "e event: the id is not a non-negative integer: (none)"},
        row{{"1", "e", "[1]", true}, "e event: the data is not a JSON object: [1]"},
        row{{"1", "", "{}", true}, "an event without an `event:` line: {}"},
        row{{std::nullopt, "stream_gap", "{}", true},
            "a stream_gap whose data has no non-negative oldest_seq: {}"},
    }));
    CAPTURE(block.data);
    auto item = read_block(block, "s1");
    REQUIRE(std::holds_alternative<std::string>(item));
    CHECK(std::get<std::string>(item) == reason);
  }
}
