// One SSE connection: connect, send the GET, read the header, then read blocks until closed.
#include "event_stream.hpp"

#include <charconv>

#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "socket_counters.hpp"
#include "strict_http.hpp"
#include "toolwire/conformance/http_client.hpp"
#include "toolwire/conformance/outside_data.hpp"

namespace toolwire::conformance::detail {

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// Why: a non-200 answer is an error document; anything larger is not worth keeping.
constexpr std::size_t max_error_body = 1u << 20;

std::uint64_t seq_of(const std::optional<std::string>& last_event_id) {
  std::uint64_t value = 0;
  if (!last_event_id) return 0;
  const auto& text = *last_event_id;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc{} && end == text.data() + text.size() ? value : 0;
}

bool is_event_stream(const http::response_parser<http::buffer_body>& parser) {
  const auto type = parser.get()[http::field::content_type];
  return type.substr(0, std::string_view("text/event-stream").size()) == "text/event-stream";
}

}  // namespace

event_stream::event_stream(net::io_context& ioc, stream_settings settings, std::uint64_t id,
                           std::string session_id, std::shared_ptr<arrivals> inbox)
    : settings_(std::move(settings)),
      id_(id),
      session_id_(std::move(session_id)),
      inbox_(std::move(inbox)),
      stream_(ioc) {
  // Why no limit: an event stream's body never ends; the SSE parser bounds its lines.
  parser_.body_limit(boost::none);
}

void event_stream::open(const protocol::api_request& request, opened_handler opened) {
  opened_ = std::move(opened);
  request_ = to_beast(request, settings_.server);
  request_.set(http::field::accept, "text/event-stream");
  request_.keep_alive(false);
  after_seq_ = seq_of(request.last_event_id);
  stream_.expires_after(settings_.open_timeout);
  stream_.async_connect(settings_.endpoints,
                        [self = shared_from_this()](beast::error_code ec, const tcp::endpoint&) {
                          self->on_connect(ec);
                        });
}

void event_stream::close() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    self->closed_ = true;
    self->publish();
    beast::error_code ignored;
    self->stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    self->stream_.close();
  });
}

bool event_stream::has_unread() {
  if (closed_ || !stream_.socket().is_open()) return false;
  beast::error_code ec;
  const std::size_t on_socket = stream_.socket().available(ec);
  return (!ec && on_socket > 0) || holds_part();
}

bool event_stream::holds_part() const {
  // Why not a chunked body's buffer: beast keeps a chunk's closing CRLF there until the
  // next chunk's header comes, so it would never read as empty.
  const bool buffered = buffer_.size() > 0 && !parser_.chunked();
  return buffered || sse_.mid_block();
}

std::optional<bool> event_stream::has_unread_from_any_thread() const {
  constexpr std::uint64_t closed = 1, holds_part = 2;
  if (published_.load() & closed) return false;
  const int fd = socket_fd_.load();
  if (fd < 0) return std::nullopt;
  const auto received = bytes_received(fd);
  if (!received) return std::nullopt;
  // Read after the kernel's count: taken then covers every byte counted, or some are unread.
  // Why closed again: the stream is marked closed before its socket closes, so a socket
  // number reused meanwhile by another connection is never read as this stream's.
  const auto state = published_.load();
  if (state & closed) return false;
  return *received > (state >> 2) || (state & holds_part) != 0;
}

void event_stream::publish() {
  const std::uint64_t taken = parsed_bytes_ + buffer_.size();
  published_.store(taken << 2 | std::uint64_t{holds_part()} << 1 | std::uint64_t{closed_});
}

void event_stream::on_connect(beast::error_code ec) {
  if (ec) return fail_open("cannot connect to " + settings_.server.to_string(), ec);
  socket_fd_.store(stream_.socket().native_handle());
  http::async_write(
      stream_, request_,
      [self = shared_from_this()](beast::error_code e, std::size_t) { self->on_write(e); });
}

void event_stream::on_write(beast::error_code ec) {
  if (ec) return fail_open("cannot send the events request", ec);
  http::async_read_header(
      stream_, buffer_, parser_,
      [self = shared_from_this()](beast::error_code e, std::size_t n) { self->on_header(e, n); });
}

