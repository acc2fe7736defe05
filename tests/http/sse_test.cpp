// The SSE event stream over a real socket: framing, Last-Event-ID resume, gaps, keep-alive.
#include <catch2/catch.hpp>

#include <memory>
#include <set>

#include "http_test_client.hpp"
#include "test_server.hpp"

using namespace toolwire::test;

namespace {

std::string events_path(const test_session& session) {
  return "/v1/sessions/" + session.id + "/events";
}

//! Registers a client named `name` and returns its client_id.
std::string register_client(const test_server& server, const test_session& session,
                            const std::string& name) {
  auto reply = request_json(server.endpoint(), "POST", "/v1/sessions/" + session.id + "/clients",
                            client_body(name, {"read_form"}), session.token);
  REQUIRE(reply.status == 201);
  return reply.json_body().at("client_id").get<std::string>();
}

std::vector<std::uint64_t> ids_of(sse_stream& stream, std::size_t count) {
  std::vector<std::uint64_t> ids;
  for (std::size_t i = 0; i < count; ++i) {
    auto event = stream.next_event();
    REQUIRE(event);
    REQUIRE(event->id);
    ids.push_back(*event->id);
  }
  return ids;
}

}  // namespace

TEST_CASE("SSE event stream", "[http][sse]") {
  test_server_options options;
  options.keepalive = 50ms;
  SECTION("SES-3 events carry id, event and data as JSON") {
    test_server server;
    const auto session = server.create_session();
    sse_stream stream(server.endpoint(), events_path(session), session.token);
    REQUIRE(stream.reply().status == 200);
    CHECK(stream.reply().headers.at("content-type") == "text/event-stream");
    CHECK(stream.reply().headers.at("cache-control") == "no-cache");
    const std::string client_id = register_client(server, session, "web");
    auto event = stream.next_event();
    REQUIRE(event);
    CHECK(event->id == 1u);
    CHECK(event->type == "client_registered");
    REQUIRE(event->data.is_object());
    CHECK(event->data["client_id"] == client_id);
    CHECK(event->data["name"] == "web");
  }
  SECTION("SES-3 a stream without Last-Event-ID starts with the events after it opened") {
    test_server server;
    const auto session = server.create_session();
    register_client(server, session, "a");
    register_client(server, session, "b");
    sse_stream stream(server.endpoint(), events_path(session), session.token);
    register_client(server, session, "c");
    auto event = stream.next_event();
    REQUIRE(event);
    CHECK(event->id == 3u);
    CHECK(event->data["name"] == "c");
  }
  SECTION("SES-3 Last-Event-ID resumes without gaps or duplicates") {
    test_server server;
    const auto session = server.create_session();
    for (const char* name : {"a", "b", "c"})
      register_client(server, session, name);
    sse_stream resumed(server.endpoint(), events_path(session), session.token, "1");
    REQUIRE(resumed.reply().status == 200);
    CHECK(ids_of(resumed, 2) == std::vector<std::uint64_t>{2, 3});
    register_client(server, session, "d");
    CHECK(ids_of(resumed, 1) == std::vector<std::uint64_t>{4});
    // A later event proves that nothing else (no duplicate) was queued before it.
    register_client(server, session, "e");
    CHECK(ids_of(resumed, 1) == std::vector<std::uint64_t>{5});
  }
  SECTION("SES-3 Last-Event-ID 0 replays every retained event") {
    test_server server;
    const auto session = server.create_session();
    for (const char* name : {"a", "b", "c"})
      register_client(server, session, name);
    sse_stream replay(server.endpoint(), events_path(session), session.token, "0");
    REQUIRE(replay.reply().status == 200);
    CHECK(ids_of(replay, 3) == std::vector<std::uint64_t>{1, 2, 3});
  }
  SECTION("SES-3 a Last-Event-ID that is not a non-negative integer is 400") {
    const std::string value = GENERATE("abc", "-1", "1.5", "", "18446744073709551616");
    CAPTURE(value);
    test_server server;
    const auto session = server.create_session();
    sse_stream stream(server.endpoint(), events_path(session), session.token, value);
    CHECK(stream.reply().status == 400);
    CHECK(stream.reply().error_type() == "invalid_request");
  }
  SECTION("SES-3 events no longer retained start the stream with stream_gap") {
    test_server_options small;
    small.event_retention = 4;
    test_server server(small);
    const auto session = server.create_session();
    for (const char* name : {"a", "b", "c", "d", "e", "f"})
      register_client(server, session, name);
    sse_stream stream(server.endpoint(), events_path(session), session.token, "1");
    auto gap = stream.next_event();
    REQUIRE(gap);
    CHECK(gap->type == "stream_gap");
    CHECK_FALSE(gap->id);  // not part of the sequence (docs/reference-server.md)
    const auto oldest = gap->data.at("oldest_seq").get<std::uint64_t>();
    CHECK(oldest > 2);
    auto first = stream.next_event();
    REQUIRE(first);
    CHECK(first->id == oldest);
  }
  SECTION("SES-3 a comment line keeps a silent stream alive") {
    test_server server(options);
    const auto session = server.create_session();
    sse_stream stream(server.endpoint(), events_path(session), session.token);
    auto block = stream.next(2s);
    REQUIRE(block);
    CHECK(block->is_comment);
    CHECK(block->comment == "keep-alive");
    // The stream still carries events after a keep-alive.
    register_client(server, session, "web");
    auto event = stream.next_event();
    REQUIRE(event);
    CHECK(event->type == "client_registered");
  }
  SECTION("SES-3 every stream of a session gets every event") {
    test_server server;
    const auto session = server.create_session();
    sse_stream first(server.endpoint(), events_path(session), session.token);
    sse_stream second(server.endpoint(), events_path(session), server.create_session().token,
                      std::nullopt);
    CHECK(second.reply().status == 403);  // AUTH-3: another session's token
    sse_stream third(server.endpoint(), events_path(session), admin_key);
    register_client(server, session, "web");
    CHECK(ids_of(first, 1) == std::vector<std::uint64_t>{1});
    CHECK(ids_of(third, 1) == std::vector<std::uint64_t>{1});
  }
  SECTION("streams close when the server shuts down") {
    auto server = std::make_unique<test_server>();
    const auto session = server->create_session();
    sse_stream stream(server->endpoint(), events_path(session), session.token);
    REQUIRE(stream.reply().status == 200);
    server.reset();
    CHECK_FALSE(stream.next(2s));
    CHECK(stream.ended());
  }
}
