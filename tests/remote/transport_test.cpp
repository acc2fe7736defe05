// Misbehaving targets: every request still gets an answer (status 0 when the transport
// failed) within its deadline, and a run against them ends (DESIGN: never hang).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>

#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "remote/remote_fixture.hpp"
#include "toolwire/actors/simulator.hpp"
#include "toolwire/conformance/http_client.hpp"
#include "toolwire/conformance/remote_host.hpp"
#include "toolwire/scenarios/scenario.hpp"

using namespace toolwire;
using namespace toolwire::remote_test;
using conformance::http_client;
using tcp = boost::asio::ip::tcp;

namespace {

namespace http = boost::beast::http;
using steady = std::chrono::steady_clock;
constexpr std::chrono::milliseconds deadline{300};

//! Reads one request from `socket` (the client sends it at once).
http::request<http::string_body> read_request(tcp::socket& socket) {
  boost::beast::flat_buffer buffer;
  http::request<http::string_body> request;
  boost::system::error_code ec;
  http::read(socket, buffer, request, ec);
  return request;
}

void write_raw(tcp::socket& socket, const std::string& bytes) {
  boost::system::error_code ec;
  boost::asio::write(socket, boost::asio::buffer(bytes), ec);
}

std::string json_answer(int status, const std::string& reason, const json& body) {
  const std::string text = body.dump();
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(text.size()) +
         "\r\n\r\n" + text;
}

protocol::api_request get(const std::string& path) {
  return {"GET", path, {}, std::nullopt, std::nullopt, "", {}};
}

std::string message_of(const protocol::api_response& response) {
  REQUIRE(conformance::is_transport_failure(response));
  CHECK(response.body["error"]["type"] == "transport");
  return response.body["error"].value("message", "");
}

//! The one response the director got, in the trace.
std::vector<actors::trace_record> records_of(const actors::trace& run, const std::string& kind) {
  std::vector<actors::trace_record> found;
  for (const auto& r : run.records()) {
    if (r.kind == kind) found.push_back(r);
  }
  return found;
}

conformance::target_profile profile_for(const conformance::host_port& target,
                                        const conformance::host_port& stand_in) {
  json doc = {{"name", "misbehaving"},
              {"base_url", "http://" + target.to_string()},
              {"api_key", "misbehaving-key-5d1e"},
              {"parts", {"A"}},
              {"model_stand_in", stand_in.to_string()},
              {"clock", "virtual"},
              {"request_timeout_ms", deadline.count()}};
  auto profile = conformance::parse_profile(doc.dump(), "misbehaving.json");
  REQUIRE(profile.ok());
  return *profile;
}

//! A one-second run with nothing but the director against `target`.
actors::run_result run_against(const conformance::host_port& target, const std::string& tag) {
  auto stand_in = conformance::model_stand_in::at({"127.0.0.1", 0});
  REQUIRE(stand_in.ok());
  auto host = conformance::remote_host::start(profile_for(target, (*stand_in)->address()), tag);
  REQUIRE(host.ok());
  scenarios::scenario plan;
  plan.name = "misbehaving_target";
  plan.duration = 1'000;
  actors::run_options options;
  options.host = host->get();
  options.message_tag = tag;
  auto result = actors::simulate(plan, options);
  REQUIRE(result.ok());
  return std::move(*result);
}

}  // namespace

TEST_CASE("A target that accepts but never answers", "[remote][transport]") {
  raw_target target([](tcp::socket& socket) {
    read_request(socket);
    return true;  // held: no answer, ever
  });
  http_client client(target.address(), deadline);
  const auto started = steady::now();
  const auto response = client.send(get("/v1/_test/clock"));
  CHECK(steady::now() - started < deadline * 4);
  CHECK(message_of(response) == "no answer within 300 ms");
  // A target that does not answer may have gone away: not a SPEC verdict (the runner's
  // verdict::error).
  CHECK(conformance::says_unreachable(response.body));

  SECTION("a run against it ends, its requests answered with transport failures") {
    const auto run_started = steady::now();
    auto run = run_against(target.address(), "[tw:silent] ");
    CHECK(steady::now() - run_started < std::chrono::seconds(10));
    const auto responses = records_of(run.trace, "response");
    REQUIRE_FALSE(responses.empty());
    CHECK(responses.front().data["status"] == 0);
    CHECK(responses.front().data["body"]["error"]["type"] == "transport");
  }
}

TEST_CASE("A target that answers garbage", "[remote][transport]") {
  raw_target target([](tcp::socket& socket) {
    read_request(socket);
    write_raw(socket, "this is not HTTP\r\n\r\n");
    return false;
  });
  http_client client(target.address(), deadline);
  const auto response = client.send(get("/v1/_test/clock"));
  CHECK(message_of(response).rfind("malformed HTTP answer: ", 0) == 0);
  CHECK_FALSE(conformance::says_unreachable(response.body));  // it answered, wrongly
}

TEST_CASE("A target that stops halfway through an answer", "[remote][transport]") {
  raw_target target([](tcp::socket& socket) {
    read_request(socket);
    write_raw(socket, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"now");
    return false;
  });
  http_client client(target.address(), deadline);
  const auto response = client.send(get("/v1/_test/clock"));
  CHECK(message_of(response) == "the target closed the connection in the middle of its answer");
  CHECK_FALSE(conformance::says_unreachable(response.body));  // a Content-Length it broke
}

TEST_CASE("A target that closes the connection before it answers", "[remote][transport]") {
  raw_target target([](tcp::socket& socket) {
    read_request(socket);
    return false;  // closed with nothing said, as a server that died does
  });
  http_client client(target.address(), deadline);
  const auto response = client.send(get("/v1/_test/clock"));
  CHECK(message_of(response) == "the target closed the connection without a complete answer");
  CHECK(conformance::says_unreachable(response.body));
}

