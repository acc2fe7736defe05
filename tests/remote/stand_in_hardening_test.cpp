// The model stand-in under hostile model requests (issue 10): bounded bodies and nesting,
// and a handler that throws costs only its own request.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "toolwire/conformance/http_client.hpp"
#include "toolwire/conformance/model_stand_in.hpp"
#include "toolwire/conformance/outside_data.hpp"

using namespace toolwire;
using namespace toolwire::conformance;

namespace {

constexpr std::chrono::milliseconds deadline{2'000};

std::string chat_body(const std::string& user_text) {
  return json{{"model", "m"},
              {"messages", json::array({{{"role", "user"}, {"content", user_text}}})},
              {"tools", json::array()}}
      .dump();
}

protocol::api_response post(http_client& client, const std::string& body) {
  return client.send({"POST", "/v1/chat/completions", {}, std::nullopt, std::nullopt, body});
}

}  // namespace

TEST_CASE("The stand-in refuses oversized, deep and non-UTF-8 model requests",
          "[remote][stand_in][hostile]") {
  auto stand_in = model_stand_in::at({"127.0.0.1", 0}, deadline);
  REQUIRE(stand_in.ok());
  (*stand_in)->add_route("[tw:ok] ", [](json, model_stand_in::respond_fn respond) {
    respond(200, json{{"run", "ok"}}.dump());
  });
  http_client client((*stand_in)->address(), deadline);

  const auto big = post(client, chat_body("[tw:ok] " + std::string(max_body_bytes, 'x')));
  // 413, or a reset when the stand-in closed before the client finished sending.
  CHECK((big.status == 413 || is_transport_failure(big)));
  const auto deep =
      post(client, "{\"messages\": " + std::string(1000, '[') + std::string(1000, ']') + "}");
  CHECK(deep.status == 400);
  CHECK(deep.body["error"]["message"] == "the model request's JSON nests deeper than 128 levels");
  const auto raw = post(client, "{\"messages\": [{\"role\": \"user\", \"content\": \"\xFF\"}]}");
  CHECK(raw.status == 400);
  CHECK(raw.body["error"]["message"] == "the model request's body is not valid UTF-8 (offset 43)");
  // and it goes on serving
  const auto fine = post(client, chat_body("[tw:ok] hello"));
  CHECK(fine.status == 200);
  CHECK(fine.body["run"] == "ok");
}

TEST_CASE("A route that throws gets its request a 500; the stand-in goes on",
          "[remote][stand_in][hostile]") {
  auto stand_in = model_stand_in::at({"127.0.0.1", 0}, deadline);
  REQUIRE(stand_in.ok());
  (*stand_in)->add_route("[tw:bad] ", [](json, model_stand_in::respond_fn) {
    throw std::runtime_error("a route that breaks \xFF");
  });
  (*stand_in)->add_route("[tw:ok] ", [](json, model_stand_in::respond_fn respond) {
    respond(200, json{{"run", "ok"}}.dump());
  });
  http_client client((*stand_in)->address(), deadline);
  const auto broken = post(client, chat_body("[tw:bad] hello"));
  CHECK(broken.status == 500);
  CHECK(broken.body["error"]["message"] ==
        "the model stand-in failed on this request: a route that breaks \\xFF");
  CHECK(post(client, chat_body("[tw:ok] hello")).status == 200);
}