void event_stream::on_header(beast::error_code ec, std::size_t parsed) {
  if (ec) return fail_open("no answer header to the events request", ec);
  parsed_bytes_ += parsed;
  if (auto problem = framing_problem(parser_.get().base())) {
    finish_open(transport_failure("malformed HTTP answer to the events request: " + *problem));
    return stop("");
  }
  const int status = static_cast<int>(parser_.get().result_int());
  if (status != 200) return read_body();
  if (!is_event_stream(parser_)) {
    const std::string type = safe_excerpt(parser_.get()[http::field::content_type], 80);
    finish_open(transport_failure("the events route answered 200 with Content-Type '" + type +
                                  "', not text/event-stream (SES-3)"));
    return stop("");
  }
  protocol::api_response response;
  response.status = 200;
  response.body = json(nullptr);
  response.stream = protocol::stream_directive{session_id_, after_seq_, {}};
  response.cors = cors_fields(parser_.get());
  publish();
  finish_open(std::move(response));
  read_events();
}

void event_stream::reset_chunk() {
  parser_.get().body().data = chunk_.data();
  parser_.get().body().size = chunk_.size();
}

std::size_t event_stream::chunk_bytes() const {
  return chunk_.size() - parser_.get().body().size;
}

void event_stream::read_body() {
  reset_chunk();
  http::async_read_some(
      stream_, buffer_, parser_,
      [self = shared_from_this()](beast::error_code e, std::size_t) { self->on_body(e); });
}

void event_stream::on_body(beast::error_code ec) {
  if (ec == http::error::need_buffer) ec = {};
  error_body_.append(chunk_.data(), chunk_bytes());
  if (ec && ec != http::error::end_of_stream) return fail_open("cannot read the answer", ec);
  if (!parser_.is_done() && !ec && error_body_.size() < max_error_body) return read_body();
  protocol::api_response response;
  response.status = static_cast<int>(parser_.get().result_int());
  response.body = response_body(error_body_);
  if (auto allow = parser_.get().find(http::field::allow); allow != parser_.get().end()) {
    response.allow = escape_invalid_utf8(allow->value());
  }
  response.cors = cors_fields(parser_.get());
  finish_open(std::move(response));
  stop("");
}

void event_stream::read_events() {
  reset_chunk();
  stream_.expires_after(settings_.silence);
  http::async_read_some(
      stream_, buffer_, parser_,
      [self = shared_from_this()](beast::error_code e, std::size_t n) { self->on_events(e, n); });
}

void event_stream::on_events(beast::error_code ec, std::size_t parsed) {
  if (closed_) return;
  if (ec == http::error::need_buffer) ec = {};
  parsed_bytes_ += parsed;
  consume(std::string_view(chunk_.data(), chunk_bytes()));
  if (closed_) return;
  if (ec == beast::error::timeout) {
    return stop("no data, not even a keep-alive comment, within " +
                std::to_string(settings_.silence.count()) + " ms");
  }
  if (ec) return stop(ec.message());
  if (parser_.is_done()) return stop("the target ended the response");
  publish();
  read_events();
}

void event_stream::consume(std::string_view bytes) {
  std::vector<sse_block> blocks;
  const auto error = sse_.feed(bytes, blocks);
  for (const auto& block : blocks) {
    auto item = read_block(block, session_id_);
    if (auto* malformed = std::get_if<std::string>(&item)) {
      inbox_->push(transport_arrival{
          id_, "malformed SSE on the events of session " + session_id_ + ": " + *malformed});
    } else if (auto* event = std::get_if<reference_server::session_event>(&item)) {
      inbox_->push(stream_arrival{id_, std::move(*event)});
    } else {
      inbox_->push(stream_arrival{id_, std::get<stream_gap>(item)});
    }
  }
  if (error) stop("malformed SSE: " + *error);
}

void event_stream::finish_open(protocol::api_response response) {
  auto opened = std::move(opened_);
  opened_ = nullptr;
  if (opened) opened(std::move(response));
}

void event_stream::fail_open(const std::string& what, beast::error_code ec) {
  const bool timed_out = ec == beast::error::timeout;
  finish_open(transport_failure(
      timed_out
          ? what + ": no answer within " + std::to_string(settings_.open_timeout.count()) + " ms"
          : what + ": " + (closed_ ? std::string("the run closed the stream") : ec.message()),
      closed_ ? transport_cause::unreadable : transport_cause::unreachable));
  stop("");
}

//! Ends the stream; a non-empty `why` (the stream ended without being asked to) is
//! reported, because a subscriber silently losing its events would hide a failure.
void event_stream::stop(const std::string& why) {
  if (!closed_ && !why.empty()) {
    inbox_->push(transport_arrival{
        id_, "the event stream of session " + session_id_ + " ended: " + why, true});
  }
  closed_ = true;
  publish();
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.close();
}

}  // namespace toolwire::conformance::detail
