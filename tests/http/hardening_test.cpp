// Hardening of the front end that is not one bad request: absolute-form targets, the
// connection cap, the virtual clock's saturation, where session tokens come from, and the
// deadlines that close a connection.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>

#include <boost/asio/connect.hpp>
#include <boost/asio/write.hpp>

#include "http_test_client.hpp"
#include "test_server.hpp"
#include "toolwire/reference_server/core.hpp"
#include "toolwire/reference_server/virtual_clock.hpp"
#include "toolwire/reference_server/web/api_translation.hpp"
#include "toolwire/reference_server/web/os_entropy.hpp"

using namespace toolwire::test;
namespace web = toolwire::reference_server::web;

TEST_CASE("absolute-form targets are routed by their path (RFC 9112 3.2.2)", "[http][hardening]") {
  SECTION("path_of drops the scheme and the authority") {
    CHECK(web::path_of("http://h:8/v1/sessions?x=1") == "/v1/sessions");
    CHECK(web::path_of("HTTPS://h/api/tasks/u") == "/api/tasks/u");
    CHECK(web::path_of("http://h") == "/");
    CHECK(web::path_of("http://h?q") == "/");
    CHECK(web::path_of("/v1/sessions?x") == "/v1/sessions");
  }
  SECTION("over the wire") {
    test_server server;
    auto reply = raw_request(server.endpoint(),
                             "GET http://127.0.0.1/v1/_test/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             "Authorization: Bearer " +
                                 admin_key + "\r\nConnection: close\r\n\r\n");
    CHECK(reply.status == 200);
    CHECK(reply.json_body().contains("now_ms"));
  }
}

TEST_CASE("beyond the connection cap a connection gets 503 and the server goes on",
          "[http][hardening]") {
  test_server_options options;
  options.max_connections = 2;
  options.reserved_connections = 0;
  test_server server(options);
  const auto session = server.create_session();

  boost::asio::io_context ioc;
  tcp::socket idle(ioc);
  idle.connect(server.endpoint());
  // An event stream counts as a connection too. Why several tries: the connection that
  // created the session may still be closing, and counts until it has.
  std::unique_ptr<sse_stream> stream;
  for (int attempt = 0; attempt < 200 && !(stream && stream->reply().status == 200); ++attempt) {
    stream = std::make_unique<sse_stream>(server.endpoint(),
                                          "/v1/sessions/" + session.id + "/events", session.token);
  }
  REQUIRE(stream->reply().status == 200);

  auto refused = request(server.endpoint(), "GET", "/v1/_test/clock", {}, admin_key);
  CHECK(refused.status == 503);
  CHECK(refused.error_type() == "unavailable");

  idle.close();
  // Why several tries: the server learns of the close asynchronously; it must then accept.
  int status = 0;
  for (int attempt = 0; attempt < 200 && status != 200; ++attempt) {
    status = request(server.endpoint(), "GET", "/v1/_test/clock", {}, admin_key).status;
  }
  CHECK(status == 200);
  CHECK_FALSE(server.thread_done());
}

TEST_CASE("CLOCK-1 an advance by INT64_MAX saturates instead of wrapping", "[http][hardening]") {
  test_server server;
  const std::string huge = std::to_string(std::numeric_limits<std::int64_t>::max());
  for (int round = 0; round < 2; ++round) {
    auto reply = request(server.endpoint(), "POST", "/v1/_test/clock/advance",
                         "{\"ms\": " + huge + "}", admin_key);
    REQUIRE(reply.status == 200);
    CHECK(reply.json_body().at("now_ms").get<std::int64_t>() ==
          toolwire::reference_server::max_virtual_ms);
  }
  // The core still works at the end of time: a client with a TTL registers and expires.
  const auto session = server.create_session();
  auto client = request_json(server.endpoint(), "POST", "/v1/sessions/" + session.id + "/clients",
                             client_body("c", {}, 5), session.token);
  REQUIRE(client.status == 201);
  CHECK(client.json_body().at("expires_at_ms").get<std::int64_t>() > 0);
}

