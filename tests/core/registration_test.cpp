// Core tests of SPEC section 3, registering a client: REG-1..9.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "core/core_test_support.hpp"

using namespace toolwire::core_test;

namespace {

const std::string japanese = "\xE6\x97\xA5";   // U+65E5: one code point, three bytes
const std::string emoji = "\xF0\x9F\x98\x80";  // U+1F600: one code point, four bytes

json registration(const json& tools) {
  return {{"name", "web"}, {"lifetime", {{"type", "never"}}}, {"tools", tools}};
}

json tool_with(const std::string& name, const json& description, const json& parameters) {
  return {{"name", name}, {"description", description}, {"parameters", parameters}};
}

//! Registers with `tools`; returns the status and checks that a rejection left no trace.
int register_tools(session_fixture& f, const json& tools) {
  const std::size_t before = f.event_count();
  auto response = f.register_raw(registration(tools));
  if (response.status != 201) {
    CHECK(error_type(response) == "invalid_request");
    CHECK(f.event_count() == before);  // C-3: no client, no event
  }
  return response.status;
}

}  // namespace

TEST_CASE("REG-1 tool declarations", "[core][registration]") {
  // SPEC REG-1: "Each tool has name of 1-64 characters from [A-Za-z0-9_-], description of
  // at most 4096 characters, and parameters, a JSON Schema object describing the arguments.
  // Anything else is rejected (400). [P] All three are required; parameters must be a JSON
  // object whose type, if present, is "object"; unknown keys are ignored. At registration
  // tools may be omitted (an empty list); name and lifetime are required."
  session_fixture f;

  SECTION("REG-1 tool names of 1 and 64 characters of the alphabet are accepted") {
    CHECK(register_tools(f, tool_list({"a"})) == 201);
    CHECK(register_tools(f, tool_list({std::string(64, 'x')})) == 201);
    CHECK(register_tools(f, tool_list({"AZaz09_-"})) == 201);
    CHECK(register_tools(f, tool_list({"-"})) == 201);
  }

  SECTION("REG-1 tool names of 0 or 65 characters or outside the alphabet are 400") {
    auto name = GENERATE(as<std::string>{}, "", std::string(65, 'x'), "a b", "a.b", "a/b",
                         "caf\xC3\xA9", "a\nb", "a__b$", "tab\t");
    CAPTURE(name);
    CHECK(register_tools(f, tool_list({name})) == 400);
  }

  SECTION("REG-1 name, description and parameters are all required") {
    CHECK(register_tools(
              f, json::array({{{"description", "d"}, {"parameters", json::object()}}})) == 400);
    CHECK(register_tools(f, json::array({{{"name", "a"}, {"parameters", json::object()}}})) == 400);
    CHECK(register_tools(f, json::array({{{"name", "a"}, {"description", "d"}}})) == 400);
  }

  SECTION("REG-1 wrong types are 400") {
    CHECK(register_tools(f, json::array({tool_with("a", 5, json::object())})) == 400);
    CHECK(register_tools(f, json::array({tool_with("a", "d", json::array())})) == 400);
    CHECK(register_tools(f, json::array({tool_with("a", "d", "object")})) == 400);
    CHECK(register_tools(f, json::array({tool_with("a", "d", {{"type", "string"}})})) == 400);
    CHECK(register_tools(f, json::array({json::array({"a"})})) == 400);
    CHECK(register_tools(
              f,
              json::array({{{"name", 7}, {"description", "d"}, {"parameters", json::object()}}})) ==
          400);
    CHECK(register_tools(f, "read") == 400);
  }

  SECTION("REG-1 parameters with or without type object, unknown keys ignored") {
    CHECK(register_tools(f, json::array({tool_with("a", "d", json::object())})) == 201);
    CHECK(register_tools(f, json::array({tool_with("b", "",
                                                   {{"type", "object"},
                                                    {"properties", {{"q", {{"type", "string"}}}}},
                                                    {"required", {"q"}}})})) == 201);
    json extra = core_harness::tool("c");
    extra["examples"] = json::array({1, 2});
    CHECK(register_tools(f, json::array({extra})) == 201);
  }

  SECTION("REG-1 description of exactly 4096 characters is accepted, 4097 is 400") {
    CHECK(register_tools(f, json::array({core_harness::tool("a", std::string(4096, 'd'))})) == 201);
    CHECK(register_tools(f, json::array({core_harness::tool("a", std::string(4097, 'd'))})) == 400);
  }

  SECTION("REG-1 tools may be omitted; name and lifetime may not") {
    auto omitted = f.register_raw({{"name", "web"}, {"lifetime", {{"type", "never"}}}});
    REQUIRE(omitted.status == 201);
    CHECK(omitted.body["tools"] == json::array());
    CHECK(f.register_raw({{"lifetime", {{"type", "never"}}}}).status == 400);
    CHECK(f.register_raw({{"name", "web"}}).status == 400);
    CHECK(f.register_raw({{"name", "web"}, {"lifetime", {{"type", "never"}}}, {"tools", nullptr}})
              .status == 400);
  }

  SECTION("REG-1 the 201 body echoes the declared tools and the model is offered them") {
    const json declared =
        json::array({tool_with("read", "reads the page",
                               {{"type", "object"}, {"properties", {{"q", {{"type", "string"}}}}}}),
                     core_harness::tool("write")});
    auto response = f.register_raw(registration(declared));
    REQUIRE(response.status == 201);
    CHECK(response.body["tools"] == declared);
    f.start_turn();
    const auto step = f.step();
    REQUIRE(step.body()["tools"].size() == 2);
    CHECK(step.body()["tools"][0]["type"] == "function");
    CHECK(step.body()["tools"][0]["function"]["name"] == "web__read");
    CHECK(step.body()["tools"][0]["function"]["description"] == "reads the page");
    CHECK(step.body()["tools"][0]["function"]["parameters"] == declared[0]["parameters"]);
  }
}

