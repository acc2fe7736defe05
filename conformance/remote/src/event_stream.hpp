// One SSE connection to a remote target (SES-3): opened for a subscriber or for the run's
// monitor, read on the host's I/O thread, its blocks queued as arrivals.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>

#include "arrivals.hpp"
#include "beast_messages.hpp"

namespace toolwire::conformance::detail {

struct stream_settings {
  host_port server;
  boost::asio::ip::tcp::resolver::results_type endpoints;
  std::chrono::milliseconds open_timeout{2'000};  // connect, send, and the answer's header
  //! Longest silence once open. SES-3 asks for a comment at least every 15 s, so a
  //! stream silent for this long is dead, not idle.
  std::chrono::milliseconds silence{45'000};
};

//! Opens with `open`, then reads until closed. Every SSE block becomes a stream_arrival
//! (or a transport_arrival when malformed); the stream ending on its own is a
//! transport_arrival too. All work happens on the io_context's thread.
class event_stream : public std::enable_shared_from_this<event_stream> {
 public:
  //! Called once with the answer to the GET: 200 with the stream directive, the target's
  //! other answer, or a transport failure.
  using opened_handler = std::function<void(protocol::api_response)>;

  event_stream(boost::asio::io_context& ioc, stream_settings settings, std::uint64_t id,
               std::string session_id, std::shared_ptr<arrivals> inbox);

  //! Starts connecting; call on the I/O thread.
  void open(const protocol::api_request& request, opened_handler opened);

  //! Closes the connection from any thread; nothing more is queued from it.
  void close();

  //! On the I/O thread: whether bytes the target already sent are not yet queued as
  //! arrivals (unread on the socket, buffered, or half a block). See transport::unread.
  bool has_unread();

  //! The same from any thread, without waking the I/O thread: the kernel's count of bytes
  //! received on the socket against the bytes the I/O thread has taken off it and queued
  //! (published after each read), and whether it holds part of a block. Why both counts:
  //! the socket's unread bytes alone miss bytes the reactor has already read but whose
  //! handler has not queued them yet; the kernel's count includes those. Nullopt where the
  //! kernel does not count or the stream is not connected yet: ask has_unread instead.
  std::optional<bool> has_unread_from_any_thread() const;

 private:
  void on_connect(boost::beast::error_code ec);
  void on_write(boost::beast::error_code ec);
  void on_header(boost::beast::error_code ec, std::size_t parsed);
  void read_body();
  void on_body(boost::beast::error_code ec);
  void read_events();
  void on_events(boost::beast::error_code ec, std::size_t parsed);
  void consume(std::string_view bytes);
  void finish_open(protocol::api_response response);
  void fail_open(const std::string& what, boost::beast::error_code ec);
  void stop(const std::string& why);
  //! On the I/O thread, after each read and when closing: what has_unread_from_any_thread
  //! compares with the kernel's count.
  void publish();
  //! What was read but is not an arrival yet: body bytes buffered, or half an SSE block.
  bool holds_part() const;
  //! The body goes into chunk_; chunk_bytes() is how much the last read put there.
  void reset_chunk();
  std::size_t chunk_bytes() const;

  stream_settings settings_;
  std::uint64_t id_;
  std::string session_id_;
  std::shared_ptr<arrivals> inbox_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  beast_request request_;
  boost::beast::http::response_parser<boost::beast::http::buffer_body> parser_;
  std::array<char, 16384> chunk_{};
  std::string error_body_;  // a non-200 answer's body
  std::uint64_t after_seq_ = 0;
  sse_parser sse_;
  opened_handler opened_;
  bool closed_ = false;
  std::uint64_t parsed_bytes_ = 0;  // what the parser took from buffer_, header included
  std::atomic<int> socket_fd_{-1};
  //! (bytes taken off the socket << 2) | (holds part of a block << 1) | closed
  std::atomic<std::uint64_t> published_{0};
};

}  // namespace toolwire::conformance::detail
