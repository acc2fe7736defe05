// Core tests of SPEC section 0, common conventions: C-1..C-6 as far as they show without HTTP.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/core_test_support.hpp"

using namespace toolwire::core_test;

TEST_CASE("C-1 responses are JSON objects", "[core][common]") {
  // SPEC C-1: "Bodies are JSON (UTF-8), Content-Type: application/json." The header is
  // the HTTP front end's (tests/http); here: every non-204 body is a JSON object.
  session_fixture f;
  const std::string cid = f.add("web", {"read"})["client_id"];
  std::vector<api_response> responses = {
      f.ping(cid),       f.put_tools(cid, tool_list({"read"})),
      f.message("hi"),   f.h.request("GET", "/v1/_test/clock"),
      f.ping("cli_404"),
  };
  for (const auto& response : responses) {
    CAPTURE(response.status, response.body.dump());
    CHECK(response.body.is_object());
  }
  CHECK(f.remove(cid).body.is_null());  // 204: no body
}

TEST_CASE("C-2 errors are {error: {type, message}} with the listed statuses", "[core][common]") {
  // SPEC C-2: "Errors are {"error": {"type": "<code>", "message": "<text>"}} with status 400
  // invalid_request, 401 unauthenticated, 403 forbidden, 404 not_found, 409 conflict ...
  // Malformed JSON is 400."
  session_fixture f;
  const std::string cid = f.add("web", {"read"})["client_id"];
  f.start_turn();
  struct expectation {
    std::string label;
    api_response response;
    int status;
    std::string type;
  };
  std::vector<expectation> cases = {
      {"malformed JSON", f.h.request_raw("POST", f.h.clients_path(f.sid), "{\"name\": \"web\", "),
       400, "invalid_request"},
      {"JSON that is not an object", f.h.request_raw("POST", f.h.clients_path(f.sid), "[1, 2]"),
       400, "invalid_request"},
      {"invalid field", f.register_raw({{"name", ""}, {"lifetime", {{"type", "never"}}}}), 400,
       "invalid_request"},
      {"no credential", f.ping(cid, std::nullopt), 401, "unauthenticated"},
      {"no access", f.ping(cid, std::string(reader_key)), 403, "forbidden"},
      {"unknown client", f.ping("cli_999"), 404, "not_found"},
      {"second turn", f.message("again"), 409, "conflict"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.label, c.response.body.dump());
    CHECK(c.response.status == c.status);
    REQUIRE(c.response.body.is_object());
    REQUIRE(c.response.body.contains("error"));
    CHECK(c.response.body["error"]["type"] == c.type);
    REQUIRE(c.response.body["error"]["message"].is_string());
    CHECK_FALSE(c.response.body["error"]["message"].get<std::string>().empty());
  }
}

TEST_CASE("C-3 a rejected request changes nothing", "[core][common]") {
  // SPEC C-3: "A rejected request changes nothing: no client, no event, no call state."
  session_fixture f;
  const std::string cid = f.add("web", {"read"}, core_harness::ttl(10))["client_id"];
  const auto call_id = f.turn_with_calls({{"web__read", json::object()}}).at(0);
  const std::size_t before = f.event_count();

  SECTION("C-3 rejected registrations, PUTs, results, pings and messages emit nothing") {
    f.register_raw({{"name", "web"}, {"lifetime", {{"type", "ttl"}, {"data", {{"seconds", 0}}}}}});
    f.register_raw({{"name", "web"}, {"lifetime", {{"type", "never"}}}, {"tools", "x"}});
    f.put_tools(cid, json::array({core_harness::tool("bad name")}));
    f.result(cid, call_id, json::object());
    f.result(cid, call_id, {{"content", 1}, {"error", "x"}});
    f.ack(cid, "call_999");
    f.ping("cli_999");
    f.message("second");
    f.h.request_raw("POST", f.h.clients_path(f.sid), "{");
    CHECK(f.event_count() == before);
  }

  SECTION("C-3 a rejected registration does not take the name") {
    // `web` is live; a rejected `web` must not make the next one `web_3`.
    f.register_raw({{"name", "web"}, {"lifetime", {{"type", "bogus"}}}});
    CHECK(f.add("web")["name"] == "web_2");
  }

  SECTION("C-3 a rejected result leaves the call open and answerable") {
    CHECK(f.result(cid, call_id, {{"error", 5}}).status == 400);
    CHECK(f.ack(cid, call_id).status == 200);
    CHECK(f.content(cid, call_id, "fine").status == 200);
    CHECK(f.settlements(call_id) == 1);
  }

  SECTION("C-3 a rejected PUT leaves the tool list as it was") {
    CHECK(f.put_tools(cid, json::array({core_harness::tool(std::string(65, 'x'))})).status == 400);
    CHECK(f.content(cid, call_id, "done").status == 200);
    CHECK(core_harness::offered_names(f.step()) == std::vector<std::string>{"web__read"});
  }
}

