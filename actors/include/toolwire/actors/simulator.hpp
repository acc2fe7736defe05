// The deterministic harness: one scenario, one seed, on CAF's test coordinator. At each
// step a seeded PRNG picks which runnable actor goes next (so seeds explore
// interleavings); when nothing is runnable the clock jumps to the next due timer. Same
// scenario + same seed gives the same trace, byte for byte.
#pragma once

#include <cstdint>
#include <string>

#include "toolwire/actors/scenario.hpp"
#include "toolwire/actors/trace.hpp"
#include "toolwire/protocol/outcome.hpp"

namespace toolwire::actors {

struct run_options {
  std::uint64_t seed = 0;
  bool record = true;  // false: no trace (benchmarks of raw speed)
  std::string source;  // where the scenario came from, for the trace header and replay
  std::uint64_t max_steps = 50'000'000;  // a bound on scheduler steps, so nothing spins
};

struct run_result {
  actors::trace trace;
  std::uint64_t steps = 0;    // messages processed
  std::uint64_t choices = 0;  // steps where more than one actor could go
  time_ms simulated_ms = 0;   // virtual time covered, settle-out included
  bool hit_step_limit = false;
};

//! Runs `plan` with `options.seed`. Fails only when the scenario itself is invalid
//! (e.g. a malformed model script); protocol misbehaviour shows in the trace.
protocol::outcome<run_result> simulate(const scenario& plan, const run_options& options);

//! The API key the simulated target accepts (scope session.manage); redacted in traces.
inline constexpr const char* simulator_api_key = "toolwire-sim-key";

}  // namespace toolwire::actors