TEST_CASE("AUTH-3 session tokens come from the injected entropy source", "[http][hardening]") {
  SECTION("the core formats the source's 128 bits") {
    toolwire::reference_server::core_config config;
    config.token_entropy = [] { return std::array<std::uint64_t, 2>{1, 0xabcdefULL}; };
    toolwire::reference_server::core core(config);
    CHECK(core.create_session(0)->token == "st_00000000000000010000000000abcdef");
  }
  SECTION("without a source, tokens follow the seed (tests and the simulator)") {
    toolwire::reference_server::core_config config;
    config.secret_seed = 7;
    toolwire::reference_server::core a(config);
    toolwire::reference_server::core b(config);
    CHECK(a.create_session(0)->token == b.create_session(0)->token);
  }
  SECTION("the OS source does not repeat") {
    std::set<std::array<std::uint64_t, 2>> seen;
    for (int i = 0; i < 1000; ++i)
      seen.insert(web::os_entropy_128());
    CHECK(seen.size() == 1000);
  }
}

TEST_CASE("an event stream whose reader stops reading is closed at the write deadline",
          "[http][hardening]") {
  test_server_options options;
  options.write_timeout = 100ms;
  options.max_connections = 2;  // the stream, plus one connection at a time
  options.reserved_connections = 0;
  options.log_requests = false;
  // Every turn ends with a 1 MB answer, so each turn_completed event is 1 MB.
  options.script =
      json{{"rules",
            json::array({{{"match", ""},
                          {"steps", json::array({{{"content", std::string(1 << 20, 'a')}}})}}})}};
  test_server server(options);
  const auto session = server.create_session();
  const std::string base = "/v1/sessions/" + session.id;

  // A reader with a tiny window that reads the response header and then nothing. Why
  // several tries: the connection that created the session may still count (503).
  boost::asio::io_context ioc;
  tcp::socket reader(ioc);
  const std::string get = "GET " + base + "/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                          session.token + "\r\n\r\n";
  std::string head;
  for (int attempt = 0; attempt < 200 && !head.starts_with("HTTP/1.1 200"); ++attempt) {
    boost::system::error_code ignored;
    reader.close(ignored);
    reader.open(server.endpoint().protocol());
    reader.set_option(boost::asio::socket_base::receive_buffer_size(4096));
    reader.connect(server.endpoint());
    boost::asio::write(reader, boost::asio::buffer(get));
    head.assign(64, '\0');
    head.resize(reader.read_some(boost::asio::buffer(head)));
  }
  REQUIRE(head.starts_with("HTTP/1.1 200"));
  int status = 0;

  // Far more than the socket buffers hold. Why several tries: the previous connection may
  // still be closing (503), or the previous turn still running (409).
  for (int i = 0; i < 16; ++i) {
    status = 0;
    for (int attempt = 0; attempt < 2000 && status != 202; ++attempt) {
      status = request_json(server.endpoint(), "POST", base + "/messages", {{"content", "hi"}},
                            session.token)
                   .status;
    }
    REQUIRE(status == 202);
  }

  // One idle connection fills the cap while the stream lives; once the stalled write
  // times out and the stream closes, a request gets through again.
  tcp::socket idle(ioc);
  idle.connect(server.endpoint());
  status = 0;
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  while (status != 200 && std::chrono::steady_clock::now() < give_up) {
    status = request(server.endpoint(), "GET", "/v1/_test/clock", {}, admin_key).status;
  }
  CHECK(status == 200);
  CHECK_FALSE(server.thread_done());
}

namespace {

//! Opens an event stream of `session`, retrying while an earlier connection may still count
//! against the connection cap (503 from the listener, which names no stream cap).
std::unique_ptr<sse_stream> open_stream(const test_server& server, const test_session& session) {
  std::unique_ptr<sse_stream> stream;
  for (int attempt = 0; attempt < 200; ++attempt) {
    stream = std::make_unique<sse_stream>(server.endpoint(),
                                          "/v1/sessions/" + session.id + "/events", session.token);
    if (stream->reply().status != 503 || stream->reply().body.find("stream") != std::string::npos) {
      break;
    }
  }
  return stream;
}

}  // namespace

