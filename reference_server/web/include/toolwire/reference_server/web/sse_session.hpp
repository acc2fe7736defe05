// One Server-Sent Events stream of a session's events (SES-3), fed from the core's log.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <boost/asio/steady_timer.hpp>

#include "toolwire/protocol/api.hpp"
#include "toolwire/reference_server/web/request_handler.hpp"

namespace toolwire::reference_server {
class core;
}

namespace toolwire::reference_server::web {

class wire_policy;

//! Writes `id: <seq>` / `event: <type>` / `data: <json>` frames for every event after
//! the last one it sent, reading them from the core's retained log, so a slow reader
//! needs no queue of its own: it simply catches up on its next write (a `stream_gap`
//! frame first when the core has dropped events it had not sent). One write in flight;
//! a write carries a bounded batch. A `: keep-alive` comment goes out after `keepalive`
//! of silence. Never reads the request again; a read only watches for the peer leaving.
//! Each write must finish within `write_timeout`, or the stream closes: a reader that
//! stops reading does not pin a write (the reader reconnects with Last-Event-ID).
class sse_session : public std::enable_shared_from_this<sse_session> {
 public:
  //! `wire` (which outlives the stream) picks and frames the events it sends.
  sse_session(served_stream stream, const reference_server::core& events, wire_policy& wire,
              protocol::stream_directive directive, std::chrono::milliseconds keepalive,
              std::chrono::milliseconds write_timeout = std::chrono::seconds(30));

  //! Writes the response header and every retained event after the directive's seq.
  void start();

  //! New events may be retained: writes them now, or after the write in flight; with a
  //! slow wire (wire_policy::delay(slowness::events)), after that delay.
  void notify();

  //! Closes the stream (server shutdown, or the peer left). Idempotent.
  void close();

  const std::string& session_id() const { return session_id_; }
  bool closed() const { return closed_; }

 private:
  void pump();
  //! `pump` without the guard: may throw.
  void pump_unguarded();
  //! Appends frames for the events after `last_sent_`, up to a batch bound.
  void append_events(std::string& out);
  void on_write(boost::beast::error_code ec, std::size_t bytes);
  void arm_keepalive();
  void on_keepalive(boost::beast::error_code ec);
  void do_watch();
  void on_watch(boost::beast::error_code ec, std::size_t bytes);

  served_stream stream_;
  const reference_server::core& events_;
  wire_policy& wire_;
  std::string session_id_;
  std::string header_;  // the answer's header, CORS fields included
  std::uint64_t last_sent_;
  std::chrono::milliseconds keepalive_;
  std::chrono::milliseconds write_timeout_;
  boost::asio::steady_timer keepalive_timer_;
  boost::asio::steady_timer events_timer_;  // holds new events back on a slow wire
  std::string in_flight_;
  std::array<char, 512> watch_buffer_{};
  bool header_sent_ = false;
  bool writing_ = false;
  bool keepalive_due_ = false;
  bool holding_back_ = false;  // events_timer_ is running: nothing is written until it ends
  bool closed_ = false;
};

}  // namespace toolwire::reference_server::web
