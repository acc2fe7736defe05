// The search: programs generated, run on the target and the oracle, judged, shrunk,
// triaged, and the written program checked.
#include "toolwire/scenarios/explore.hpp"

#include <fcntl.h>
#include <rapidcheck.h>
#include <rapidcheck/detail/Configuration.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <iterator>
#include <mutex>

#include "generate.hpp"
#include "toolwire/actors/invariants.hpp"
#include "toolwire/actors/judge.hpp"

namespace toolwire::scenarios {

namespace {

using scenarios::scenario;
using clock_type = std::chrono::steady_clock;
using protocol::json;

actors::run_result run_in_process(scenario program, std::uint64_t seed,
                                  const reference_server::fault_set& faults,
                                  bool model_when_idle = false) {
  program.faults = faults;
  actors::run_options options;
  options.seed = seed;
  options.model_when_idle = model_when_idle;
  options.source = "explore";
  auto result = actors::simulate(program, options);
  return result ? std::move(*result) : actors::run_result{};
}

//! Where a search's programs run: its target, or the in-process core with faults.
class runner {
 public:
  runner(std::unique_ptr<program_target> target, reference_server::fault_set faults)
      : target_(std::move(target)), faults_(std::move(faults)) {}

  protocol::outcome<actors::run_result> run(const scenario& program, std::uint64_t seed,
                                            std::vector<time_ms> clock_stops) {
    if (target_) return target_->run(program, seed, std::move(clock_stops));
    return run_in_process(program, seed, faults_);
  }
  //! The in-process core without faults is the oracle itself: same seed, same trace.
  bool is_oracle() const { return !target_ && faults_.empty(); }
  bool over_http() const { return target_ != nullptr; }

