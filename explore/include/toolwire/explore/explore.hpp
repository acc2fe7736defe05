// Property-based scenarios: RapidCheck generates whole scenario programs (clients with
// random behaviours, task callers, scripted actions at random times, model decisions),
// runs each on a target and, in lock-step, on the clean in-process reference core, the
// oracle, and compares what both showed (actors/observations.hpp) and checks the trace
// invariants on the target's trace. A divergence is shrunk along RapidCheck's shrinks
// of its choices against the target, triaged (re-run: deterministic or intermittent) and written
// out as a scripted scenario whose expectations come from the oracle.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "toolwire/actors/observations.hpp"
#include "toolwire/actors/simulator.hpp"
#include "toolwire/reference_server/faults.hpp"
#include "toolwire/scenarios/scenario.hpp"

namespace toolwire::explore {

using protocol::time_ms;

//! A target programs run on other than the in-process core: a server over HTTP
//! (conformance/ provides it). One per worker; only that worker calls it.
class program_runner {
 public:
  virtual ~program_runner() = default;
  //! Runs `program` with `seed`, the clock stopping at `clock_stops` too (run_options).
  //! Fails only when the target cannot be used at all; a misbehaving target shows in the
  //! trace.
  virtual protocol::outcome<actors::run_result> run(const scenarios::scenario& program,
                                                    std::uint64_t seed,
                                                    std::vector<time_ms> clock_stops) = 0;
};

//! What programs are generated for: the target's timeouts, clock and parts.
struct program_shape {
  time_ms ack_timeout_ms = 2'000;
  time_ms result_timeout_ms = 8'000;
  time_ms interrupt_timeout_ms = 20'000;
  bool part_a = true;
  bool part_b = true;
  //! On a real clock observations may differ by this much in time, and a divergence is
  //! run again before it counts (it may be a race with a deadline).
  bool real_clock = false;
  time_ms tolerance_ms = 1;
};

//! How far a search has come, for progress lines.
struct explore_progress {
  int programs = 0;            // generated and run (shrink runs not included)
  std::uint64_t requests = 0;  // HTTP requests (or core commands) sent to the target
  int divergences = 0;         // 0 or 1: the search stops at the first
  double seconds = 0;
  //! Once a divergence is being shrunk: the smaller programs judged so far, and how many
  //! of them still diverged (each became the program shrinking goes on from).
  bool shrinking = false;
  int shrink_runs = 0;
  int shrink_steps = 0;
};

struct explore_options {
  int programs = 1'000;                // how many programs to generate (RapidCheck's maxSuccess)
  std::uint64_t seed = 1;              // RapidCheck's seed; also the simulator seed of each run
  reference_server::fault_set faults;  // the in-process target's faults; the oracle has none
  //! Makes the target programs run on. Null: the in-process core with `faults`. A search
  //! is one thread: RapidCheck keeps its generation state in globals, so parallel searches
  //! are processes (`toolwire explore --jobs`).
  std::function<protocol::outcome<std::unique_ptr<program_runner>>()> target;
  //! How many programs of this search run at once, each on a program_runner of its own
  //! (made by `target`). Only for a target on a real clock: there a program mostly waits
  //! out real time, and programs of their own sessions do not disturb each other. A
  //! virtual clock is one per target, moved by one program's clock stops, so there (and
  //! in-process) programs run one at a time whatever this says. Generation stays on the
  //! calling thread. The first divergence is shrunk up to this many smaller programs at
  //! a time (the result is the one shrinking them one at a time finds), then triaged one
  //! run at a time.
  int programs_at_once = 1;
  program_shape shape;
  bool shrink = true;
  //! Stop shrinking after this long and report the smallest program that diverged by then.
  //! Why a limit: on a real clock each smaller program takes seconds to judge, and a long
  //! shrink kept a user waiting with nothing to read.
  std::optional<std::chrono::milliseconds> shrink_budget;
  //! Stop generating programs after this long (what has run is reported).
  std::optional<std::chrono::milliseconds> time_budget;
  //! A divergence is re-run this many times to label it deterministic or intermittent.
  int triage_runs = 5;
  //! Stop generating programs once the reference has reached this share (percent) of the
  //! life-cycle points (reference_server::life_cycle_points) in the programs judged.
  std::optional<int> until_coverage_percent;
  //! --focus: SPEC rules (e.g. "TASK-7") the search leans toward. Each program is the first
  //! of up to `focus_draws` drawn whose run on the reference reaches a life-cycle point
  //! citing one of them (else the last drawn). Only rules some point cites can be focused
  //! (focusable_rules).
  std::vector<std::string> focus_rules;
  int focus_draws = 8;
  //! Called after each program.
  std::function<void(const explore_progress&)> progress;
  //! Searches in other processes (`toolwire explore --jobs`): checked before each program,
  //! true stops this search; and called at this search's first divergence, before
  //! shrinking, false when another search claimed one first (this one then stops without).
  std::function<bool()> stopped_elsewhere;
  std::function<bool()> claim_divergence;
};

