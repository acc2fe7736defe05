// Tests for error codes: HTTP statuses, wire names and the C-2 error body.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "toolwire/protocol/error.hpp"

using namespace toolwire::protocol;
using nlohmann::json;

TEST_CASE("C-2 every error code has its HTTP status and wire name", "[error]") {
  const auto [code, status, name] = GENERATE(table<error_code, int, std::string>({
      {error_code::invalid_request, 400, "invalid_request"},
      {error_code::unauthenticated, 401, "unauthenticated"},
      {error_code::forbidden, 403, "forbidden"},
      {error_code::not_found, 404, "not_found"},
      {error_code::method_not_allowed, 405, "method_not_allowed"},
      {error_code::conflict, 409, "conflict"},
      {error_code::payload_too_large, 413, "payload_too_large"},
      {error_code::internal, 500, "internal_error"},
      {error_code::unavailable, 503, "unavailable"},
  }));
  CAPTURE(name);
  CHECK(http_status(code) == status);
  CHECK(to_string(code) == name);
}

TEST_CASE("C-2 helper constructors set the code and keep the message", "[error]") {
  CHECK(invalid_request("a") == api_error{error_code::invalid_request, "a"});
  CHECK(not_found("b") == api_error{error_code::not_found, "b"});
  CHECK(conflict("c") == api_error{error_code::conflict, "c"});
  CHECK(forbidden("d") == api_error{error_code::forbidden, "d"});
  CHECK(unauthenticated("e") == api_error{error_code::unauthenticated, "e"});
  CHECK_FALSE(invalid_request("a") == invalid_request("b"));
  CHECK_FALSE(invalid_request("a") == conflict("a"));
}

TEST_CASE("C-2 an error body is {error: {type, message}}", "[error]") {
  SECTION("C-2 a conflict") {
    CHECK(to_json(conflict("call already settled")) ==
          json::parse(R"({"error": {"type": "conflict", "message": "call already settled"}})"));
  }
  SECTION("C-2 the internal code goes out as internal_error") {
    const auto body = to_json(api_error{error_code::internal, "boom"});
    CHECK(body.at("error").at("type") == "internal_error");
    CHECK(body.at("error").at("message") == "boom");
    CHECK(body.size() == 1);
    CHECK(body.at("error").size() == 2);
  }
  SECTION("C-2 the message is carried verbatim, including quotes and non-ASCII text") {
    const std::string message = "tools: duplicate tool name 'x' at tools[3] (REG-3) \"日本\"";
    CHECK(to_json(invalid_request(message)).at("error").at("message") == message);
    CHECK(json::parse(to_json(invalid_request(message)).dump()).at("error").at("message") ==
          message);
  }
}
