// What a connection needs from the server: answers, streams and a log line.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include <boost/asio/io_context.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include "toolwire/protocol/api.hpp"
#include "toolwire/reference_server/web/api_translation.hpp"

namespace toolwire::reference_server::web {

//! One served connection. Why the io_context's own executor, not beast::tcp_stream's
//! any_io_executor: every operation on a connection copies and destroys its executor, and
//! type-erased that was a tenth of a ping's instructions (callgrind, docs/benchmarks.md).
using served_stream =
    boost::beast::basic_stream<boost::asio::ip::tcp, boost::asio::io_context::executor_type>;
using served_socket = served_stream::socket_type;

//! The seam between connections and the server. Why: a connection only moves bytes; it
//! never sees the core, the clock or the model, so it cannot make a protocol decision.
class request_handler {
 public:
  virtual ~request_handler() = default;

  //! How long the next request waits before `handle` (a slow server's queue); 0: none.
  virtual std::chrono::milliseconds handling_delay() = 0;

  //! A static page at the request's path (`toolwire serve --demo`), answered instead of the
  //! protocol; nullopt for every other path. Only GET reaches it.
  virtual std::optional<http_response> page(std::string_view path, unsigned version) = 0;

  //! Answers one request; every protocol decision happens behind this call. By value: the
  //! wire faults may rewrite the request, and the caller's is a temporary to move from.
  virtual protocol::api_response handle(protocol::api_request request) = 0;

  //! Takes over a connection whose request was answered with a stream directive (SES-3).
  virtual void open_stream(served_stream stream, const protocol::stream_directive& directive) = 0;

  //! The last look at an answer's HTTP message before it is written; its `keep_alive()`
  //! then decides whether the connection stays open.
  virtual void finish(http_response& message) = 0;

  //! Writes one log line. Callers never pass a credential, a query or a body.
  virtual void log(std::string_view line) = 0;

  //! Whether to log one line per request (`toolwire serve --quiet` turns it off).
  virtual bool logs_requests() const = 0;
};

}  // namespace toolwire::reference_server::web