TEST_CASE("one session's event streams beyond its cap are answered 503; other sessions stream",
          "[http][hardening]") {
  test_server_options options;
  options.max_streams_per_session = 2;
  test_server server(options);
  const auto crowded = server.create_session();
  const auto first = open_stream(server, crowded);
  const auto second = open_stream(server, crowded);
  REQUIRE(first->reply().status == 200);
  REQUIRE(second->reply().status == 200);

  const auto third = open_stream(server, crowded);
  CHECK(third->reply().status == 503);
  CHECK(third->reply().body.find("--max-streams-per-session") != std::string::npos);

  const auto other = server.create_session();
  CHECK(open_stream(server, other)->reply().status == 200);
}

TEST_CASE("event streams never take the reserved connections: requests still get through",
          "[http][hardening]") {
  test_server_options options;
  options.max_connections = 8;
  options.reserved_connections = 4;  // streams may take 4 connections
  options.log_requests = false;
  test_server server(options);
  std::vector<test_session> sessions;
  std::vector<std::unique_ptr<sse_stream>> streams;
  for (int i = 0; i < 4; ++i) {
    sessions.push_back(server.create_session());
    streams.push_back(open_stream(server, sessions.back()));
    REQUIRE(streams.back()->reply().status == 200);
  }
  const auto refused = open_stream(server, sessions.front());
  CHECK(refused->reply().status == 503);
  CHECK(refused->reply().body.find("reserved for requests") != std::string::npos);

  // Registration and pings of every session still work while the streams are saturated.
  for (const auto& session : sessions) {
    auto registered =
        request_json(server.endpoint(), "POST", "/v1/sessions/" + session.id + "/clients",
                     client_body("tab", {}, 30), session.token);
    CHECK(registered.status == 201);
  }
}

TEST_CASE("the event streams of a forgotten session are closed", "[http][hardening]") {
  test_server_options options;
  options.idle_expiry_ms = 60'000;
  test_server server(options);
  const auto session = server.create_session();
  const auto stream = open_stream(server, session);
  REQUIRE(stream->reply().status == 200);
  REQUIRE(
      request(server.endpoint(), "POST", "/v1/_test/clock/advance", R"({"ms": 60000})", admin_key)
          .status == 200);
  // The stream ends: nothing but keep-alive comments could come, and they would be a lie.
  while (stream->next(std::chrono::seconds(5))) {
  }
  CHECK(stream->ended());
  CHECK(server.inspect([](const auto& core) { return core.session_count(); }) == 0);
}

TEST_CASE("a connection is closed at its idle deadline, mid-request or between requests",
          "[http][hardening]") {
  test_server_options options;
  options.idle_timeout = 200ms;
  options.log_requests = false;
  test_server server(options);
  const auto started = std::chrono::steady_clock::now();
  raw_outcome outcome;

  SECTION("a request whose header stops half-way gets no answer and the connection ends") {
    outcome = raw_exchange(server.endpoint(), "GET /v1/_test/clock HTTP/1.1\r\nHost: x\r\n", 0);
    CHECK(outcome.replies.empty());
  }
  SECTION("a keep-alive connection is answered, then ends once left idle") {
    outcome = raw_exchange(server.endpoint(),
                           "GET /v1/_test/clock HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                               admin_key + "\r\n\r\n",
                           1);
    REQUIRE(outcome.replies.size() == 1);
    CHECK(outcome.replies[0].status == 200);
  }
  // Within raw_exchange's 5 s, and not before the deadline: the server starts counting
  // after this test's clock did.
  CHECK(outcome.closed);
  CHECK(std::chrono::steady_clock::now() - started >= options.idle_timeout);
  // The server goes on.
  CHECK(request(server.endpoint(), "GET", "/v1/_test/clock", {}, admin_key).status == 200);
}
