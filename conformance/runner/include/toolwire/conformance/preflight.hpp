// The preflight of a run against a --target: before any case runs, check that the target
// can be checked at all, so that a wrong base_url or key is one sentence (exit 2), not
// hundreds of failures.
#pragma once

#include <string>

#include "toolwire/actors/trace.hpp"
#include "toolwire/conformance/target_profile.hpp"
#include "toolwire/protocol/error.hpp"

namespace toolwire::conformance {

//! Checks, in order, and stops at the first failure:
//! 1. the target answers and takes the key: `POST /v1/sessions` answers 201 (Part A);
//! 2. the test clock answers `GET /v1/_test/clock` when the profile claims it;
//! 3. the target calls the model stand-in: a message in the new session (Part A) and a
//!    task (Part B: `POST /api/tasks` answers 201) each reach it within
//!    request_timeout_ms, tagged `[tw:preflight...]`.
//! (With Part B only, the task comes first and the clock last.)
//! Returns "" when all pass, else one sentence naming the cause, e.g.
//! `POST /v1/sessions answered 404: is base_url right?`. Never quotes a key.
std::string preflight(const target_profile& profile);

//! "" when a connection to the target can be made, else why not (it cannot be resolved or
//! connected to), in one sentence. A target that accepts but misbehaves is reachable: its
//! runs fail with the evidence. Asked before a run (nothing is there at all) and after a
//! case that failed with a stream the target ended (it went away during the case).
std::string why_unreachable(const target_profile& profile);

//! Why `run` says nothing about SPEC past some point, when its target (`profile`; null
//! in-process or for the bundled server) went away during it: one of its event streams
//! ended and the target now refuses connections (killed, crashed, restarted). "" when
//! no stream ended or the target still answers (then it is judged on what it did). Asked
//! of a run that failed: one that refused a request is told by first_unanswered already,
//! this is the run cut short while it only waited.
std::string went_away_during(const actors::trace& run, const target_profile* profile);

//! How fast a real-clock target answers, as the preflight measures it. Why: a correct
//! but slow target acts later than the suite's clock says; the tolerance window of its
//! deadlines must cover that, and a constant does not fit every target.
struct target_latency {
  time_ms round_trip_p99_ms =
      0;                       // the slowest of 20 cheap requests (pings; task polls, Part B only)
  time_ms event_delay_ms = 0;  // from a registration's 201 to its client_registered (Part A)
  time_ms model_delay_ms = 0;  // from a message's 202 (a task's 201) to its model request
};

//! The tolerance window a target measured so needs: `floor_ms` (the default 200 ms, which
//! covers a deadline timer's own lateness, which no preflight can measure without waiting
//! for one) plus twice the chain of cause and effect it measured (a request, the model
//! request it causes, the event that tells of it), rounded up to 10 ms. Why the chain: a
//! deadline starts at a cause the target handled late and shows in an event it sent late;
//! why twice: p99 of 20 is a small sample.
time_ms derived_tolerance_ms(const target_latency& measured, time_ms floor_ms = 200);

//! Measures `profile`'s target (a session, a client and its pings, a message; a task with
//! Part B only), every wait bounded by request_timeout_ms. An error names what did not
//! answer, as preflight does.
protocol::outcome<target_latency> measure_latency(const target_profile& profile);

//! "round trip p99 12 ms, event 3 ms, model request 5 ms".
std::string describe(const target_latency& measured);

}  // namespace toolwire::conformance
