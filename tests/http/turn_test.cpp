// A whole turn over HTTP with the scripted model: dispatch, results, a client vanishing.
#include <catch2/catch.hpp>

#include "http_test_client.hpp"
#include "test_server.hpp"

using namespace toolwire::test;

namespace {

const json form_script = json::parse(R"({"rules": [
  {"match": "read the form", "steps": [
    {"tool_calls": [{"name": "web__read_form", "arguments": {"field": "name"}}]},
    {"content": "the form says what it says"}]},
  {"match": "nothing scripted", "steps": []}]})");

const json* find_event(const std::vector<sse_event>& events, std::string_view type) {
  for (const auto& event : events) {
    if (event.type == type) return &event.data;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("A turn over HTTP with a scripted model", "[http][turn]") {
  test_server_options options;
  options.script = form_script;
  test_server server(options);
  const auto session = server.create_session();
  const std::string base = "/v1/sessions/" + session.id;
  sse_stream stream(server.endpoint(), base + "/events", session.token);
  REQUIRE(stream.reply().status == 200);

  SECTION("LIFE-5 a ttl client vanishing mid-call fails the call, and the turn goes on") {
    auto registered = request_json(server.endpoint(), "POST", base + "/clients",
                                   client_body("web", {"read_form"}, 5), session.token);
    REQUIRE(registered.status == 201);
    const std::string client_id = registered.json_body().at("client_id");
    auto message = request_json(server.endpoint(), "POST", base + "/messages",
                                {{"content", "please read the form"}}, session.token);
    REQUIRE(message.status == 202);
    const std::string turn_id = message.json_body().at("turn_id");

    const auto before = stream.until("client_tool_dispatched");
    const json& dispatched = before.back().data;
    CHECK(dispatched["client_id"] == client_id);
    CHECK(dispatched["tool"] == "read_form");  // CALL-1: as declared, no namespace
    CHECK(dispatched["arguments"] == json{{"field", "name"}});
    CHECK(dispatched["turn_id"] == turn_id);
    const std::string call_id = dispatched["call_id"];

    // The client never pings again: 5 s after registration it is gone (LIFE-2, LIFE-3).
    auto clock = request(server.endpoint(), "GET", "/v1/_test/clock", {}, admin_key);
    const auto start_ms = clock.json_body().at("now_ms").get<std::int64_t>();
    auto advanced = request_json(server.endpoint(), "POST", "/v1/_test/clock/advance",
                                 {{"ms", 5000}}, admin_key);
    REQUIRE(advanced.status == 200);
    CHECK(advanced.json_body()["now_ms"] == start_ms + 5000);

    const auto after = stream.until("turn_completed");
    const json* unregistered = find_event(after, "client_unregistered");
    REQUIRE(unregistered);
    CHECK((*unregistered)["client_id"] == client_id);
    CHECK((*unregistered)["reason"] == "expired");
    const json* failed = find_event(after, "client_tool_failed");
    REQUIRE(failed);
    CHECK((*failed)["call_id"] == call_id);
    CHECK((*failed)["reason"] == "client_expired");
    CHECK(after.back().data["turn_id"] == turn_id);
    CHECK(after.back().data["output"] == "the form says what it says");

    // LIFE-4: every later request on the client is 404.
    auto ping = request(server.endpoint(), "POST", base + "/clients/" + client_id + "/ping", "{}",
                        session.token);
    CHECK(ping.status == 404);
  }
  SECTION("CALL-3 CALL-4 a client that acks and answers completes the turn") {
    auto registered = request_json(server.endpoint(), "POST", base + "/clients",
                                   client_body("web", {"read_form"}), session.token);
    REQUIRE(registered.status == 201);
    const std::string client_id = registered.json_body().at("client_id");
    REQUIRE(request_json(server.endpoint(), "POST", base + "/messages",
                         {{"content", "read the form, please"}}, session.token)
                .status == 202);
    const std::string call_id = stream.until("client_tool_dispatched").back().data["call_id"];
    const std::string call = base + "/clients/" + client_id + "/calls/" + call_id;
    CHECK(request(server.endpoint(), "POST", call + "/ack", "{}", session.token).status == 200);
    CHECK(request_json(server.endpoint(), "POST", call + "/result", {{"content", "Ada"}},
                       session.token)
              .status == 200);
    const auto after = stream.until("turn_completed");
    const json* completed = find_event(after, "client_tool_completed");
    REQUIRE(completed);
    CHECK((*completed)["call_id"] == call_id);
    CHECK((*completed)["is_error"] == false);
    // CALL-6: the call is settled; a second result changes nothing.
    CHECK(request_json(server.endpoint(), "POST", call + "/result", {{"content", "again"}},
                       session.token)
              .status == 409);
  }
  SECTION("MODEL-4 a script without a step for the conversation fails the turn") {
    REQUIRE(request_json(server.endpoint(), "POST", base + "/messages",
                         {{"content", "nothing scripted here"}}, session.token)
                .status == 202);
    const auto events = stream.until("turn_failed");
    const std::string reason = events.back().data["reason"];
    CHECK_THAT(reason, Catch::Contains("model script has no step 0 for this conversation"));
  }
}
