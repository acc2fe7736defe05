// Fuzz harness: raw bytes of one keep-alive connection into the reference server's request
// path, without a socket: Beast's request parser (the server's limits), header_error once
// the header is in, to_api_request, router::handle, the core's outputs, and the answer
// serialised as the server sends it.
//
// Before the input, a session (`ses_1`) with one client (`cli_1`, tool `web__read`)
// exists, and every model step is answered with a call to that tool, then with text, so
// inputs can reach acks, results, events and tasks with the API key `fuzz-key`.
// An exception escaping the router is a finding: the server turns it into a 500, but
// every input deserves a 4xx at worst. So is a 500 from the router, or an internal error
// the core reports while draining: the core undoes a command that throws and answers 500,
// which keeps the server up but is a bug all the same (printed, then abort()).
// Events and model step bodies are serialised with invalid UTF-8 replaced (the writers'
// choice, not this harness's), so what is checked there is only that serialising them
// cannot overflow the stack; the answer itself is serialised exactly as the server does
// it (to_http_response).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "toolwire/protocol/codec.hpp"
#include "toolwire/reference_server/core.hpp"
#include "toolwire/reference_server/router.hpp"
#include "toolwire/reference_server/virtual_clock.hpp"
#include "toolwire/reference_server/web/api_translation.hpp"

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace reference_server = toolwire::reference_server;
namespace protocol = toolwire::protocol;
namespace web = toolwire::reference_server::web;
using protocol::json;

constexpr const char* api_key = "fuzz-key";

std::string serialise(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

struct server {
  reference_server::core core{config()};
  reference_server::virtual_clock clock{1'700'000'000'000};
  reference_server::router router{core, clock};
  int model_steps = 0;

  static reference_server::core_config config() {
    reference_server::core_config c;
    c.api_keys = {{api_key, {reference_server::scope_session_manage}}, {"fuzz-reader", {}}};
    c.secret_seed = 7;
    return c;
  }

  protocol::api_response handle(const protocol::api_request& request) {
    auto response = router.handle(request);
    if (response.status == 500) found("a 500 answer: " + serialise(response.body));
    drain();
    return response;
  }

  [[noreturn]] static void found(const std::string& what) {
    std::fprintf(stderr, "fuzz_http_request: %s\n", what.c_str());
    std::abort();
  }

  //! What the server does with the core's outputs: streams the events (as JSON text) and
  //! sends every model step's body to the model, whose answer comes straight back.
  void drain() {
    for (int round = 0; round < 8; ++round) {
      auto outputs = core.drain();
      for (const auto& error : outputs.internal_errors)
        found("an internal error: " + error);
      for (const auto& event : outputs.events)
        (void)serialise(event.data);
      if (outputs.model_steps.empty()) return;
      for (const auto& step : outputs.model_steps) {
        (void)serialise(step.body());
        protocol::model_answer answer;
        if (model_steps++ % 2 == 0) {
          answer.tool_calls.push_back(
              {"call_" + std::to_string(model_steps), "web__read", R"({"q":"x"})"});
        } else {
          answer.text = "done";
        }
        core.model_replied(step.step_id, {answer, {}}, clock.now());
      }
    }
  }

  protocol::api_response request(std::string method, std::string path, json body) {
    protocol::api_request r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.credential = api_key;
    r.body = body.is_null() ? "" : body.dump();
    return handle(r);
  }
};

//! One request read as the connection reads it; false when the connection ends.
bool serve_one(server& s, beast::flat_buffer& buffer) {
  http::request_parser<http::string_body> parser;
  parser.body_limit(reference_server::max_body_bytes);
  parser.eager(true);
  beast::error_code ec;
  bool header_checked = false;
  while (!parser.is_done()) {
    const std::size_t used = parser.put(buffer.data(), ec);
    buffer.consume(used);
    if (ec == http::error::need_more) ec = {};
    if (ec) {
      // As http_session::on_read_error: 413 or 400, then the connection closes.
      const auto code = ec == http::error::body_limit ? protocol::error_code::payload_too_large
                                                      : protocol::error_code::invalid_request;
      (void)web::error_response(code, "malformed HTTP request: " + ec.message(), 11);
      return false;
    }
    // As http_session::on_read_header: the header is judged before the body is read, and a
    // refused one (framing, UTF-8, Host) is answered and ends the connection.
    if (parser.is_header_done() && !header_checked) {
      header_checked = true;
      if (auto error = web::header_error(parser.get().base())) {
        (void)web::error_response(error->code, error->message, 11);
        return false;
      }
    }
    // No progress: every byte is in, so the client left mid-request; nobody to answer.
    if (used == 0 && !parser.is_done()) return false;
  }
  auto request = parser.release();
  const auto response = s.handle(web::to_api_request(request));
  if (response.stream && response.status == 200) {
    // The SSE session writes the retained events after the directive's seq.
    const auto window =
        s.core.events_after(response.stream->session_id, response.stream->after_seq);
    for (const auto& event : window.events)
      (void)serialise(event.data);
    return false;  // the socket now belongs to the stream
  }
  (void)web::to_http_response(response, request.version(), request.keep_alive());
  return request.keep_alive();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  server s;
  s.request("POST", "/v1/sessions", json::object());
  s.request("POST", "/v1/sessions/ses_1/clients",
            {{"name", "web"},
             {"lifetime", {{"type", "never"}}},
             {"tools", json::array({{{"name", "read"},
                                     {"description", "reads"},
                                     {"parameters", {{"type", "object"}}}}})}});
  beast::flat_buffer buffer;
  auto space = buffer.prepare(size);
  if (size > 0) std::memcpy(space.data(), data, size);
  buffer.commit(size);
  while (buffer.size() > 0 && serve_one(s, buffer)) {
  }
  return 0;
}
