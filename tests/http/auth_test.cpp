// Authentication over HTTP: bearer tokens, API key scopes, the access_token query (AUTH-*).
#include <catch2/catch.hpp>

#include "http_test_client.hpp"
#include "test_server.hpp"

using namespace toolwire::test;

namespace {

enum class who { own_token, other_token, admin_key, plain_key, missing, unknown };

std::optional<std::string> credential(who kind, const test_session& own,
                                      const test_session& other) {
  switch (kind) {
    case who::own_token:
      return own.token;
    case who::other_token:
      return other.token;
    case who::admin_key:
      return admin_key;
    case who::plain_key:
      return plain_key;
    case who::missing:
      return std::nullopt;
    case who::unknown:
      return std::string("st_00000000000000000000000000000000");
  }
  return std::nullopt;
}

const char* name_of(who kind) {
  switch (kind) {
    case who::own_token:
      return "own session token";
    case who::other_token:
      return "another session's token";
    case who::admin_key:
      return "API key with session.manage";
    case who::plain_key:
      return "API key without session.manage";
    case who::missing:
      return "no credential";
    case who::unknown:
      return "unknown credential";
  }
  return "?";
}

}  // namespace

TEST_CASE("Authentication over HTTP", "[http][auth]") {
  test_server server;
  const auto own = server.create_session();
  const auto other = server.create_session();
  const std::string clients = "/v1/sessions/" + own.id + "/clients";
  const std::string events = "/v1/sessions/" + own.id + "/events";

  SECTION("AUTH-1 AUTH-2 AUTH-3 the credential matrix on a session route") {
    auto [kind, expected] = GENERATE(table<who, int>({{who::own_token, 201},
                                                      {who::admin_key, 201},
                                                      {who::other_token, 403},
                                                      {who::plain_key, 403},
                                                      {who::missing, 401},
                                                      {who::unknown, 401}}));
    CAPTURE(name_of(kind));
    auto reply = request_json(server.endpoint(), "POST", clients, client_body("web", {}),
                              credential(kind, own, other));
    CHECK(reply.status == expected);
  }
  SECTION("AUTH-1 AUTH-2 AUTH-3 the credential matrix on the events route") {
    auto [kind, expected] = GENERATE(table<who, int>({{who::own_token, 200},
                                                      {who::admin_key, 200},
                                                      {who::other_token, 403},
                                                      {who::plain_key, 403},
                                                      {who::missing, 401},
                                                      {who::unknown, 401}}));
    CAPTURE(name_of(kind));
    sse_stream stream(server.endpoint(), events, credential(kind, own, other));
    CHECK(stream.reply().status == expected);
  }
  SECTION("AUTH-5 the events route takes the credential as access_token") {
    auto [kind, expected] = GENERATE(table<who, int>({{who::own_token, 200},
                                                      {who::admin_key, 200},
                                                      {who::other_token, 403},
                                                      {who::unknown, 401}}));
    CAPTURE(name_of(kind));
    sse_stream stream(server.endpoint(), events + "?access_token=" + *credential(kind, own, other),
                      std::nullopt);
    CHECK(stream.reply().status == expected);
  }
  SECTION("AUTH-5 access_token is only for the events route") {
    auto reply = request_json(server.endpoint(), "POST", clients + "?access_token=" + own.token,
                              client_body("web", {}));
    CHECK(reply.status == 401);
  }
  SECTION("AUTH-5 credentials never appear in the log") {
    sse_stream stream(server.endpoint(), events + "?access_token=" + own.token, std::nullopt);
    REQUIRE(stream.reply().status == 200);
    request_json(server.endpoint(), "POST", clients, client_body("web", {}), own.token);
    // The stream's event proves the server has handled (and logged) both requests.
    REQUIRE(stream.next_event());
    bool saw_events_line = false;
    for (const auto& line : server.log_lines()) {
      CAPTURE(line);
      CHECK(line.find(own.token) == std::string::npos);
      CHECK(line.find(admin_key) == std::string::npos);
      CHECK(line.find("access_token") == std::string::npos);
      if (line == "GET " + events + " 200") saw_events_line = true;
    }
    CHECK(saw_events_line);
  }
  SECTION("AUTH-2 an unknown session is 404 only for a credential that may ask") {
    const std::string unknown = "/v1/sessions/ses_999/clients";
    CHECK(request_json(server.endpoint(), "POST", unknown, client_body("web", {}), admin_key)
              .status == 404);
    CHECK(request_json(server.endpoint(), "POST", unknown, client_body("web", {})).status == 401);
    CHECK(request_json(server.endpoint(), "POST", unknown, client_body("web", {}), own.token)
              .status == 403);
  }
  SECTION("AUTH-4 creating a session needs an API key with session.manage") {
    auto [kind, expected] = GENERATE(table<who, int>({{who::admin_key, 201},
                                                      {who::plain_key, 403},
                                                      {who::own_token, 403},
                                                      {who::missing, 401},
                                                      {who::unknown, 401}}));
    CAPTURE(name_of(kind));
    auto reply = request_json(server.endpoint(), "POST", "/v1/sessions", json::object(),
                              credential(kind, own, other));
    CHECK(reply.status == expected);
  }
  SECTION("AUTH-2 the clock routes take any API key and refuse a session token") {
    CHECK(request(server.endpoint(), "GET", "/v1/_test/clock", {}, plain_key).status == 200);
    CHECK(request(server.endpoint(), "GET", "/v1/_test/clock", {}, own.token).status == 403);
    CHECK(request(server.endpoint(), "GET", "/v1/_test/clock").status == 401);
  }
  SECTION("C-5 a scheme other than Bearer is no credential") {
    auto reply = request(server.endpoint(), "POST", clients, client_body("web", {}).dump(),
                         std::nullopt, {{"Authorization", "Basic " + own.token}});
    CHECK(reply.status == 401);
  }
}
