// One HTTP/1.1 connection: reads requests, hands them to the server, writes the answers.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "toolwire/protocol/error.hpp"
#include "toolwire/reference_server/web/request_handler.hpp"

namespace toolwire::reference_server::web {

//! Reads one request at a time (pipelined requests wait in the buffer), so at most one
//! write is in flight. Makes only transport decisions itself: a body over `max_body_bytes`
//! is 413; a malformed request, or a header that RFC 9112 or C-1 forbids (`header_error`),
//! is 400; both close the connection. Whatever the handler throws is a 500 for that
//! request, and the connection goes on. A request the router answers with a stream
//! directive hands the socket over to an `sse_session`.
//!
//! Deadlines: a request (header and body) must arrive within `idle_timeout` of the
//! moment the connection starts waiting for it; every response must be written within
//! `write_timeout`. Either expiring closes the connection. One watchdog timer per
//! connection enforces them (see `watch`).
class http_session : public std::enable_shared_from_this<http_session> {
 public:
  http_session(served_socket socket, request_handler& handler,
               std::chrono::milliseconds idle_timeout,
               std::chrono::milliseconds write_timeout = std::chrono::seconds(30));

  //! Starts reading. Call once, on the io_context's thread.
  void run();

  //! Answers 503 at once without reading a request, then closes (over the connection cap).
  void refuse_busy();

  //! Closes the connection now (server shutdown). Harmless after a hand-over to SSE.
  void close();

 private:
  void do_read();
  void on_read_header(boost::beast::error_code ec, std::size_t bytes);
  void on_continue_sent(boost::beast::error_code ec, std::size_t bytes);
  void do_read_body();
  void on_read(boost::beast::error_code ec, std::size_t bytes);
  //! Turns a read error into an answer (413, 400) or a quiet close.
  void on_read_error(boost::beast::error_code ec);
  //! A 4xx/5xx of the front end's own, then the connection closes.
  void answer_error(protocol::api_error error);
  void answer();
  //! `answer` without the guard: may throw.
  void answer_unguarded();
  //! Writes `message` within the write timeout, then reads the next request or lingers.
  void do_write(http_response message, bool keep_alive);
  void on_write(bool keep_alive, boost::beast::error_code ec, std::size_t bytes);
  //! After an error answer: stop sending, drain what the client still sends, then close,
  //! so that the answer is not lost to a reset.
  void do_linger();
  void on_linger(boost::beast::error_code ec, std::size_t bytes);
  //! `METHOD PATH STATUS`, the path without its query (it may hold an access_token).
  void log_request(std::string_view method, std::string_view target, unsigned status);
  //! The pending operation must end by `deadline`, or the connection closes.
  void expire_at(std::chrono::steady_clock::time_point deadline);
  //! Arms the watchdog to wake at `at`. Why one timer and not Beast's per-operation
  //! timeouts: those armed and cancelled an Asio timer for every read and every write,
  //! about a tenth of a ping's instructions (callgrind). The watchdog wakes at the
  //! latest every min(idle_timeout, write_timeout), so a deadline set from now never lies
  //! before its wake-up and an operation only stores its deadline.
  void watch(std::chrono::steady_clock::time_point at);
  void on_watchdog(boost::beast::error_code ec);

  served_stream stream_;
  request_handler& handler_;
  std::chrono::milliseconds idle_timeout_;
  std::chrono::milliseconds write_timeout_;
  std::chrono::steady_clock::time_point read_deadline_;
  std::chrono::steady_clock::time_point deadline_;  // of the pending operation
  //! See `watch`. Its expiry starts at the latest time point, so the first deadline, sooner,
  //! arms it (expire_at).
  boost::asio::steady_timer watchdog_;
  boost::asio::steady_timer handling_timer_;  // a slow server's wait before `answer`
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::string out_;  // the answer being written
  std::string linger_buffer_;
  std::size_t lingered_bytes_ = 0;
  bool handed_over_ = false;
  bool closed_ = false;
};

}  // namespace toolwire::reference_server::web
