// One HTTP/1.1 connection: reads requests, hands them to the server, writes the answers.
#include "toolwire/reference_server/web/http_session.hpp"

#include <string_view>
#include <utility>

#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/message_generator.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/reference_server/router.hpp"
#include "toolwire/reference_server/web/api_translation.hpp"

namespace toolwire::reference_server::web {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// Why these bounds: a client that sent an oversized body gets some time to finish
// sending it (so our 413 is read, not reset), but not forever and not unboundedly.
constexpr std::chrono::seconds linger_timeout{5};
constexpr std::size_t max_linger_bytes = 64u << 20;
constexpr std::size_t linger_chunk = 64u << 10;

constexpr std::string_view continue_line = "HTTP/1.1 100 Continue\r\n\r\n";

bool is_http_error(const beast::error_code& ec) {
  return ec.category() == make_error_code(http::error::bad_method).category();
}

std::string or_dash(std::string_view text) {
  return text.empty() ? "-" : std::string(text);
}

}  // namespace

http_session::http_session(served_socket socket, request_handler& handler,
                           std::chrono::milliseconds idle_timeout,
                           std::chrono::milliseconds write_timeout)
    : stream_(std::move(socket)),
      handler_(handler),
      idle_timeout_(idle_timeout),
      write_timeout_(write_timeout),
      watchdog_(stream_.get_executor(), std::chrono::steady_clock::time_point::max()),
      handling_timer_(stream_.get_executor()) {}

void http_session::run() {
  do_read();
}

void http_session::refuse_busy() {
  protocol::api_error busy{protocol::error_code::unavailable,
                           "too many connections; try again later"};
  handler_.log("refused a connection: over the connection cap (503)");
  do_write(error_response(busy.code, std::move(busy.message), 11), false);
}

void http_session::close() {
  if (handed_over_ || closed_) return;
  closed_ = true;
  handling_timer_.cancel();
  watchdog_.cancel();
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.close();
}

void http_session::do_read() {
  // A fresh parser per request: Beast parsers are single-use.
  parser_.emplace();
  parser_->body_limit(reference_server::max_body_bytes);
  read_deadline_ = std::chrono::steady_clock::now() + idle_timeout_;
  expire_at(read_deadline_);
  http::async_read_header(
      stream_, buffer_, *parser_,
      beast::bind_front_handler(&http_session::on_read_header, shared_from_this()));
}

void http_session::on_read_header(beast::error_code ec, std::size_t /*bytes*/) {
  if (ec) return on_read_error(ec);
  const auto& request = parser_->get();
  // Why before the body: a request with a forbidden framing (smuggling) has no body we
  // could trust to read, so the connection ends here.
  if (auto error = header_error(request.base())) return answer_error(std::move(*error));
  // Why: clients such as curl wait for "100 Continue" before sending a large body.
  if (!parser_->is_done() && beast::iequals(request[http::field::expect], "100-continue")) {
    expire_at(std::chrono::steady_clock::now() + write_timeout_);
    net::async_write(
        stream_, net::buffer(continue_line.data(), continue_line.size()),
        beast::bind_front_handler(&http_session::on_continue_sent, shared_from_this()));
    return;
  }
  // Why: a request without a body (a ping, a GET) is whole with its header; reading "the
  // rest" would be one more composed operation and deadline timer for every such request.
  if (parser_->is_done()) return on_read({}, 0);
  do_read_body();
}

void http_session::on_continue_sent(beast::error_code ec, std::size_t /*bytes*/) {
  if (ec) return close();
  do_read_body();
}

void http_session::do_read_body() {
  expire_at(read_deadline_);  // the request's deadline, not a fresh one
  http::async_read(stream_, buffer_, *parser_,
                   beast::bind_front_handler(&http_session::on_read, shared_from_this()));
}

void http_session::on_read(beast::error_code ec, std::size_t /*bytes*/) {
  if (ec) return on_read_error(ec);
  // Nothing is pending on the socket until the answer is written: a slow server's wait
  // (handling_delay) is not the client's to time out.
  deadline_ = std::chrono::steady_clock::time_point::max();
  const auto delay = handler_.handling_delay();
  if (delay.count() <= 0) return answer();
  handling_timer_.expires_after(delay);
  handling_timer_.async_wait([self = shared_from_this()](beast::error_code waited) {
    if (waited || self->closed_) return;
    self->answer();
  });
}

void http_session::on_read_error(beast::error_code ec) {
  if (closed_) return;
  if (ec == http::error::end_of_stream || ec == http::error::partial_message ||
      !is_http_error(ec)) {
    return close();  // the client left, timed out or reset: nobody to answer
  }
  if (ec == http::error::body_limit) {
    return answer_error(
        {protocol::error_code::payload_too_large,
         "request body exceeds " + std::to_string(reference_server::max_body_bytes) + " bytes"});
  }
  answer_error(protocol::invalid_request("malformed HTTP request: " + ec.message()));
}

