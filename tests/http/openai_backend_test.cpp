// The OpenAI-compatible model backend against a refused port and a tiny in-test model.
#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>

#include "fake_model_server.hpp"
#include "http_test_client.hpp"
#include "support/eventually.hpp"
#include "test_server.hpp"
#include "toolwire/protocol/codec.hpp"
#include "toolwire/reference_server/web/http_url.hpp"
#include "toolwire/reference_server/web/openai_call.hpp"

using namespace toolwire::test;

namespace {

//! A port on which nothing listens: bound, then released.
unsigned short closed_port() {
  boost::asio::io_context ioc;
  tcp::acceptor acceptor(ioc, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

//! Opens a session and its stream, sends `content`, and returns the turn's events up to
//! its end (`turn_completed` or `turn_failed`).
std::vector<sse_event> run_turn(const test_server& server, const std::string& content,
                                std::string_view last = "turn_completed") {
  const auto session = server.create_session();
  const std::string base = "/v1/sessions/" + session.id;
  sse_stream stream(server.endpoint(), base + "/events", session.token);
  REQUIRE(stream.reply().status == 200);
  REQUIRE(request_json(server.endpoint(), "POST", base + "/messages", {{"content", content}},
                       session.token)
              .status == 202);
  auto events = stream.until(last);
  return events;
}

std::string turn_failure(const test_server& server) {
  auto events = run_turn(server, "hello", "turn_failed");
  return events.back().data.at("reason").get<std::string>();
}

}  // namespace

TEST_CASE("OpenAI-compatible model backend", "[http][model]") {
  SECTION("MODEL-4 a model URL that refuses connections fails the turn") {
    test_server_options options;
    options.model_url = "http://127.0.0.1:" + std::to_string(closed_port()) + "/v1";
    test_server server(options);
    const std::string reason = turn_failure(server);
    CHECK_THAT(reason, Catch::StartsWith("model_error"));
    CHECK_THAT(reason, Catch::Contains("cannot connect"));
  }
  SECTION("MODEL-1 MODEL-2 MODEL-3 a turn against an HTTP model") {
    fake_model_server model([](const model_request&) {
      return model_answer_spec{200, completion_text("hello from the model")};
    });
    test_server_options options;
    options.model_url = model.base_url();
    options.model_api_key = "model-secret";
    test_server server(options);
    auto events = run_turn(server, "say hello, case 17");
    CHECK(events.back().data["output"] == "hello from the model");
    const auto seen = model.requests();
    REQUIRE(seen.size() == 1);
    CHECK(seen[0].method == "POST");
    CHECK(seen[0].target == "/v1/chat/completions");
    CHECK(seen[0].authorization == "Bearer model-secret");
    REQUIRE(seen[0].body.is_object());
    CHECK(seen[0].body.contains("model"));
    bool user_message_unchanged = false;
    for (const auto& message : seen[0].body["messages"]) {
      if (message["role"] == "user" && message["content"] == "say hello, case 17") {
        user_message_unchanged = true;
      }
    }
    CHECK(user_message_unchanged);
    for (const auto& line : server.log_lines())
      CHECK(line.find("model-secret") == std::string::npos);
  }
  SECTION("CALL-8 a tool result reaches the HTTP model as a tool message") {
    fake_model_server model([](const model_request& request) {
      toolwire::protocol::model_answer answer;
      if (request.body["messages"].back()["role"] == "tool") {
        answer.text = "got " + request.body["messages"].back()["content"].get<std::string>();
      } else {
        answer.tool_calls.push_back({"call_a", "web__read_form", R"({"field":"name"})"});
      }
      return model_answer_spec{200, toolwire::protocol::to_chat_completion(answer).dump()};
    });
    test_server_options options;
    options.model_url = model.base_url();
    test_server server(options);
    const auto session = server.create_session();
    const std::string base = "/v1/sessions/" + session.id;
    sse_stream stream(server.endpoint(), base + "/events", session.token);
    auto registered = request_json(server.endpoint(), "POST", base + "/clients",
                                   client_body("web", {"read_form"}), session.token);
    REQUIRE(registered.status == 201);
    const std::string client_id = registered.json_body().at("client_id");
    REQUIRE(request_json(server.endpoint(), "POST", base + "/messages", {{"content", "go"}},
                         session.token)
                .status == 202);
    const std::string call_id = stream.until("client_tool_dispatched").back().data["call_id"];
    REQUIRE(request_json(server.endpoint(), "POST",
                         base + "/clients/" + client_id + "/calls/" + call_id + "/result",
                         {{"content", "Ada"}}, session.token)
                .status == 200);
    auto events = stream.until("turn_completed");
    CHECK(events.back().data["output"] == "got Ada");
    const auto seen = model.requests();
    REQUIRE(seen.size() == 2);
    const json& tool_message = seen[1].body["messages"].back();
    CHECK(tool_message["role"] == "tool");
    CHECK(tool_message["tool_call_id"] == "call_a");
    CHECK(tool_message["content"] == "Ada");  // a string result reaches the model as itself
  }
  SECTION("MODEL-4 a failing model endpoint fails the turn and says why") {
    auto [status, body, expected] = GENERATE(table<int, std::string, std::string>({
        {500, R"({"error": "overloaded"})", "HTTP 500"},
        {200, "this is not json", "malformed JSON"},
        {200, R"({"choices": []})", "malformed chat completion"},
    }));
    CAPTURE(status, body);
    fake_model_server model([status = status, body = body](const model_request&) {
      return model_answer_spec{status, body};
    });
    test_server_options options;
    options.model_url = model.base_url();
    test_server server(options);
    const std::string reason = turn_failure(server);
    CHECK_THAT(reason, Catch::StartsWith("model_error"));
    CHECK_THAT(reason, Catch::Contains(expected));
  }
  SECTION("MODEL-4 a model that never answers fails the turn at the request timeout") {
    fake_model_server model([](const model_request&) { return model_answer_spec{200, {}, true}; });
    test_server_options options;
    options.model_url = model.base_url();
    options.model_timeout = 100ms;
    test_server server(options);
    const std::string reason = turn_failure(server);
    CHECK_THAT(reason, Catch::Contains("did not answer within 100 ms"));
  }
}

TEST_CASE("A model request to an address is written before the step's start returns",
          "[http][model]") {
  // Why it matters: the server answers the request that started a step after starting it,
  // and a harness on a virtual clock reads the model's sockets once that answer came; a
  // step the target took early must be there by then (explore, CALL-9).
  boost::asio::io_context ioc;
  tcp::acceptor model(ioc, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
  model.non_blocking(true);
  toolwire::reference_server::web::openai_config config;
  auto url = toolwire::reference_server::web::parse_http_url(
      "http://127.0.0.1:" + std::to_string(model.local_endpoint().port()) + "/v1");
  REQUIRE(url.ok());
  config.url = *url;
  const std::string body = R"({"model":"m","messages":[{"role":"user","content":"hi"}]})";
  bool done = false;
  auto call = std::make_shared<toolwire::reference_server::web::openai_call>(
      ioc, config, body, [&](toolwire::reference_server::model_reply) { done = true; });
  call->run();  // the I/O context never runs: what is on the socket was written by run()

  // Asked until delivered (eventually); without the write in run(), nothing would ever come.
  boost::system::error_code ec;
  tcp::socket accepted(ioc);
  toolwire::testing::eventually([&] {
    accepted = model.accept(ec);
    return ec != boost::asio::error::would_block;
  });
  REQUIRE_FALSE(ec);  // the connection was made, not only begun
  std::string received;
  toolwire::testing::eventually([&] {
    std::string more(accepted.available(), '\0');
    boost::asio::read(accepted, boost::asio::buffer(more));
    received += more;
    return received.ends_with(body);
  });
  CHECK_THAT(received, Catch::StartsWith("POST /v1/chat/completions HTTP/1.1\r\n"));
  CHECK_THAT(received, Catch::EndsWith("\r\n\r\n" + body));
  call->abandon();
  CHECK_FALSE(done);
}