TEST_CASE("C-4 times in bodies are milliseconds of the virtual clock", "[core][common]") {
  session_fixture f;
  f.h.advance(1234);
  auto registered = f.add("web", {}, core_harness::ttl(7));
  CHECK(registered["expires_at_ms"] == start_time + 1234 + 7000);
  auto created = f.h.request("POST", "/api/tasks",
                             {{"assistant_id", 1}, {"input", {{{"type", "text"}, {"text", "x"}}}}});
  REQUIRE(created.status == 201);
  auto task = f.h.request("GET", "/api/tasks/" + created.body["uuid"].get<std::string>());
  CHECK(task.body["created_at_ms"] == start_time + 1234);
  CHECK(f.events("client_registered").at(0).at == start_time + 1234);
}

TEST_CASE("C-5 the credential is the bearer credential, nowhere else", "[core][common]") {
  // SPEC C-5: "Credentials travel as Authorization: Bearer <credential>." The header parsing
  // is the HTTP front end's (tests/http); the router authenticates with what it extracted
  // and never with a credential placed in the body or in another query parameter.
  session_fixture f;
  const std::string token = f.h.token_of(f.sid);
  auto in_body = f.h.request("POST", f.h.clients_path(f.sid),
                             {{"name", "web"},
                              {"lifetime", {{"type", "never"}}},
                              {"token", token},
                              {"access_token", token}},
                             std::nullopt);
  CHECK(in_body.status == 401);
  auto in_query = f.h.request("POST", f.h.clients_path(f.sid) + "?token=" + token,
                              {{"name", "web"}, {"lifetime", {{"type", "never"}}}}, std::nullopt);
  CHECK(in_query.status == 401);
  CHECK(f.events("client_registered").empty());
  CHECK(f.register_raw({{"name", "web"}, {"lifetime", {{"type", "never"}}}}, token).status == 201);
}

TEST_CASE("C-6 readers ignore fields they do not know", "[core][common]") {
  // The server is the reader of request bodies: unknown members change nothing.
  session_fixture f;
  json tool = core_harness::tool("read");
  tool["x-extra"] = {{"anything", true}};
  auto response = f.register_raw({{"name", "web"},
                                  {"lifetime", {{"type", "never"}, {"color", "red"}}},
                                  {"tools", json::array({tool})},
                                  {"unknown", 1}});
  REQUIRE(response.status == 201);
  CHECK(response.body["name"] == "web");
  const std::string cid = response.body["client_id"];
  CHECK(f.h.request("PUT", f.h.client_path(f.sid, cid) + "/tools",
                    {{"tools", tool_list({"a"})}, {"note", "x"}})
            .status == 200);
  CHECK(f.h.request("POST", "/v1/sessions/" + f.sid + "/messages",
                    {{"content", "hi"}, {"metadata", {{"k", "v"}}}})
            .status == 202);
}
