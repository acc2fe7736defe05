// What every actor of one run shares: the trace, the run's settings and the mapping from
// the actor clock to target time. Runs are single-threaded on the test coordinator, so no locking.
#pragma once

#include <caf/all.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "toolwire/actors/trace.hpp"

namespace toolwire::scenarios {
struct scenario;
}

namespace toolwire::actors {

class tab_driver;

//! What a run is given before it starts: its credentials, the target's assistant and the
//! tag of its user messages. Set once by simulate(); participants only read it. What the
//! run learns as it goes (the session, ids, calls, tasks) is the director's own state.
struct run_settings {
  std::string api_key;
  std::string limited_key;  // an API key without session.manage, when the target has one
  std::string cors_origin;  // an origin the target allows browser pages from, when it has one
  std::int64_t assistant_id = 1;
  std::string message_tag;  // prepended to user messages (MODEL-3)
  //! Real time only: how long a step that needs what the target still owes (a dispatch
  //! its stream has not shown yet) waits for it before it is a step error. 0: no wait (a
  //! virtual clock stands still while the target works, so what is owed is there).
  time_ms owed_wait_ms = 0;
  //! Over HTTP: the target's origin, where browser clients open their tabs.
  std::string base_url;
};

//! A deadline of the target (a TTL, a call's ack or result, an interrupt), as armed.
struct armed_deadline {
  time_ms armed_at = 0;  // run ms
  time_ms due = 0;       // run ms
};

struct run_context {
  actors::trace* trace = nullptr;             // null: record nothing (benchmarks)
  time_ms epoch_ms = 1'700'000'000'000;       // target time when the run starts (CLOCK-3)
  const scenarios::scenario* plan = nullptr;  // what is running
  run_settings settings;
  std::vector<armed_deadline>* deadlines = nullptr;  // non-null: every deadline the target arms
  //! Non-null: where the in-process target leaves which life-cycle points its core reached
  //! (reference_server::life_cycle_points), once the run is over.
  std::vector<bool>* life_cycle_reached = nullptr;
  //! How far past its written time the director played a step, at worst (a step before it
  //! waited for what a real-clock target owed).
  time_ms steps_late_ms = 0;
  //! Real time: wall milliseconds an actor held the harness in a blocking call of its own
  //! tools (a browser step waiting for its tab), in total. The actors' clock stood still
  //! meanwhile, so the director plays every later step that much later.
  time_ms wall_blocked_ms = 0;
  //! The client actors' jobs on the test coordinator, with their names, and how many
  //! registrations each has sent so far: what run_options::registration_order orders.
  std::map<const caf::resumable*, std::string> client_jobs;
  std::map<std::string, std::size_t> registrations_sent;
  //! Drives the browser clients' tabs (run_options::browser); null when there are none.
  tab_driver* browser = nullptr;
  //! run_options::evidence_prefix.
  std::string evidence_prefix;

  //! Virtual milliseconds since the run started, from the actor system's clock.
  static time_ms elapsed(const caf::local_actor* self) {
    using namespace std::chrono;
    return duration_cast<milliseconds>(self->clock().now().time_since_epoch()).count();
  }
  time_ms target_now(const caf::local_actor* self) const { return epoch_ms + elapsed(self); }

  //! Records `make_data()` when recording; builds nothing otherwise (the hot path of
  //! benchmarks and property runs).
  template <typename MakeData>
  void record(const caf::local_actor* self, std::string_view actor, std::string_view kind,
              MakeData make_data) {
    if (trace != nullptr) {
      trace->add(elapsed(self), std::string(actor), std::string(kind), make_data());
    }
  }
  bool recording() const { return trace != nullptr; }
};

}  // namespace toolwire::actors
