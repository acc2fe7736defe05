// The deterministic harness: one scenario, one seed, on CAF's test coordinator. At each
// step a seeded PRNG picks which runnable actor goes next (so seeds explore
// interleavings); when nothing is runnable the clock jumps to the next due timer. Same
// scenario + same seed gives the same trace, byte for byte.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "toolwire/actors/run_context.hpp"
#include "toolwire/actors/server_actor.hpp"
#include "toolwire/actors/tab_driver.hpp"
#include "toolwire/actors/trace.hpp"
#include "toolwire/protocol/outcome.hpp"
#include "toolwire/scenarios/scenario.hpp"

namespace toolwire::actors {

//! Where the server under test lives, one host per kind: the reference core in-process
//! (simulate's own, with the scenario's settings, when run_options::host is null) or a
//! server over HTTP (conformance::remote_host, for a profile's server and the bundled one).
//! The harness asks its host and never which kind it is.
class server_host {
 public:
  virtual ~server_host() = default;
  //! Spawns the actor the participants talk to (see target.hpp).
  virtual server_actor spawn(caf::actor_system& system, run_context* context) = 0;
  //! Called whenever no actor can run and before the clock moves: hands over what arrived
  //! from outside (stream events, model requests) as messages to the actors, waiting until
  //! the target has been quiet for its settle time. True when something was delivered.
  virtual bool deliver_arrivals() = 0;
  //! The actors' clock is about to move forward by `ms`: the target's clock moves too.
  //! (Virtual-clock targets only; a real-clock target is driven by the two below.)
  virtual void clock_moves(time_ms ms) = 0;
  //! True when the target runs on the wall clock: the actors' clock then follows the wall
  //! clock (never ahead of it), and the run ends just after its last step.
  virtual bool real_time() const { return false; }
  //! Real time: wall milliseconds since the run started.
  virtual time_ms wall_elapsed() const { return 0; }
  //! Real time: blocks until `ms` wall milliseconds since the run started, or until
  //! something arrives from the target, whichever is first.
  virtual void wait_until(time_ms ms) { (void)ms; }
  //! Real time: waits, as deliver_arrivals does, until the target is quiet and owes
  //! nothing, but hands nothing over: the harness then moves its clock to the wall clock,
  //! so what arrived is recorded no earlier than it came.
  virtual void await_quiet() {}
  //! Real time: of what arrived and was not yet handed over, the latest arrival before
  //! `before` (wall ms since the run started), if any.
  virtual std::optional<time_ms> latest_arrival_before(time_ms before) {
    (void)before;
    return std::nullopt;
  }
  //! Real time, after the run's end: records the events of the run's own streams that
  //! arrive within the next `ms` (kind "event_after_end", at their wall time), handing
  //! nothing to the actors. Evidence only, judged by nothing: an expectation that failed
  //! then says whether the target sent what it missed late or never (expectations.cpp).
  virtual void record_late_events(time_ms ms) { (void)ms; }
  //! Real time: hands over what arrived by `by` (as deliver_arrivals, without waiting).
  virtual bool deliver_arrived_by(time_ms by) {
    (void)by;
    return false;
  }
  //! Virtual clock: waits, while the clock stands still, until something arrives or the
  //! host's request bound passes, and hands it over as deliver_arrivals does. The harness
  //! calls it when an expectation already due still misses something: a loaded machine
  //! may delay the target's reaction beyond any settle time, and on a virtual clock that
  //! delay is not the target's behaviour. True when something was delivered.
  virtual bool await_arrival() { return false; }
  //! The workspace API key (scope session.manage) and, when the target has one, a key
  //! without that scope (for "limited_key" cases; empty otherwise).
  virtual std::string api_key() const = 0;
  virtual std::string limited_key() const = 0;
  //! An origin whose browser pages the target lets call it (the CORS capability,
  //! CORS-1..3), or "" when it claims none.
  virtual std::string cors_origin() const { return ""; }
  //! Over HTTP: the target's origin, "http://host:port", where a browser client's tab is
  //! opened (docs/browser.md); "" in-process.
  virtual std::string base_url() const { return ""; }
  //! The assistant Part B tasks are created with (bound to the suite's model).
  virtual std::int64_t assistant_id() const = 0;
  //! Runs end after `scenario.duration`; an in-process run then also lets every deadline
  //! pass so open calls settle (CALL-5). A remote target is not waited for that long.
  virtual bool settle_out() const = 0;
  //! Called once after the run, before the actor system goes away.
  virtual void stop() = 0;
};

struct run_options {
  std::uint64_t seed = 0;
  bool record = true;  // false: no trace (benchmarks of raw speed)
  std::string source;  // where the scenario came from, for the trace header and replay
  std::uint64_t max_steps = 50'000'000;  // a bound on scheduler steps, so nothing spins
  server_host* host = nullptr;           // null: the in-process reference core's host
  //! Prepended to every user message and task input, so a shared model stand-in can tell
  //! which run a model request belongs to (MODEL-3). Empty in-process.
  std::string message_tag;
  //! Virtual times (ascending) at which the clock stops even when no actor is due there.
  //! Why: over HTTP the harness learns of a target's own deadlines (an expiry, a call's
  //! timeout) only when it moves the target's clock, so their events show at the next
  //! stop. Explore stops at the oracle's event times, so that a target that keeps time
  //! shows its events when the reference does.
  std::vector<time_ms> clock_stops;
  //! The model takes a step only when no other actor can. Why: over HTTP the harness hands
  //! a target's model requests over only when the actors are idle, so every actor acting
  //! at an instant goes before the model's answer; explore's oracle runs this order too.
  bool model_when_idle = false;
  //! In-process: note every deadline the target arms in run_result::deadlines (explore on a
  //! real clock keeps its steps clear of them).
  bool note_deadlines = false;
  //! With a real-time host: run_settings::owed_wait_ms (the target's tolerance window).
  time_ms owed_wait_ms = 0;
  //! Clients' names in the order a target registered them (each registration once). Where
  //! several clients can act at one instant, the one whose next registration comes first
  //! here goes first. Why: REG-5's name counter follows the order registrations arrive,
  //! which SPEC leaves open for one instant; with five clients of one app there are 120
  //! orders, and explore follows the target's instead of hoping to sample it.
  std::vector<std::string> registration_order;
  //! Runs a scenario's browser clients (kind: browser) in real tabs; required when it has
  //! any. Owned by the caller, which may reuse it run after run.
  tab_driver* browser = nullptr;
  //! Non-empty: at the end of the run each open tab's screenshot goes to
  //! PREFIX.tab-ACTOR.png and its console into the trace (`tab_evidence` records).
  std::string evidence_prefix;
};

struct run_result {
  actors::trace trace;
  std::uint64_t steps = 0;    // messages processed
  std::uint64_t choices = 0;  // steps where more than one actor could go
  time_ms simulated_ms = 0;   // virtual time covered, settle-out included
  bool hit_step_limit = false;
  //! With run_options::note_deadlines: each deadline the target armed, in run ms, in the
  //! order armed (a deadline pushed back by a ping shows at each of its values).
  std::vector<armed_deadline> deadlines;
  //! On a real clock: how far behind its written time the harness acted at worst: a timer
  //! fired behind the wall clock (busy sending, or waiting out a settle time longer than
  //! the gap to the next step), or a step played after an earlier one waited for what the
  //! target owed. What its steps caused shows that much later than their written times.
  time_ms harness_late_ms = 0;
  //! In-process: which reference_server::life_cycle_points() the core reached (index for
  //! index); empty over HTTP, where the target's core is not ours to look into.
  std::vector<bool> life_cycle_reached;
};

//! Runs `plan` with `options.seed`. Fails only when the scenario itself is invalid
//! (e.g. a malformed model script); protocol misbehaviour shows in the trace.
protocol::outcome<run_result> simulate(const scenarios::scenario& plan, const run_options& options);

//! The API keys the in-process target accepts: one with scope session.manage, one
//! without; both redacted in traces.
inline constexpr const char* simulator_api_key = "toolwire-sim-key";
inline constexpr const char* simulator_limited_key = "toolwire-sim-limited-key";
//! The origin the in-process target allows browser pages from (CORS-1..3).
inline constexpr const char* simulator_cors_origin = "http://app.toolwire.test";

}  // namespace toolwire::actors
