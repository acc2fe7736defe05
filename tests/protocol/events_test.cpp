// SES-4 events: names, the data each type carries, and the tolerant reader of other
// implementations' data (C-6).
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "toolwire/protocol/events.hpp"

using namespace toolwire::protocol;

namespace {

//! One event of every type, with every field set to something other than its default, so
//! a field the codec drops shows up as a difference.
std::vector<event> one_of_each() {
  return {
      client_registered{"cli_1", "fs-2", "fs"},
      client_tools_updated{"cli_1", {"read", "write"}},
      client_unregistered{"cli_1", "fs", "expired"},
      turn_started{"turn_1"},
      client_tool_dispatched{"call_1", "cli_1", "read", json{{"path", "/a"}, {"n", {1, 2}}},
                             "turn_1"},
      client_tool_completed{"call_1", "cli_1", true},
      client_tool_failed{"call_2", "cli_1", "write", "client_expired"},
      turn_completed{"turn_1", "done"},
      turn_failed{"turn_2", "max_steps_exceeded"},
      stream_gap{42},
  };
}

//! The fields SES-4 lists for each type, in `event_type`'s order.
const std::vector<std::set<std::string>> ses4_fields = {
    {"client_id", "name", "requested_name"},
    {"client_id", "tools"},
    {"client_id", "name", "reason"},
    {"turn_id"},
    {"call_id", "client_id", "tool", "arguments", "turn_id"},
    {"call_id", "client_id", "is_error"},
    {"call_id", "client_id", "tool", "reason"},
    {"turn_id", "output"},
    {"turn_id", "reason"},
    {"oldest_seq"},
};

std::set<std::string> keys_of(const json& object) {
  std::set<std::string> keys;
  for (const auto& [key, value] : object.items())
    keys.insert(key);
  return keys;
}

//! What a reader of `type` gets from data whose every field is empty.
event empty_event(event_type type) {
  auto read = read_event(to_string(type), json::object());
  REQUIRE(read);
  return *read;
}

}  // namespace

TEST_CASE("SES-4 every event type has one distinct name, and parses back to itself",
          "[events][SES-4]") {
  std::set<std::string_view> names;
  for (const event_type type : all_event_types) {
    const auto name = to_string(type);
    CAPTURE(name);
    CHECK_FALSE(name.empty());
    CHECK(names.insert(name).second);
    CHECK(parse_event_type(name) == type);
    CHECK(is(name, type));
  }
  CHECK(names.size() == all_event_types.size());
  CHECK(to_string(event_type::client_tool_failed) == "client_tool_failed");
  CHECK(to_string(event_type::stream_gap) == "stream_gap");
}

TEST_CASE("SES-4 a name that is no event type parses to nothing", "[events][SES-4]") {
  for (const std::string name : {"", "turn_error", "Turn_Started", "turn_started ", "unknown"}) {
    CAPTURE(name);
    CHECK_FALSE(parse_event_type(name));
    CHECK_FALSE(read_event(name, json{{"turn_id", "t"}}));
  }
}

TEST_CASE("SES-4 every event type round-trips through to_json and read_event", "[events][SES-4]") {
  const auto events = one_of_each();
  REQUIRE(events.size() == all_event_types.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    const event& written = events[i];
    const event_type type = type_of(written);
    CAPTURE(to_string(type));
    CHECK(type == all_event_types[i]);
    const json data = to_json(written);
    CAPTURE(data.dump());
    CHECK(keys_of(data) == ses4_fields[i]);
    const auto read = read_event(to_string(type), data);
    REQUIRE(read);
    CHECK(*read == written);
    // Through text too, as an event crosses the wire (SES-3's data line).
    const auto reparsed = read_event(to_string(type), json::parse(data.dump()));
    REQUIRE(reparsed);
    CHECK(*reparsed == written);
  }
}

TEST_CASE("SES-4 the wire shapes of the data", "[events][SES-4]") {
  CHECK(to_json(client_tool_completed{"call_1", "cli_1", false}) ==
        json{{"call_id", "call_1"}, {"client_id", "cli_1"}, {"is_error", false}});
  CHECK(to_json(client_tools_updated{"cli_1", {}}) ==
        json{{"client_id", "cli_1"}, {"tools", json::array()}});
  CHECK(to_json(stream_gap{7}) == json{{"oldest_seq", 7}});
  CHECK(to_json(client_tool_dispatched{"c", "k", "t", json::object(), "u"})["arguments"] ==
        json::object());
}

TEST_CASE("C-6 read_event ignores fields SES-4 does not list, at any depth", "[events][C-6]") {
  const json deep_extra = {{"level", {{"deeper", {1, {{"x", nullptr}}, "y"}}}}};
  for (const event& written : one_of_each()) {
    const event_type type = type_of(written);
    CAPTURE(to_string(type));
    json data = to_json(written);
    data["extra"] = deep_extra;
    data["x-vendor"] = 12;
    if (data.contains("arguments")) data["arguments"]["extra"] = deep_extra;
    const auto read = read_event(to_string(type), data);
    REQUIRE(read);
    if (auto* dispatched = std::get_if<client_tool_dispatched>(&*read)) {
      // The arguments are the model's JSON, carried whole: an extra member is theirs.
      CHECK(dispatched->arguments == data["arguments"]);
      auto expected = std::get<client_tool_dispatched>(written);
      expected.arguments = data["arguments"];
      CHECK(*dispatched == expected);
    } else {
      CHECK(*read == written);
    }
  }
  // An item of a tool list that is not a name names nothing; the names around it count.
  const auto tools = read_event("client_tools_updated",
                                json{{"client_id", "c"}, {"tools", {"a", {{"n", 1}}, 3, "b"}}});
  REQUIRE(tools);
  CHECK(std::get<client_tools_updated>(*tools).tools == std::vector<std::string>{"a", "b"});
}

TEST_CASE("C-6 read_event reads a field of the wrong type as empty, and never throws",
          "[events][C-6]") {
  const std::vector<json> wrong = {
      json(),    json(true),   json(3),          json(-3),
      json(2.5), json("text"), json::array({1}), json::object({{"a", 1}}),
  };
  for (const event& written : one_of_each()) {
    const event_type type = type_of(written);
    const json data = to_json(written);
    for (const auto& [key, value] : data.items()) {
      for (const json& replacement : wrong) {
        CAPTURE(to_string(type), key, replacement.dump());
        json changed = data;
        changed[key] = replacement;
        std::optional<event> read;
        REQUIRE_NOTHROW(read = read_event(to_string(type), changed));
        REQUIRE(read);
        CHECK(type_of(*read) == type);
        // Read back, the replaced field is either what was sent (its type is right) or
        // empty; the others are as written.
        json expected = data;
        const json reread = to_json(*read);
        const json empty = to_json(empty_event(type));
        if (reread[key] == replacement) {
          expected[key] = replacement;
        } else {
          expected[key] = empty[key];
        }
        CHECK(reread == expected);
      }
    }
  }
}

TEST_CASE("C-6 read_event of data that is not an object gives an empty event", "[events][C-6]") {
  for (const json& data : {json(), json(1), json("x"), json::array({{{"turn_id", "t"}}})}) {
    for (const event_type type : all_event_types) {
      CAPTURE(data.dump(), to_string(type));
      std::optional<event> read;
      REQUIRE_NOTHROW(read = read_event(to_string(type), data));
      REQUIRE(read);
      CHECK(type_of(*read) == type);
      CHECK(*read == empty_event(type));
    }
  }
}
