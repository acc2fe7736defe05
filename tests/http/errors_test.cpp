// Error answers over HTTP: malformed JSON and HTTP, unknown routes and methods, 409, 413.
#include <catch2/catch.hpp>

#include "http_test_client.hpp"
#include "test_server.hpp"
#include "toolwire/reference_server/router.hpp"

using namespace toolwire::test;

TEST_CASE("Error answers over HTTP", "[http][errors]") {
  test_server_options options;
  // The turn's first step calls a tool of a live client, so the turn stays open.
  options.script = json::parse(R"({"rules": [{"match": "slow", "steps": [
      {"tool_calls": [{"name": "web__read_form", "arguments": {}}]},
      {"content": "done"}]}]})");
  test_server server(options);
  const auto session = server.create_session();
  const std::string base = "/v1/sessions/" + session.id;

  SECTION("C-2 malformed JSON is 400 invalid_request") {
    auto reply =
        request(server.endpoint(), "POST", base + "/clients", R"({"name": )", session.token);
    CHECK(reply.status == 400);
    CHECK(reply.error_type() == "invalid_request");
    CHECK(reply.headers.at("content-type") == "application/json");
  }
  SECTION("C-2 an unknown route is 404 not_found") {
    auto reply = request(server.endpoint(), "GET", "/v1/nothing/here", {}, admin_key);
    CHECK(reply.status == 404);
    CHECK(reply.error_type() == "not_found");
  }
  SECTION("a known route with another method is 405") {
    auto reply = request(server.endpoint(), "DELETE", "/v1/sessions", {}, admin_key);
    CHECK(reply.status == 405);
    CHECK(reply.error_type() == "method_not_allowed");
    CHECK(reply.headers.at("allow") == "POST");  // RFC 9110: a 405 says what is allowed
  }
  SECTION("SES-2 a second message while a turn runs is 409 conflict") {
    sse_stream stream(server.endpoint(), base + "/events", session.token);
    REQUIRE(request_json(server.endpoint(), "POST", base + "/clients",
                         client_body("web", {"read_form"}), session.token)
                .status == 201);
    auto first = request_json(server.endpoint(), "POST", base + "/messages",
                              {{"content", "slow please"}}, session.token);
    REQUIRE(first.status == 202);
    stream.until("client_tool_dispatched");  // the turn is now waiting for the client
    auto second = request_json(server.endpoint(), "POST", base + "/messages",
                               {{"content", "slow again"}}, session.token);
    CHECK(second.status == 409);
    CHECK(second.error_type() == "conflict");
  }
  SECTION("C-2 a body over 1 MiB is 413 payload_too_large, and changes nothing (C-3)") {
    sse_stream stream(server.endpoint(), base + "/events", session.token);
    json body = client_body("web", {"read_form"});
    body["padding"] = std::string(toolwire::reference_server::max_body_bytes, 'x');
    auto reply = request(server.endpoint(), "POST", base + "/clients", body.dump(), session.token);
    CHECK(reply.status == 413);
    CHECK(reply.error_type() == "payload_too_large");
    REQUIRE(request_json(server.endpoint(), "POST", base + "/clients", client_body("next", {}),
                         session.token)
                .status == 201);
    auto event = stream.next_event();
    REQUIRE(event);
    CHECK(event->id == 1u);  // the oversized registration left no event behind
    CHECK(event->data["name"] == "next");
  }
  SECTION("C-2 a body of exactly 1 MiB is accepted") {
    std::string body = "{}";
    body.resize(toolwire::reference_server::max_body_bytes, ' ');
    auto reply = request(server.endpoint(), "POST", "/v1/sessions", body, admin_key);
    CHECK(reply.status == 201);
  }
  SECTION("a malformed HTTP request is 400") {
    auto reply = raw_request(server.endpoint(), "NOT HTTP AT ALL\r\n\r\n");
    CHECK(reply.status == 400);
    CHECK(reply.error_type() == "invalid_request");
  }
}

TEST_CASE("serve --quiet logs no line per request", "[http][log]") {
  test_server_options options;
  options.log_requests = false;
  test_server server(options);
  const auto session = server.create_session();
  CHECK(request(server.endpoint(), "GET", "/v1/nothing/here", {}, admin_key).status == 404);
  for (const auto& line : server.log_lines()) {
    CAPTURE(line);
    CHECK(line.find("/v1/") == std::string::npos);  // start-up lines only
  }
}
