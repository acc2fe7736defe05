// Strict HTTP/1.1 in the suite's client (RFC 9112 6.3): framing it cannot trust is a
// transport error with evidence, never a guess.
#include <catch2/catch.hpp>

#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "remote/remote_fixture.hpp"
#include "toolwire/conformance/http_client.hpp"

using namespace toolwire;
using namespace toolwire::remote_test;
using tcp = boost::asio::ip::tcp;

namespace {

namespace http = boost::beast::http;

//! A target that answers every request with `head` + "\r\n\r\n" + `body`, then closes.
raw_target answering(std::string head, std::string body) {
  return raw_target([head = std::move(head), body = std::move(body)](tcp::socket& socket) {
    boost::beast::flat_buffer buffer;
    http::request<http::string_body> request;
    boost::system::error_code ec;
    http::read(socket, buffer, request, ec);
    boost::asio::write(socket, boost::asio::buffer(head + "\r\n\r\n" + body), ec);
    return false;
  });
}

protocol::api_response get_from(const raw_target& target) {
  conformance::http_client client(target.address(), std::chrono::milliseconds(500));
  return client.send({"GET", "/v1/_test/clock", {}, std::nullopt, std::nullopt, "", {}});
}

}  // namespace

TEST_CASE("Transfer-Encoding must end in chunked", "[remote][strict_http]") {
  const auto [codings, accepted] = GENERATE(table<std::string, bool>({
      {"chunked", true},
      {"gzip, chunked", false},  // chunked last, but the suite decodes no other coding
      {"identity", false},
      {"gzip", false},
      {"chunked, identity", false},
  }));
  CAPTURE(codings);
  const auto target = answering(
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: " + codings +
          "\r\nConnection: close",
      "d\r\n{\"now_ms\": 1}\r\n0\r\n\r\n");
  const auto response = get_from(target);
  if (accepted) {
    CHECK(response.status == 200);
    CHECK(response.body["now_ms"] == 1);
  } else {
    REQUIRE(conformance::is_transport_failure(response));
    CHECK(
        response.body["error"]["message"].get<std::string>().starts_with("malformed HTTP answer"));
  }
}

TEST_CASE("Transfer-Encoding with Content-Length is refused", "[remote][strict_http]") {
  const auto head = GENERATE(as<std::string>{},
                             "HTTP/1.1 200 OK\r\nContent-Length: 13\r\nTransfer-Encoding: chunked",
                             "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 13");
  const auto target =
      answering(head + "\r\nConnection: close", "d\r\n{\"now_ms\": 1}\r\n0\r\n\r\n");
  const auto response = get_from(target);
  REQUIRE(conformance::is_transport_failure(response));
  CHECK(response.body["error"]["message"].get<std::string>().starts_with("malformed HTTP answer"));
}