TEST_CASE("A target that is not listening", "[remote][transport]") {
  conformance::host_port address;
  {
    raw_target gone([](tcp::socket&) { return false; });
    address = gone.address();
  }
  http_client client(address, deadline);
  const auto response = client.send(get("/v1/_test/clock"));
  CHECK(message_of(response).rfind("cannot connect to " + address.to_string() + ": ", 0) == 0);
  CHECK(conformance::says_unreachable(response.body));
}

TEST_CASE("A target named by a host name is reached through the resolver", "[remote][transport]") {
  // Why: a target at an address is connected to without the resolver (http_client.cpp);
  // a name must still be looked up, and the request must still name the host as given.
  raw_target target([](tcp::socket& socket) {
    auto request = read_request(socket);
    write_raw(socket, json_answer(200, "OK", {{"host", std::string(request[http::field::host])}}));
    return false;
  });
  http_client client({"localhost", target.address().port}, deadline);
  const auto response = client.send(get("/v1/_test/clock"));
  REQUIRE(response.status == 200);
  CHECK(response.body["host"] == "localhost:" + std::to_string(target.address().port));
}

TEST_CASE("A keep-alive connection the target closed is reopened once", "[remote][transport]") {
  std::atomic<int> connections{0};
  raw_target target([&](tcp::socket& socket) {
    ++connections;
    auto request = read_request(socket);
    // Answers as if the connection stayed open, then closes it anyway.
    write_raw(socket, json_answer(200, "OK", {{"path", std::string(request.target())}}));
    return false;
  });
  http_client client(target.address(), deadline);
  auto first = client.send(get("/first"));
  auto second = client.send(get("/second"));
  CHECK(first.status == 200);
  CHECK(first.body["path"] == "/first");
  REQUIRE(second.status == 200);
  CHECK(second.body["path"] == "/second");
  CHECK(connections == 2);
}

TEST_CASE("An answer maps onto api_response", "[remote][transport]") {
  raw_target target([](tcp::socket& socket) {
    auto request = read_request(socket);
    const json seen = {{"method", std::string(request.method_string())},
                       {"target", std::string(request.target())},
                       {"authorization", std::string(request[http::field::authorization])},
                       {"last_event_id", std::string(request["Last-Event-ID"])},
                       {"content_type", std::string(request[http::field::content_type])},
                       {"body", request.body()}};
    if (request.target() == "/text") {
      write_raw(socket,
                "HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, POST\r\n"
                "Content-Length: 5\r\nConnection: close\r\n\r\nnope!");
    } else {
      write_raw(socket, json_answer(201, "Created", seen));
    }
    return false;
  });
  http_client client(target.address(), deadline);
  protocol::api_request request{"POST",
                                "/v1/sessions/s1/clients",
                                {{"access_token", "a&b c"}},
                                std::string("tok"),
                                std::string("17"),
                                R"({"name":"web"})"};
  const auto response = client.send(request);
  REQUIRE(response.status == 201);
  CHECK(response.body["method"] == "POST");
  CHECK(response.body["target"] == "/v1/sessions/s1/clients?access_token=a%26b%20c");
  CHECK(response.body["authorization"] == "Bearer tok");
  CHECK(response.body["last_event_id"] == "17");
  CHECK(response.body["content_type"] == "application/json");
  CHECK(response.body["body"] == R"({"name":"web"})");

  const auto text = client.send(get("/text"));
  CHECK(text.status == 405);
  CHECK(text.allow == "GET, POST");
  CHECK(text.body == json("nope!"));
}

TEST_CASE("SES-3 an event stream that is malformed, then drops", "[remote][transport][sse]") {
  raw_target target([](tcp::socket& socket) {
    const auto request = read_request(socket);
    const std::string path(request.target());
    if (request.method() == http::verb::post && path == "/v1/sessions") {
      write_raw(socket, json_answer(201, "Created", {{"id", "s1"}, {"token", "tok-s1"}}));
    } else if (path == "/v1/sessions/s1/events") {
      write_raw(socket,
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                ": hello\n\nid: 1\nevent: turn_started\ndata: {\"turn_id\":\"t1\"}\n\n"
                "id: two\nevent: turn_completed\ndata: {}\n\n");
    } else if (path == "/v1/_test/clock/advance") {
      write_raw(socket, json_answer(200, "OK", {{"now_ms", 1}}));
    } else {
      write_raw(socket, json_answer(404, "Not Found", {{"error", {{"type", "not_found"}}}}));
    }
    return false;  // closing: the stream drops right after its events
  });
  auto run = run_against(target.address(), "[tw:drops] ");
  const auto events = records_of(run.trace, "event");
  REQUIRE(events.size() == 1);
  CHECK(events[0].actor == "target");
  CHECK(
      events[0].data ==
      json{{"session", "s1"}, {"seq", 1}, {"type", "turn_started"}, {"data", {{"turn_id", "t1"}}}});
  // The run's own stream reports; so does any participant's stream of the session.
  std::vector<actors::trace_record> errors;
  for (const auto& r : records_of(run.trace, "transport_error")) {
    if (r.data["stream"] == "run") errors.push_back(r);
  }
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].data["what"] ==
        "malformed SSE on the events of session s1: turn_completed event: the id is not a "
        "non-negative integer: two");
  CHECK(errors[1].data["what"] ==
        "the event stream of session s1 ended: the target ended the response");
  CHECK(run.trace.to_jsonl().find("misbehaving-key-5d1e") == std::string::npos);
}