TEST_CASE("REG-2 the description limit counts code points", "[core][registration]") {
  // SPEC REG-2: "The 4096 limit counts Unicode code points, not bytes: 4096 Japanese
  // characters are accepted, 4097 ASCII characters are not."
  session_fixture f;
  SECTION("REG-2 4096 Japanese characters (12288 bytes) are accepted") {
    CHECK(register_tools(f, json::array({core_harness::tool("a", repeat(japanese, 4096))})) == 201);
  }
  SECTION("REG-2 4096 four-byte emoji are accepted") {
    CHECK(register_tools(f, json::array({core_harness::tool("a", repeat(emoji, 4096))})) == 201);
  }
  SECTION("REG-2 4097 ASCII characters are rejected") {
    CHECK(register_tools(f, json::array({core_harness::tool("a", std::string(4097, 'a'))})) == 400);
  }
  SECTION("REG-2 4097 Japanese characters are rejected") {
    CHECK(register_tools(f, json::array({core_harness::tool("a", repeat(japanese, 4097))})) == 400);
  }
  SECTION("REG-2 4095 ASCII plus one Japanese character is exactly 4096 and accepted") {
    CHECK(register_tools(
              f, json::array({core_harness::tool("a", std::string(4095, 'a') + japanese)})) == 201);
  }
}

TEST_CASE("REG-3 two tools with the same name in one list are 400", "[core][registration]") {
  session_fixture f;
  CHECK(register_tools(f, tool_list({"read", "write", "read"})) == 400);
  CHECK(register_tools(f, tool_list({"read", "Read"})) == 201);  // names are case-sensitive
}

TEST_CASE("REG-4 client names follow the tool-name rule", "[core][registration]") {
  session_fixture f;
  SECTION("REG-4 1 and 64 characters are accepted") {
    CHECK(f.register_raw({{"name", "w"}, {"lifetime", {{"type", "never"}}}}).status == 201);
    auto long_name =
        f.register_raw({{"name", std::string(64, 'n')}, {"lifetime", {{"type", "never"}}}});
    CHECK(long_name.status == 201);
    CHECK(long_name.body["name"] == std::string(64, 'n'));
  }
  SECTION("REG-4 0 or 65 characters, or characters outside the alphabet, are 400") {
    auto name =
        GENERATE(as<std::string>{}, "", std::string(65, 'n'), "my app", "app.v2", "\xE6\x97\xA5");
    CAPTURE(name);
    auto response = f.register_raw({{"name", name}, {"lifetime", {{"type", "never"}}}});
    CHECK(response.status == 400);
    CHECK(f.event_count() == 0);
  }
  SECTION("REG-4 a name that is not a string is 400") {
    CHECK(f.register_raw({{"name", 12}, {"lifetime", {{"type", "never"}}}}).status == 400);
  }
}

TEST_CASE("REG-5 a taken name gets the smallest free counter", "[core][registration]") {
  // SPEC REG-5: "If a live client of the session already has the requested name, a counter
  // is appended ... [P] The form is <name>_<n>, n = 2, 3, ..., the smallest that makes the
  // name unique among live clients."
  session_fixture f;

  SECTION("REG-5 web, web_2, web_3") {
    auto first = f.add("web");
    auto second = f.add("web");
    auto third = f.add("web");
    CHECK(first["name"] == "web");
    CHECK(second["name"] == "web_2");
    CHECK(third["name"] == "web_3");
    CHECK(third["requested_name"] == "web");
    auto event = f.find("client_registered", {{"client_id", third["client_id"]}});
    REQUIRE(event);
    CHECK(event->data["name"] == "web_3");
    CHECK(event->data["requested_name"] == "web");
  }

  SECTION("REG-5 the smallest free n is chosen after a departure") {
    f.add("web");
    auto second = f.add("web");
    f.add("web");
    REQUIRE(f.remove(second["client_id"]).status == 204);
    CHECK(f.add("web")["name"] == "web_2");
    CHECK(f.add("web")["name"] == "web_4");
  }

  SECTION("REG-5 a client literally named web_2 pushes the counter on") {
    f.add("web");
    CHECK(f.add("web_2")["name"] == "web_2");
    CHECK(f.add("web")["name"] == "web_3");
    CHECK(f.add("web_2")["name"] == "web_2_2");
  }

  SECTION("REG-5 the assigned name is the one that counts for the model") {
    f.add("web", {"read"});
    f.add("web", {"read"});
    f.start_turn();
    CHECK(core_harness::offered_names(f.step()) ==
          std::vector<std::string>{"web__read", "web_2__read"});
  }

  SECTION("REG-5 names differing only in case are different names") {
    f.add("web");
    CHECK(f.add("Web")["name"] == "Web");
  }
}

