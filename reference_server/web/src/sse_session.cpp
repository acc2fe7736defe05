// One Server-Sent Events stream of a session's events (SES-3), fed from the core's log.
#include "toolwire/reference_server/web/sse_session.hpp"

#include <string_view>
#include <utility>

#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>

#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/reference_server/core.hpp"
#include "toolwire/reference_server/web/wire_policy.hpp"

namespace toolwire::reference_server::web {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// Why: a write is bounded so that one reader far behind does not build one huge string;
// it catches up over several writes instead.
constexpr std::size_t max_batch_bytes = 256u << 10;

//! The stream's answer header, with its CORS fields (CORS-2). Why the check: a field
//! holding a line break would end the header early; Beast refuses such request headers,
//! so none comes from a request, but a header is never written on that assumption.
std::string response_header(const std::map<std::string, std::string>& cors) {
  std::string header =
      "HTTP/1.1 200 OK\r\n"
      "Content-Type: text/event-stream\r\n"
      "Cache-Control: no-cache\r\n"
      "Connection: close\r\n"
      "Server: toolwire-reference\r\n";
  for (const auto& [name, value] : cors) {
    if ((name + value).find_first_of("\r\n") != std::string::npos) continue;
    header += name + ": " + value + "\r\n";
  }
  return header + "\r\n";
}

constexpr std::string_view keepalive_comment = ": keep-alive\n\n";

std::string dump(const json& data) {
  // Why safe: a frame must go out even if a model handed us invalid UTF-8.
  return protocol::safe_dump(data);
}

//! The whole 500 answer for an events request that failed before its header went out.
std::string internal_error_response() {
  const std::string body = dump(protocol::to_json(protocol::api_error{
      protocol::error_code::internal, "internal error in the reference server"}));
  return "HTTP/1.1 500 Internal Server Error\r\n"
         "Content-Type: application/json\r\n"
         "Connection: close\r\n"
         "Server: toolwire-reference\r\n"
         "Content-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace

sse_session::sse_session(served_stream stream, const reference_server::core& events,
                         wire_policy& wire, protocol::stream_directive directive,
                         std::chrono::milliseconds keepalive,
                         std::chrono::milliseconds write_timeout)
    : stream_(std::move(stream)),
      events_(events),
      wire_(wire),
      session_id_(std::move(directive.session_id)),
      header_(response_header(directive.cors)),
      last_sent_(directive.after_seq),
      keepalive_(keepalive),
      write_timeout_(write_timeout),
      keepalive_timer_(stream_.get_executor()),
      events_timer_(stream_.get_executor()) {}

void sse_session::start() {
  do_watch();
  pump();
}

void sse_session::notify() {
  if (holding_back_ || closed_) return;  // the running delay's end writes these too
  const auto delay = wire_.delay(slowness::events);
  if (delay.count() <= 0) return pump();
  holding_back_ = true;
  events_timer_.expires_after(delay);
  events_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
    self->holding_back_ = false;
    if (!ec) self->pump();
  });
}

void sse_session::close() {
  if (closed_) return;
  closed_ = true;
  keepalive_timer_.cancel();
  events_timer_.cancel();
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.close();
}

void sse_session::pump() {
  try {
    pump_unguarded();
  } catch (const std::exception&) {
    // Why: nothing may escape into the io_context. Before the header the request still
    // gets its 500; after it the stream ends and the reader reconnects (Last-Event-ID).
    if (closed_ || writing_ || header_sent_) return close();
    header_sent_ = true;
    writing_ = true;
    in_flight_ = internal_error_response();
    stream_.expires_after(write_timeout_);
    net::async_write(
        stream_, net::buffer(in_flight_),
        [self = shared_from_this()](beast::error_code, std::size_t) { self->close(); });
  }
}

void sse_session::pump_unguarded() {
  if (closed_ || writing_ || holding_back_) return;
  std::string out;
  if (!header_sent_) out = header_ + wire_.preamble();
  append_events(out);
  header_sent_ = true;  // only now: if append_events throws, the header is still unsent
  if (out.empty() && keepalive_due_) out = keepalive_comment;
  keepalive_due_ = false;
  if (out.empty()) return;
  writing_ = true;
  in_flight_ = std::move(out);
  // Only the write is bounded: the watching read stays pending, so this sets the write's
  // deadline alone (beast::tcp_stream keeps one per direction).
  stream_.expires_after(write_timeout_);
  net::async_write(stream_, net::buffer(in_flight_),
                   beast::bind_front_handler(&sse_session::on_write, shared_from_this()));
}

void sse_session::append_events(std::string& out) {
  const event_window window = wire_.events(events_, session_id_, last_sent_);
  if (window.gap_oldest_seq) {
    // stream_gap is not part of the sequence: no id line (docs/reference-server.md).
    const protocol::stream_gap gap{*window.gap_oldest_seq};
    out.append("event: ")
        .append(protocol::to_string(protocol::type_of(gap)))
        .append("\ndata: ")
        .append(dump(protocol::to_json(gap)))
        .append("\n\n");
    if (*window.gap_oldest_seq > 0) last_sent_ = *window.gap_oldest_seq - 1;
  }
  for (const session_event& event : window.events) {
    if (out.size() >= max_batch_bytes) break;
    out += wire_.frame(event);
    last_sent_ = event.seq;
  }
}

void sse_session::on_write(beast::error_code ec, std::size_t /*bytes*/) {
  writing_ = false;
  if (closed_) return;
  if (ec) return close();
  keepalive_due_ = false;
  arm_keepalive();
  pump();
}

void sse_session::arm_keepalive() {
  keepalive_timer_.expires_after(keepalive_);
  keepalive_timer_.async_wait(
      beast::bind_front_handler(&sse_session::on_keepalive, shared_from_this()));
}

void sse_session::on_keepalive(beast::error_code ec) {
  if (ec || closed_) return;
  keepalive_due_ = true;
  pump();
}

void sse_session::do_watch() {
  stream_.async_read_some(net::buffer(watch_buffer_),
                          beast::bind_front_handler(&sse_session::on_watch, shared_from_this()));
}

void sse_session::on_watch(beast::error_code ec, std::size_t /*bytes*/) {
  if (closed_) return;
  if (ec) return close();  // the peer closed or reset: the stream is over
  do_watch();
}

}  // namespace toolwire::reference_server::web
