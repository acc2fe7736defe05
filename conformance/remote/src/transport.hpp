// How the suite reaches a target: its profile, a synchronous client for requests, and the
// I/O thread that reads event streams.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "event_stream.hpp"
#include "toolwire/conformance/http_client.hpp"
#include "toolwire/conformance/target_profile.hpp"
#include "toolwire/protocol/outcome.hpp"
#include "toolwire/protocol/types.hpp"

namespace toolwire::conformance::detail {

class recorder;

//! Requests block the calling (harness) thread; event streams are read on the I/O thread,
//! which runs from start() to stop(). Sends only what it is asked to, and waits at most
//! the profile's request_timeout_ms for each answer.
class transport {
 public:
  //! Sends nothing and starts no thread yet. Event streams queue what they read in `inbox`.
  transport(target_profile profile, std::shared_ptr<arrivals> inbox, const recorder& trace);
  ~transport();
  transport(const transport&) = delete;
  transport& operator=(const transport&) = delete;

  //! Resolves the target's host for event streams, once: a run does not re-resolve per
  //! stream. Fails when the host does not resolve.
  protocol::outcome<protocol::done> resolve();
  void start();
  //! Joins the I/O thread once the work posted before (streams closing) has run.
  void stop();

  const target_profile& profile() const { return profile_; }
  //! One request and its answer (http_client::send).
  protocol::api_response send(const protocol::api_request& request);

  //! The answer to an event stream's GET, and the stream (null when the GET got no answer).
  struct opened_stream {
    protocol::api_response response;
    std::shared_ptr<event_stream> stream;
  };
  //! Makes stream `id`'s GET on the I/O thread and waits, bounded, for its answer.
  opened_stream open_stream(const protocol::api_request& request, std::uint64_t id,
                            const std::string& session_id);

  //! Whether any of `streams` holds bytes the target sent that are not yet queued as
  //! arrivals. Answered on the calling thread from the kernel's byte counts
  //! (event_stream::has_unread_from_any_thread); where those are missing, asked on the I/O
  //! thread, waiting at most `bound`, true when it did not answer in time. Why: on loopback an
  //! event the target wrote before its answer to a request is already on the stream's socket when
  //! the answer is read, so the harness can wait for exactly that instead of a settle time
  //! (arrivals::wait_quiet).
  bool unread(const std::vector<std::shared_ptr<event_stream>>& streams,
              std::chrono::milliseconds bound);

  //! The target's `now`: its virtual clock (CLOCK-1), else the wall clock; nullopt when
  //! the clock route failed.
  std::optional<protocol::time_ms> target_now();
  //! Moves the target's virtual clock by `ms` (CLOCK-1); a failure goes to the trace.
  void advance_clock(protocol::time_ms ms);

 private:
  target_profile profile_;
  std::shared_ptr<arrivals> inbox_;
  const recorder& trace_;
  http_client client_;
  stream_settings streams_at_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> io_work_{
      io_.get_executor()};
  std::thread io_thread_;
};

}  // namespace toolwire::conformance::detail