TEST_CASE("REG-6 assigned names are unique among live clients", "[core][registration]") {
  session_fixture f;
  std::set<std::string> live;
  std::vector<std::string> ids;
  for (int round = 0; round < 30; ++round) {
    const std::string requested = round % 3 == 0 ? "web" : (round % 3 == 1 ? "web_2" : "app");
    auto body = f.add(requested);
    CAPTURE(round, requested, body.dump());
    CHECK(live.insert(body["name"].get<std::string>()).second);
    ids.push_back(body["client_id"]);
    if (round % 4 == 3) {
      // Free one name now and then, so reuse and counters interleave.
      const std::string victim = ids[static_cast<std::size_t>(round) / 2];
      auto event = f.find("client_registered", {{"client_id", victim}});
      REQUIRE(event);
      if (f.remove(victim).status == 204) live.erase(event->data["name"].get<std::string>());
    }
  }
  // A second session has its own namespace.
  const std::string other = f.h.create_session();
  CHECK(f.h.register_client(other, "web", core_harness::never())["name"] == "web");
}

TEST_CASE("REG-7 a name freed by a departed client may be assigned again", "[core][registration]") {
  // REG-7 is [R]; the reference server does reuse names.
  session_fixture f;
  SECTION("REG-7 after DELETE") {
    auto first = f.add("web");
    REQUIRE(f.remove(first["client_id"]).status == 204);
    auto again = f.add("web");
    CHECK(again["name"] == "web");
    CHECK(again["client_id"] != first["client_id"]);
  }
  SECTION("REG-7 after TTL expiry") {
    f.add("web", {}, core_harness::ttl(1));
    f.h.advance(1000);
    REQUIRE(f.find("client_unregistered", {{"reason", "expired"}}));
    CHECK(f.add("web")["name"] == "web");
  }
}

TEST_CASE("REG-8 ttl seconds is an integer from 1 to 86400", "[core][registration]") {
  session_fixture f;
  auto ttl_body = [](const json& seconds) {
    return json{{"name", "web"}, {"lifetime", {{"type", "ttl"}, {"data", {{"seconds", seconds}}}}}};
  };
  SECTION("REG-8 1 and 86400 are accepted") {
    auto one = f.register_raw(ttl_body(1));
    REQUIRE(one.status == 201);
    CHECK(one.body["lifetime"] == core_harness::ttl(1));
    CHECK(one.body["expires_at_ms"] == start_time + 1000);
    auto day = f.register_raw(ttl_body(86400));
    REQUIRE(day.status == 201);
    CHECK(day.body["expires_at_ms"] == start_time + 86'400'000);
  }
  SECTION("REG-8 0, 86401, negatives, fractions and non-numbers are 400") {
    auto seconds = GENERATE(json(0), json(86401), json(-1), json(1.5), json("10"), json(nullptr),
                            json(true), json(1e20));
    CAPTURE(seconds.dump());
    auto response = f.register_raw(ttl_body(seconds));
    CHECK(response.status == 400);
    CHECK(f.event_count() == 0);
  }
  SECTION("REG-8 a ttl without data.seconds, or an unknown lifetime type, is 400") {
    CHECK(f.register_raw({{"name", "web"}, {"lifetime", {{"type", "ttl"}}}}).status == 400);
    CHECK(
        f.register_raw({{"name", "web"}, {"lifetime", {{"type", "ttl"}, {"data", json::object()}}}})
            .status == 400);
    CHECK(f.register_raw({{"name", "web"}, {"lifetime", {{"type", "forever"}}}}).status == 400);
    CHECK(f.register_raw({{"name", "web"}, {"lifetime", "never"}}).status == 400);
  }
}

TEST_CASE("REG-9 client_registered carries the client_id and name of the 201 response",
          "[core][registration]") {
  session_fixture f;
  for (int i = 0; i < 3; ++i) {
    auto response = f.register_raw(
        {{"name", "tab"}, {"lifetime", {{"type", "never"}}}, {"tools", tool_list({"t"})}});
    REQUIRE(response.status == 201);
    const auto events = f.events("client_registered");
    REQUIRE(events.size() == static_cast<std::size_t>(i + 1));
    CHECK(events.back().data["client_id"] == response.body["client_id"]);
    CHECK(events.back().data["name"] == response.body["name"]);
    CHECK(events.back().data["requested_name"] == "tab");
  }
  CHECK(f.events("client_registered").back().data["name"] == "tab_3");
}