 private:
  std::unique_ptr<program_target> target_;
  reference_server::fault_set faults_;
};

struct judgement {
  scenario program;  // as judged (over HTTP: lasting until the reference settled)
  std::vector<std::string> problems;
  std::optional<actors::divergence> divergence;
  std::vector<std::string> spec_ids;
  std::uint64_t requests = 0;
  std::optional<protocol::api_error> error;  // the target could not be used
  actors::trace target_trace, oracle_trace;  // what was compared
  bool failed() const { return !problems.empty(); }
};

//! The rules a judgement cites, each once, in order.
void sort_unique(std::vector<std::string>& ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

//! Lock-step: where the oracle showed something, the target's clock stops too, so that
//! a target keeping time shows it at the same instant (see run_options::clock_stops).
//! Not on a real clock, where time passes by itself.
std::vector<time_ms> stops_of(const actors::trace& oracle) {
  std::vector<time_ms> stops;
  for (const auto& r : oracle.records()) {
    if (r.kind == "event" || r.kind == "model_step") stops.push_back(r.at);
  }
  std::sort(stops.begin(), stops.end());
  stops.erase(std::unique(stops.begin(), stops.end()), stops.end());
  return stops;
}

//! How many other seeds of the oracle a divergence is checked against.
constexpr std::uint64_t other_interleavings = 16;

//! What a run showed until its end. Why cut: in-process, a run goes on until every
//! deadline has passed (CALL-5), while a remote target is not waited for that long.
std::vector<actors::observation> observed_in_run(const actors::trace& run, time_ms end) {
  auto observed = actors::observe(run);
  std::erase_if(observed, [&](const actors::observation& o) { return o.at > end; });
  return observed;
}

//! The program lasting until the reference has settled everything it started. Why: a
//! run in-process goes on after its duration until every deadline has passed (CALL-5),
//! while a remote target is not waited for beyond the duration, and a real-clock run ends
//! just after its last step; a call still open there would read as one never settled.
//! On a real clock a last step (a check, once written out) keeps the run going that long.
scenario lasting_until_settled(scenario program, std::uint64_t seed, const program_shape& shape) {
  time_ms last = 0;
  // Both orders the target is compared with first: the seed's and the harness's own.
  for (const bool model_when_idle : {false, true}) {
    const auto oracle = run_in_process(program, seed, {}, model_when_idle);
    for (const auto& r : oracle.trace.records()) {
      if (r.kind == "event" || r.kind == "model_step") last = std::max(last, r.at);
    }
  }
  program.duration = std::max(program.duration, last + 1);
  if (shape.real_clock && last + 1 > scenarios::end_of_steps(program)) {
    const time_ms at = last + shape.tolerance_ms + 1;
    program.steps.push_back({at, "director", "", json::object(), {}, ""});
    program.duration = std::max(program.duration, at + 1);
  }
  return program;
}

//! Where the comparison of a run ends: where the target's run ends.
time_ms end_of_run(const scenario& program, const program_shape& shape) {
  return shape.real_clock ? scenarios::end_of_steps(program) : scenarios::end_of(program);
}

judgement judge_on(const scenario& generated, std::uint64_t seed, runner& on,
                   const program_shape& shape) {
  judgement j;
  j.program = on.over_http() ? lasting_until_settled(generated, seed, shape) : generated;
  const scenario& program = j.program;
  std::optional<actors::run_result> oracle;
  if (!on.is_oracle()) oracle = run_in_process(program, seed, {});
  // Over HTTP the first alternative tried is the harness's own order (the model answering
  // once the actors are idle, see below). Its deadlines need clock stops too: a call that
  // only this order dispatches times out at an instant the seed's oracle never stops at,
  // and the target would show that timeout at the next stop instead (a false divergence).
  std::optional<actors::run_result> harness_order;
  std::vector<time_ms> clock_stops;
  if (on.over_http()) {
    harness_order = run_in_process(program, seed, {}, /*model_when_idle=*/true);
    if (!shape.real_clock) {
      clock_stops = stops_of(oracle->trace);
      const auto more = stops_of(harness_order->trace);
      std::vector<time_ms> merged;
      std::set_union(clock_stops.begin(), clock_stops.end(), more.begin(), more.end(),
                     std::back_inserter(merged));
      clock_stops = std::move(merged);
    }
  }
  auto target = on.run(program, seed, std::move(clock_stops));
  if (!target) {
    j.error = target.error();
    return j;
  }
  for (const auto& r : target->trace.records()) {
    if (r.kind == "request") ++j.requests;
  }
  for (const auto& v : actors::judge(program, target->trace).violations) {
    j.problems.push_back("invariant " + actors::describe(v));
    j.spec_ids.push_back(v.spec_id);
  }
  j.target_trace = target->trace;
  if (!oracle) return j;
  j.oracle_trace = oracle->trace;
  const time_ms end = end_of_run(program, shape);
  const auto observed = observed_in_run(target->trace, end);
  j.divergence =
      actors::first_divergence(observed_in_run(oracle->trace, end), observed, shape.tolerance_ms);
  // Actors acting at one instant may go in any order (SPEC leaves it open), and the
  // target's order need not be the oracle's for this seed: the target diverges only when
  // no interleaving of the reference shows what it showed. Over HTTP the first one tried
  // is the harness's own order, the model answering once the actors are idle: an actor's
  // DELETE at the instant of a model step then goes before the answer, which in-process
  // only some seeds show (and TOOLS-5 gives a call to a live client's tool only).
  const std::uint64_t first_other = on.over_http() ? 0 : 1;
  for (std::uint64_t other = first_other; j.divergence && other <= other_interleavings; ++other) {
    const auto alternative =
        other == 0 ? std::move(*harness_order) : run_in_process(program, seed + other, {});
    if (!actors::first_divergence(observed_in_run(alternative.trace, end), observed,
                                  shape.tolerance_ms)) {
      j.divergence.reset();
    }
  }
  if (j.divergence) {
    for (auto& line : actors::describe(*j.divergence))
      j.problems.push_back(std::move(line));
    j.spec_ids.insert(j.spec_ids.end(), j.divergence->spec_ids.begin(),
                      j.divergence->spec_ids.end());
  }
  return j;
}

//! Reports progress and nothing else (RapidCheck's own reporter writes to stderr).
class quiet_listener final : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

//! The state of one search: its budget, progress and result.
struct search {
  explicit search(const explore_options& o) : options(o) {}
  const explore_options& options;
  clock_type::time_point started = clock_type::now();
  std::atomic<int> claimed{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;  // guards the fields below
  explore_progress progress;
  explore_result result;

  bool over_budget() const {
    return options.time_budget && clock_type::now() - started >= *options.time_budget;
  }
  double seconds() const {
    return std::chrono::duration<double>(clock_type::now() - started).count();
  }
  void ran(const judgement& j) {
    std::lock_guard lock(mutex);
    ++progress.programs;
    progress.requests += j.requests;
    progress.seconds = seconds();
    if (options.progress) options.progress(progress);
  }
  void counted_retry(const judgement& j) {
    std::lock_guard lock(mutex);
    if (result.retried++ == 0) {
      result.first_retried = j.problems;
      result.first_retried_program = progress.programs + 1;
    }
  }
  void failed_to_use(const protocol::api_error& error) {
    std::lock_guard lock(mutex);
    if (!result.error) result.error = error;
    stop = true;
  }
};

void triage_and_verify(explore_failure& failure, runner& on, const program_shape& shape, int runs) {
  failure.triage_runs = runs;
  for (int i = 0; i < runs; ++i) {
    if (judge_on(failure.program, failure.seed, on, shape).failed()) ++failure.triage_failures;
  }
  failure.program = with_oracle_expectations(failure.program, failure.seed, failure.divergence,
                                             shape.tolerance_ms);
  auto on_target = on.run(failure.program, failure.seed, {});
  failure.fails_on_target = on_target && fails(failure.program, on_target->trace);
  const auto oracle = run_in_process(failure.program, failure.seed, {});
  failure.passes_on_oracle = !fails(failure.program, oracle.trace);
}

//! The search: one RapidCheck property over generated programs, on one target.
void search_on(search& s) {
  const auto& options = s.options;
  std::unique_ptr<program_target> target;
  if (options.target) {
    auto made = options.target();
    if (!made) return s.failed_to_use(made.error());
    target = std::move(*made);
  }
  runner on(std::move(target), options.faults);
  std::optional<explore_failure> mine;
  auto property = [&] {
    // Once the search has a failure, every call is a shrink step and runs; before, a
    // program runs only while the search goes on.
    if (!mine) {
      if (s.stop || s.over_budget() || (options.stopped_elsewhere && options.stopped_elsewhere()) ||
          s.claimed.fetch_add(1) >= options.programs) {
        return;
      }
    }
    const auto program = *rc::gen::exec([&] { return detail::gen_program(options.shape); });
    auto j = judge_on(program, options.seed, on, options.shape);
    if (j.error) {
      s.failed_to_use(*j.error);
      return;
    }
    if (j.failed() && !mine && on.over_http()) {
      // Over HTTP a divergence may be the timing of the wire rather than the target's
      // behaviour (on a real clock, a race with a deadline; on any, an arrival later than
      // the harness's settle time): it counts only when it shows again at once. One that
      // does not is named in the summary, not hidden.
      auto again = judge_on(program, options.seed, on, options.shape);
      if (!again.failed()) {
        s.counted_retry(j);
        j = std::move(again);
      }
    }
    if (!mine) s.ran(j);
    if (!j.failed()) return;
    if (!mine) {
      std::lock_guard lock(s.mutex);
      s.stop = true;
      // Another process of `toolwire explore --jobs` found one first: this search stops.
      if (options.claim_divergence && !options.claim_divergence()) return;
      ++s.progress.divergences;
      mine = explore_failure{};
      mine->seed = options.seed;
      mine->programs_before = s.progress.programs - 1;
    } else {
      ++mine->shrink_runs;
    }
    // Shrinking keeps the last program that still fails: it ends on the smallest.
    mine->program = j.program;
    mine->problems = j.problems;
    mine->divergence = j.divergence;
    mine->spec_ids = j.spec_ids;
    mine->target_trace = std::move(j.target_trace);
    mine->oracle_trace = std::move(j.oracle_trace);
    RC_FAIL("the program misbehaves");
  };
  rc::detail::TestParams params;
  params.seed = options.seed;
  params.maxSuccess = options.programs;
  params.disableShrinking = !options.shrink;
  quiet_listener listener;
  rc::detail::checkTestable(property, rc::detail::TestMetadata{}, params, listener);
  if (!mine) return;
  // In-process the target is deterministic: one re-run says all.
  triage_and_verify(*mine, on, options.shape, options.target ? options.triage_runs : 1);
  std::lock_guard lock(s.mutex);
  sort_unique(mine->spec_ids);
  s.result.failure = std::move(mine);
}

}  // namespace

std::string explore_failure::label() const {
  if (triage_runs == 0) return "deterministic";
  return triage_failures == triage_runs ? "deterministic" : "intermittent";
}

bool fails(const scenarios::scenario& plan, const actors::trace& run) {
  return actors::judge(plan, run).broke_rules();
}

std::vector<std::string> judge(const scenario& program, std::uint64_t seed,
                               const reference_server::fault_set& faults) {
  runner on(nullptr, faults);
  return judge_on(program, seed, on, program_shape{}).problems;
}

program_judgement judge_program(const scenario& program, std::uint64_t seed,
                                const explore_options& options) {
  program_judgement judged;
  std::unique_ptr<program_target> target;
  if (options.target) {
    auto made = options.target();
    if (!made) {
      judged.error = made.error();
      return judged;
    }
    target = std::move(*made);
  }
  runner on(std::move(target), options.faults);
  auto j = judge_on(program, seed, on, options.shape);
  judged.problems = std::move(j.problems);
  judged.spec_ids = std::move(j.spec_ids);
  sort_unique(judged.spec_ids);
  judged.target_trace = std::move(j.target_trace);
  judged.oracle_trace = std::move(j.oracle_trace);
  judged.error = std::move(j.error);
  return judged;
}

//! RapidCheck prints its global configuration, with a random seed explore never uses, to
//! stderr the first time it reads it. A second seed in the output would mislead whoever
//! reproduces a finding, so it is read once here with stderr closed.
void load_rapidcheck_configuration_quietly() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::fflush(stderr);
    const int saved = dup(STDERR_FILENO);
    const int null = open("/dev/null", O_WRONLY);
    if (saved < 0 || null < 0) {
      rc::detail::configuration();
    } else {
      dup2(null, STDERR_FILENO);
      rc::detail::configuration();
      std::fflush(stderr);
      dup2(saved, STDERR_FILENO);
    }
    if (null >= 0) close(null);
    if (saved >= 0) close(saved);
  });
}

explore_result explore(const explore_options& options) {
  load_rapidcheck_configuration_quietly();
  search s(options);
  search_on(s);
  explore_result result = std::move(s.result);
  result.requests = s.progress.requests;
  result.seconds = s.seconds();
  result.programs_run = result.failure ? result.failure->programs_before + 1 : s.progress.programs;
  result.out_of_time = !result.failure && s.over_budget() && s.progress.programs < options.programs;
  return result;
}

}  // namespace toolwire::scenarios