//! A program that failed, after shrinking.
struct explore_failure {
  scenarios::scenario program;  // the shrunk program, with expectations from the oracle run
  //! The shrunk program as drawn, before it was moved clear of races and made to last (on
  //! a real clock): what triage re-runs, so that each re-run is judged as the first run was.
  scenarios::scenario drawn;
  std::uint64_t seed = 0;             // the simulator seed that reproduces it
  std::vector<std::string> problems;  // invariant violations and the first divergence
  std::optional<actors::divergence> divergence;
  std::vector<std::string> spec_ids;  // the rules involved
  int programs_before = 0;            // programs that passed before the first failure
  int shrink_runs = 0;                // smaller programs judged while shrinking
  int shrink_steps = 0;               // of them, those that still diverged
  bool shrink_out_of_time = false;    // shrink_budget ended shrinking before it was done
  //! Triage: of `triage_runs` re-runs of the shrunk program, how many failed again.
  int triage_runs = 0, triage_failures = 0;
  //! The traces of the last judged run of the shrunk program (before its expectations were
  //! added): what the target showed and what the oracle, in the seed's order, showed.
  //! Empty in-process with the oracle as target.
  actors::trace target_trace, oracle_trace;
  //! The written program checked: it fails on the target and passes on the oracle.
  bool fails_on_target = false;
  bool passes_on_oracle = false;
  //! "deterministic" (every re-run failed) or "intermittent" (some passed).
  std::string label() const;
};

//! On a real clock a program moves clear of what its steps race (a deadline, a dispatch, an
//! answer) at most this many times before it is judged; one still racing is left out.
inline constexpr int most_moves_clear_of_races = 64;

struct explore_result {
  int programs_run = 0;
  std::uint64_t requests = 0;
  //! Requests per program judged (shrink and triage runs not included): what a program
  //! costs the target, by the nearest-rank median and 95th percentile.
  std::uint64_t requests_median = 0, requests_p95 = 0;
  //! Coverage: of the reference's life-cycle points (reference_server::life_cycle_points:
  //! each row of the call, task, turn and client tables and each refusal SPEC answers), how
  //! many the programs judged reached, and the rest, described. So that "no divergence"
  //! says what was looked at.
  std::size_t points_reached = 0, points_total = 0;
  std::vector<std::string> never_reached;
  std::vector<bool> reached;  // index for index with life_cycle_points()
  bool coverage_met = false;  // --until-coverage ended the search
  //! With focus_rules: how many of the programs judged reached a point citing one of them.
  int focused_programs = 0;
  double seconds = 0;
  bool out_of_time = false;  // the time budget ended the search
  //! Over HTTP: divergences that did not show again when their program ran again at once
  //! (not counted as divergences), and the first of them with its program's number.
  int retried = 0;
  std::vector<std::string> first_retried;
  int first_retried_program = 0;
  //! Over HTTP: programs whose run found a request the target did not answer and that
  //! then ran clean again (not judged on the first run), and the first such request.
  int unanswered_retried = 0;
  std::string first_unanswered;
  int first_unanswered_program = 0;
  //! On a real clock: programs left out unjudged because they still raced a deadline, a
  //! dispatch or an answer after most_moves_clear_of_races moves clear of races (a run of
  //! them could not tell a correct target from a faulty one), and the first one's number.
  int left_out_racing = 0;
  int first_left_out_program = 0;
  std::optional<explore_failure> failure;
  //! The target could not be used, or stopped answering (a request not answered in two
  //! runs of one program in a row).
  std::optional<protocol::api_error> error;
};

explore_result explore(const explore_options& options);

//! `toolwire explore --shard I/N`: shard `index` (1-based) of a campaign split `count` ways,
//! each shard on a machine of its own with no coordination between them.
struct campaign_shard {
  int index = 1;
  int count = 1;
};

//! The seed job `job` (0-based, of --jobs) of `shard` searches with: base + (index - 1) +
//! count * job. Why interleaved: no two searches of one campaign share a seed whatever
//! --jobs each shard runs, and a campaign of one shard keeps base + job. It does not
//! guard against the sum passing 2^64 (it wraps, and a wrapped seed may repeat one).
std::uint64_t campaign_seed(std::uint64_t base, campaign_shard shard, int job);

//! The part of a campaign's `programs` that `shard` generates: programs / count, and one
//! more for each of the first programs % count shards, so the shards' parts add up to
//! `programs` exactly (a shard's part may be 0 when programs < count).
int shard_programs(int programs, campaign_shard shard);

//! The SPEC rules the reference's life-cycle points cite, sorted: what --focus accepts.
std::vector<std::string> focusable_rules();

//! One program judged as a search judges each program it generates: run on the options'
//! target (with the clock stops and the reference's orders a search uses) and compared
//! with the oracle. For checking a written divergence again the way it was found; `toolwire
//! simulate` checks the file's expectations instead.
struct program_judgement {
  std::vector<std::string> problems;  // empty: no divergence, no invariant broken
  std::vector<std::string> spec_ids;
  actors::trace target_trace, oracle_trace;
  std::optional<protocol::api_error> error;  // the target could not be used
  //! On a real clock the program still raced after most_moves_clear_of_races moves: not run.
  bool still_racing = false;
};
program_judgement judge_program(const scenarios::scenario& program, std::uint64_t seed,
                                const explore_options& options);

//! What is wrong with one program on a core with `faults`: the invariant violations of
//! its trace and its first divergence from the clean core. Empty when it behaves like
//! the reference.
std::vector<std::string> judge(const scenarios::scenario& program, std::uint64_t seed,
                               const reference_server::fault_set& faults);

//! The program with one expectation per scripted step (the status and error type the
//! clean core answered, citing the SPEC IDs of the step's action) and, when given, one
//! that pins down `at`: what the oracle showed at the divergence. Run against the
//! diverging target it fails; against the reference it passes.
scenarios::scenario with_oracle_expectations(scenarios::scenario program, std::uint64_t seed,
                                             const std::optional<actors::divergence>& at = {},
                                             time_ms tolerance_ms = 1);

//! Whether `plan`'s run shows a problem: an invariant violation, a failed expectation or
//! a step that could not run (what `toolwire simulate` reports).
bool fails(const scenarios::scenario& plan, const actors::trace& run);

}  // namespace toolwire::explore
