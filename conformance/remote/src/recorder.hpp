// What a remote run writes into its trace as the target, stamped with the actor clock.
#pragma once

#include <chrono>
#include <string>

#include <caf/fwd.hpp>

#include "toolwire/actors/run_context.hpp"

namespace toolwire::conformance::detail {

//! The target side of a run's trace, and the two clocks a remote run reads: the actors'
//! (what records are stamped with) and the wall clock since the run started (what a
//! real-clock run's arrivals are placed by). Records nothing before start() or after stop().
class recorder {
 public:
  //! The run starts now: records go into `context`'s trace (none when it has no trace).
  void start(caf::actor_system& system, actors::run_context* context);
  //! The actor system goes away after the run: holds none of its handles past it.
  void stop();

  //! Keeps `secret` out of the trace's output.
  void hide(const std::string& secret) const;
  bool recording() const;
  //! The actor clock's milliseconds since the run started.
  actors::time_ms elapsed() const;
  //! Appends a target record when the run records.
  void record(const std::string& kind, protocol::json data) const;
  //! The same, stamped `at` instead of the actors' now (a real-clock run's wall time).
  void record_at(actors::time_ms at, const std::string& kind, protocol::json data) const;
  //! When the run started (its actors' time 0): a real-clock run's wall time counts from here.
  std::chrono::steady_clock::time_point started() const { return started_; }

 private:
  caf::actor_system* system_ = nullptr;
  actors::run_context* context_ = nullptr;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace toolwire::conformance::detail
