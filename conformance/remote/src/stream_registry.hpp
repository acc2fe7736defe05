// The event streams a remote run has open: the participants' own and the run's monitor
// streams, and the hand-over of what they read to the actors and the trace.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <caf/actor.hpp>

#include "arrivals.hpp"
#include "toolwire/protocol/api.hpp"

namespace toolwire::conformance::detail {

class event_stream;
class recorder;
class transport;

//! Runs on the harness thread only: the streams' I/O thread reaches it through arrivals.
//! A stream is either a subscriber's (its events go to that actor) or the run's monitor of
//! a session it created (its events go to the trace).
class stream_registry {
 public:
  stream_registry(transport& link, arrivals& inbox, const recorder& trace);

  //! Opens a stream for `subscriber` (or the monitor) and waits, bounded, for the GET's
  //! answer. The stream is kept only when it opened.
  protocol::api_response open(const protocol::api_request& request, const std::string& session_id,
                              caf::actor subscriber, bool monitor);
  //! Follows `session_id`, which the run created, with a monitor stream when the run records.
  void monitor(const std::string& session_id);
  //! Closes `subscriber`'s streams of `session_id` (never the monitor's).
  void close(const caf::actor& subscriber, const std::string& session_id);
  void close_all();
  //! Whether an open stream holds bytes not yet queued as arrivals (transport::unread).
  bool unread(std::chrono::milliseconds bound) const;

  void deliver(stream_arrival& item);
  void deliver(const transport_arrival& item);
  //! After the run's end: an event of the run's own stream in `item` is recorded as
  //! "event_after_end" at `at` (wall ms); nothing else is (remote_host::record_late_events).
  void record_after_end(const stream_arrival& item, actors::time_ms at) const;
  //! The seq of the latest event of `session_id` recorded (0: none yet).
  std::uint64_t recorded_seq(const std::string& session_id) const;

 private:
  struct open_stream {
    caf::actor subscriber;
    bool monitor = false;  // the run's own stream: its events go to the trace
    std::string session_id;
    std::shared_ptr<event_stream> stream;
  };
  static void deliver_to_subscriber(const open_stream& entry, stream_arrival& item);
  void deliver_to_monitor(const open_stream& entry, const stream_arrival& item);

  transport& link_;
  arrivals& inbox_;
  const recorder& trace_;
  std::map<std::uint64_t, open_stream> streams_;
  std::uint64_t next_id_ = 1;
  std::map<std::string, std::uint64_t> monitored_seq_;  // session -> last event recorded
};

}  // namespace toolwire::conformance::detail