void http_session::answer_error(protocol::api_error error) {
  const unsigned status = static_cast<unsigned>(protocol::http_status(error.code));
  const auto& request = parser_->get();
  log_request(request.method_string(), request.target(), status);
  do_write(error_response(error.code, std::move(error.message), 11), false);
}

void http_session::answer() {
  try {
    answer_unguarded();
  } catch (const std::exception&) {
    // Why not log what(): it may quote the request. The connection closes: what was
    // half-done on it is unknown.
    if (handed_over_) return handler_.log("internal error while opening an event stream");
    handler_.log("internal error while answering a request");
    do_write(error_response(protocol::error_code::internal,
                            "internal error in the reference server", 11),
             false);
  }
}

void http_session::answer_unguarded() {
  auto request = parser_->release();
  if (request.method() == http::verb::get) {
    if (auto page = handler_.page(path_of(request.target()), request.version())) {
      log_request(request.method_string(), request.target(), 200);
      page->keep_alive(request.keep_alive());
      const bool keep_alive = page->keep_alive();
      do_write(std::move(*page), keep_alive);
      return;
    }
  }
  const protocol::api_response response = handler_.handle(to_api_request(request));
  log_request(request.method_string(), request.target(), static_cast<unsigned>(response.status));
  if (response.stream && response.status == 200) {
    // The SSE session owns the socket from here on; this object ends with this call.
    handed_over_ = true;
    watchdog_.cancel();  // the SSE session keeps its own deadlines
    auto directive = *response.stream;
    directive.cors = response.cors;
    handler_.open_stream(std::move(stream_), std::move(directive));
    return;
  }
  auto message = to_http_response(response, request.version(), request.keep_alive());
  handler_.finish(message);
  const bool keep_alive = message.keep_alive();
  do_write(std::move(message), keep_alive);
}

void http_session::do_write(http_response message, bool keep_alive) {
  expire_at(std::chrono::steady_clock::now() + write_timeout_);
  auto written = beast::bind_front_handler(&http_session::on_write, shared_from_this(), keep_alive);
  if (wire_bytes(message, out_)) {  // the connection's last answer left its room in out_
    net::async_write(stream_, net::buffer(out_), std::move(written));
    return;
  }
  beast::async_write(stream_, http::message_generator(std::move(message)), std::move(written));
}

void http_session::on_write(bool keep_alive, beast::error_code ec, std::size_t /*bytes*/) {
  if (closed_) return;
  if (ec) return close();
  if (!keep_alive) return do_linger();
  do_read();
}

void http_session::do_linger() {
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  linger_buffer_.resize(linger_chunk);
  expire_at(std::chrono::steady_clock::now() + linger_timeout);
  stream_.async_read_some(net::buffer(linger_buffer_),
                          beast::bind_front_handler(&http_session::on_linger, shared_from_this()));
}

void http_session::on_linger(beast::error_code ec, std::size_t bytes) {
  if (closed_) return;
  lingered_bytes_ += bytes;
  if (ec || lingered_bytes_ > max_linger_bytes) return close();
  stream_.async_read_some(net::buffer(linger_buffer_),
                          beast::bind_front_handler(&http_session::on_linger, shared_from_this()));
}

void http_session::expire_at(std::chrono::steady_clock::time_point deadline) {
  deadline_ = deadline;
  // Only a deadline shorter than the watchdog's period (lingering) moves its wake-up.
  if (deadline < watchdog_.expiry()) watch(deadline);
}

void http_session::watch(std::chrono::steady_clock::time_point at) {
  watchdog_.expires_at(at);  // a wait already pending ends with operation_aborted
  watchdog_.async_wait(beast::bind_front_handler(&http_session::on_watchdog, shared_from_this()));
}

void http_session::on_watchdog(beast::error_code ec) {
  if (ec || closed_ || handed_over_) return;  // moved, cancelled, or no longer ours
  const auto now = std::chrono::steady_clock::now();
  // As Beast's timeout did: the socket closes and the pending operation ends with an error.
  if (now >= deadline_) return close();
  watch(std::min(deadline_, now + std::min(idle_timeout_, write_timeout_)));
}

void http_session::log_request(std::string_view method, std::string_view target, unsigned status) {
  if (!handler_.logs_requests()) return;
  // Why escaped: a malformed request's method or path may hold any byte.
  handler_.log(or_dash(protocol::escape_bytes(method)) + " " +
               or_dash(protocol::escape_bytes(path_of(target))) + " " + std::to_string(status));
}

}  // namespace toolwire::reference_server::web
