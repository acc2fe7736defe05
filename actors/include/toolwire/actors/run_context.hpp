// What every actor of one run shares: the trace and the mapping from the actor clock to
// target time. Runs are single-threaded on the test coordinator, so no locking.
#pragma once

#include <caf/all.hpp>

#include "toolwire/actors/trace.hpp"

namespace toolwire::actors {

struct run_context {
  actors::trace* trace = nullptr;        // null: record nothing (benchmarks)
  time_ms epoch_ms = 1'700'000'000'000;  // target time when the run starts (CLOCK-3)

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
