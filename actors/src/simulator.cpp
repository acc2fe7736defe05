// The deterministic harness on CAF's test coordinator.
#include "toolwire/actors/simulator.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "toolwire/actors/core_actor.hpp"
#include "toolwire/actors/expectations.hpp"
#include "toolwire/actors/participants.hpp"
#include "toolwire/actors/trace_header.hpp"

namespace toolwire::actors {

namespace {

//! splitmix64: our own arithmetic, so a seed picks the same interleaving everywhere.
class seeded_picker {
 public:
  explicit seeded_picker(std::uint64_t seed) : state_(seed) {}
  std::size_t pick(std::size_t count) {
    state_ += 0x9e3779b97f4a7c15ULL;
    std::uint64_t x = state_;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return static_cast<std::size_t>(x % count);
  }

 private:
  std::uint64_t state_;
};

template <typename Schedule>
time_ms first_due_ms(const Schedule& timers) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             timers.begin()->first.time_since_epoch())
      .count();
}

time_ms now_of(caf::scheduler::test_coordinator& sched) {
  using namespace std::chrono;
  return duration_cast<milliseconds>(sched.clock().now().time_since_epoch()).count();
}

caf::actor_system_config test_config() {
  caf::actor_system_config config;
  config.set("scheduler.policy", caf::atom("testing"));
  config.set("logger.verbosity", caf::atom("quiet"));
  config.set("logger.console", caf::atom("none"));
  config.add_message_types<caf::id_block::toolwire_messages>();
  return config;
}

reference_server::core_config target_config(const scenarios::scenario& plan) {
  reference_server::core_config config;
  config.api_keys = {{simulator_api_key, {reference_server::scope_session_manage}},
                     {simulator_limited_key, {}}};
  config.ack_timeout_ms = plan.ack_timeout_ms;
  config.result_timeout_ms = plan.result_timeout_ms;
  config.interrupt_timeout_ms = plan.interrupt_timeout_ms;
  config.secret_seed = 0x7001'5eed;
  config.cors_origins = {simulator_cors_origin};
  config.faults = plan.faults;
  return config;
}

//! The reference core in-process: no arrivals to hand over (its events and model steps
//! are messages already), no clock of its own (it waits on the actors' clock), and a run
//! that settles out so every open call reaches its deadline (CALL-5).
class in_process_host final : public server_host {
 public:
  explicit in_process_host(const scenarios::scenario& plan) : config_(target_config(plan)) {}
  server_actor spawn(caf::actor_system& system, run_context* context) override {
    return spawn_core_actor(system, config_, context);
  }
  bool deliver_arrivals() override { return false; }
  void clock_moves(time_ms) override {}
  std::string api_key() const override { return simulator_api_key; }
  std::string limited_key() const override { return simulator_limited_key; }
  std::string cors_origin() const override { return simulator_cors_origin; }
  std::int64_t assistant_id() const override { return run_settings{}.assistant_id; }
  bool settle_out() const override { return true; }
  void stop() override {}

 private:
  reference_server::core_config config_;
};

time_ms next_due(caf::scheduler::test_coordinator& sched) {
  const auto& timers = sched.clock().schedule();
  if (timers.empty()) return std::numeric_limits<time_ms>::max();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             timers.begin()->first.time_since_epoch())
      .count();
}

//! The idle moments of a real-clock run: the target's time is the wall clock. Once the
//! target is quiet (and owes nothing, as over a virtual clock), what arrived is handed
//! over first; else the next timer fires at its due time (so a step is recorded at its
//! time even when the harness was late); else the harness waits for that timer, cut
//! short by any arrival: every wait is for something. The run is over once the wall clock
//! passed `limit` with nothing arrived and no timer due by then. Until then the run waits
//! even without a timer of its own: what its last steps expect may still be owed.
class real_time_driver {
 public:
  //! `steps_late`: run_context::steps_late_ms, read at each idle moment.
  real_time_driver(server_host& host, time_ms limit, const time_ms& steps_late)
      : host_(host), limit_(limit), steps_late_(steps_late) {}

  //! How far behind the wall clock a timer fired, at worst.
  time_ms worst_late_ms() const { return worst_late_ms_; }

  //! One idle moment; true once the run is over.
  bool idle(caf::scheduler::test_coordinator& sched) {
    using std::chrono::milliseconds;
    host_.await_quiet();
    // Why later by the steps' delay: once a step waited for what the target owed, every
    // later step plays that much after its written time (the director keeps their gaps),
    // the last one too, and the grace after it is still the target's.
    const time_ms limit = limit_ + steps_late_;
    const time_ms now = now_of(sched);
    const time_ms due = next_due(sched);
    if (const auto arrived = host_.latest_arrival_before(std::numeric_limits<time_ms>::max())) {
      // What the target sent is handed over before the next timer fires: it is what the
      // run's own requests caused (a model request, a dispatch), which takes no time in the
      // script's terms, as on a virtual clock. It is recorded at its arrival, or just before
      // that timer (or the run's end) when the target took longer than the gap to it.
      const time_ms at = std::max(now, std::min({*arrived, due - 1, limit - 1}));
      if (at > now) sched.clock().advance_time(milliseconds(at - now));
      host_.deliver_arrived_by(*arrived);
      return false;
    }
    if (due <= now) {
      sched.clock().trigger_timeout();
      return false;
    }
    // Why the end moves by the lateness: the grace after the last step is for the target,
    // so it counts from when that step actually went out. A harness that waited out its
    // settle time for longer than the paced gap between steps (a slow target, a loaded
    // machine, a long settle_ms) sent it late; ending at the written time would judge
    // the target on a window it never had (issue 21: a 60 ms settle failed every run).
    const time_ms wall_until = due <= limit ? due : limit + late_ms_;
    if (host_.wall_elapsed() >= wall_until) {
      if (due > limit) return true;
      late_ms_ = std::max<time_ms>(0, host_.wall_elapsed() - due);
      worst_late_ms_ = std::max(worst_late_ms_, late_ms_);
      sched.clock().advance_time(milliseconds(due - now));
      return false;
    }
    host_.wait_until(wall_until);
    return false;
  }

 private:
  server_host& host_;
  time_ms limit_;
  const time_ms& steps_late_;
  //! How much later than its due time the harness fired the last timer (wall ms).
  time_ms late_ms_ = 0;
  time_ms worst_late_ms_ = 0;
};

//! On a virtual clock, what a remote target does at an instant does not depend on how long
//! its reaction takes in wall time; but a loaded machine can delay that reaction (a model
//! request after a timeout fired) beyond the settle time. So, before the clock moves on,
//! an expectation already due that still misses something makes the harness wait for the
//! target, bounded. A target that lets such a wait run out has shown it will not send
//! what is missing: the rest of its run is not waited for again, so a failing target
//! costs one bound per run, not one per step.
class due_expectation_wait {
 public:
  due_expectation_wait(const scenarios::scenario& plan, const run_options& options,
                       server_host& host, const trace& run)
      : plan_(plan), run_(run), host_(options.record ? &host : nullptr) {}

  //! True when something arrived and was handed over.
  bool waited_for_arrival() {
    if (host_ == nullptr || given_up_ || reached_expectations_hold(plan_, run_)) return false;
    if (host_->await_arrival()) return true;
    given_up_ = true;
    return false;
  }

 private:
  const scenarios::scenario& plan_;
  const trace& run_;
  server_host* host_;
  bool given_up_ = false;
};

//! Steps the coordinator until nothing is runnable and no timer is due by `limit`. A
//! remote target's arrivals count as runnable work: time moves only once it is quiet.
//! How many of the runnable jobs may go next: with `model_when_idle`, the model's job is
//! moved behind the others and waits for them.
std::size_t eligible_jobs(caf::scheduler::test_coordinator& sched, const caf::resumable* model,
                          const run_options& options) {
  if (!options.model_when_idle) return sched.jobs.size();
  const auto others = std::stable_partition(sched.jobs.begin(), sched.jobs.end(),
                                            [&](caf::resumable* job) { return job != model; });
  const auto count = static_cast<std::size_t>(others - sched.jobs.begin());
  return count == 0 ? sched.jobs.size() : count;
}

//! With run_options::registration_order, when the pick fell on a client: the eligible
//! client whose next registration comes first in that order (ties keep the pick). Only
//! clients against each other are ordered; the seed still decides the rest.
std::size_t next_registration_first(const std::deque<caf::resumable*>& jobs, std::size_t chosen,
                                    std::size_t eligible, const run_options& options,
                                    const run_context& context) {
  const auto& order = options.registration_order;
  auto rank = [&](const caf::resumable* job) -> std::optional<std::size_t> {
    const auto client = context.client_jobs.find(job);
    if (client == context.client_jobs.end()) return std::nullopt;
    const auto sent = context.registrations_sent.find(client->second);
    std::size_t earlier = sent == context.registrations_sent.end() ? 0 : sent->second;
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (order[i] == client->second && earlier-- == 0) return i;
    }
    return order.size();
  };
  const auto picked = rank(jobs[chosen]);
  if (!picked) return chosen;
  std::size_t best = chosen, best_rank = *picked;
  for (std::size_t i = 0; i < eligible; ++i) {
    const auto r = rank(jobs[i]);
    if (r && *r < best_rank) best = i, best_rank = *r;
  }
  return best;
}

void drive(caf::scheduler::test_coordinator& sched, seeded_picker& picker, time_ms limit,
           const scenarios::scenario& plan, const run_options& options, server_host& host,
           const caf::resumable* model, const run_context& context, run_result& result) {
  due_expectation_wait due_wait(plan, options, host, result.trace);
  std::optional<real_time_driver> real_time;
  if (host.real_time()) real_time.emplace(host, limit, context.steps_late_ms);
  for (;;) {
    if (result.steps >= options.max_steps) {
      result.hit_step_limit = true;
      return;
    }
    if (!sched.jobs.empty()) {
      if (sched.jobs.size() > 1) {
        ++result.choices;
        const std::size_t eligible = eligible_jobs(sched, model, options);
        std::size_t chosen = picker.pick(eligible);
        if (!options.registration_order.empty())
          chosen = next_registration_first(sched.jobs, chosen, eligible, options, context);
        std::rotate(sched.jobs.begin(), sched.jobs.begin() + static_cast<std::ptrdiff_t>(chosen),
                    sched.jobs.begin() + static_cast<std::ptrdiff_t>(chosen) + 1);
      }
      sched.run_once();
      ++result.steps;
      continue;
    }
    if (real_time) {
      const bool over = real_time->idle(sched);
      result.harness_late_ms = real_time->worst_late_ms();
      if (over) return;
      continue;
    }
    if (host.deliver_arrivals()) continue;
    if (due_wait.waited_for_arrival()) continue;
    const auto& timers = sched.clock().schedule();
    const time_ms now = now_of(sched);
    const auto stop = std::upper_bound(options.clock_stops.begin(), options.clock_stops.end(), now);
    if (timers.empty() && stop == options.clock_stops.end()) return;
    time_ms due_ms = timers.empty() ? limit + 1 : first_due_ms(timers);
    if (stop != options.clock_stops.end()) due_ms = std::min(due_ms, *stop);
    if (due_ms > limit) return;
    host.clock_moves(due_ms - now);
    // A stop keeps the clock's part below a millisecond (CAF's test clock starts at 1 ns,
    // and every timer is due a whole number of ms after some now): a stop at exactly N ms
    // would make timers set there due 1 ns before those set elsewhere for the same N ms,
    // and the harness would go idle between them (a false divergence in explore).
    const auto since_epoch = sched.clock().now().time_since_epoch();
    const auto below_ms =
        since_epoch - std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch);
    const auto due =
        timers.empty() || due_ms < first_due_ms(timers)
            ? decltype(sched.clock().now())(std::chrono::milliseconds(due_ms)) + below_ms
            : timers.begin()->first;
    sched.clock().advance_time(due - sched.clock().now());
  }
}

//! Destroying a system with live actors holding timers spins forever: stop them all first.
void tear_down(caf::scheduler::test_coordinator& sched, const std::vector<caf::actor>& actors) {
  for (const auto& actor : actors)
    caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  sched.run();
  while (sched.has_pending_timeout()) {
    sched.trigger_timeouts();
    sched.run();
  }
}

}  // namespace

protocol::outcome<run_result> simulate(const scenarios::scenario& plan,
                                       const run_options& options) {
  auto script =
      reference_server::model_script::from_json(plan.model_script, plan.name + " model script");
  if (!script) return script.error();

  run_result result;
  trace_header header;
  header.scenario = plan.name;
  header.source = options.source;
  header.seed = options.seed;
  // Part of what picked the interleaving: without it the seed alone does not replay it.
  header.registration_order = options.registration_order;
  std::optional<in_process_host> in_process;
  server_host& host = options.host != nullptr ? *options.host : in_process.emplace(plan);
  run_context context;
  context.trace = options.record ? &result.trace : nullptr;
  if (options.note_deadlines) context.deadlines = &result.deadlines;
  context.life_cycle_reached = &result.life_cycle_reached;
  context.plan = &plan;
  context.settings.api_key = host.api_key();
  context.settings.limited_key = host.limited_key();
  context.settings.cors_origin = host.cors_origin();
  context.settings.message_tag = options.message_tag;
  context.settings.assistant_id = host.assistant_id();
  context.settings.base_url = host.base_url();
  context.browser = options.browser;
  context.evidence_prefix = options.evidence_prefix;
  if (!host.settle_out()) {
    // The invariants read it: a run that does not settle out ends at its duration, and a
    // call whose deadline lies past the end owes no settlement there (CALL-5 on one horizon).
    header.call_deadlines_ms = {plan.ack_timeout_ms, plan.result_timeout_ms};
    if (host.real_time() && options.owed_wait_ms > 0) {
      context.settings.owed_wait_ms = options.owed_wait_ms;
      // The invariants read it: the stream may show an event up to this much late.
      header.stream_lag_ms = options.owed_wait_ms;
    }
  }
  result.trace.set_header(header.to_json());
  for (const auto& key : {context.settings.api_key, context.settings.limited_key}) {
    if (!key.empty()) result.trace.add_secret(key);
  }

  caf::actor_system_config config = test_config();
  caf::actor_system system{config};
  auto& sched = dynamic_cast<caf::scheduler::test_coordinator&>(system.scheduler());
  seeded_picker picker(options.seed);

  auto target = host.spawn(system, &context);
  // The director first: the model tells it each task answer's calls.
  auto director = spawn_director(system, plan, target, &context);
  auto model = spawn_model(system, std::move(*script), target, director, &context);
  caf::anon_send(target, attach_model_atom::value, model);

  // The scenario's time, then (in-process) a settle-out in which only the target and the
  // model run, so every open call reaches its deadline and is settled (CALL-5).
  const time_ms settle =
      host.settle_out() ? plan.result_timeout_ms + plan.interrupt_timeout_ms + 1000 : 0;
  const bool real = host.real_time();
  const auto* model_job =
      dynamic_cast<caf::resumable*>(caf::actor_cast<caf::abstract_actor*>(model));
  // Real time runs on past its last step by the grace its expectations allow.
  const time_ms real_end = scenarios::end_of_steps(plan) + context.settings.owed_wait_ms;
  drive(sched, picker, real ? real_end : scenarios::end_of(plan) + settle, plan, options, host,
        model_job, context, result);
  result.simulated_ms = now_of(sched);
  if (real) result.harness_late_ms = std::max(result.harness_late_ms, context.steps_late_ms);
  // Why a window more (a second at least), and only then: a slow target's deadline event
  // that missed the window came after the run's end, and its failure read as one the
  // target never sent. A passing run costs nothing more.
  if (real && options.record && !reached_expectations_hold(plan, result.trace)) {
    constexpr time_ms shortest_look_after_end = 1000;
    host.record_late_events(std::max(context.settings.owed_wait_ms, shortest_look_after_end));
  }
  // Why the trace closes here: tearing down fires the timers still pending, and an actor
  // not yet stopped acts on them (a task caller's poll after the run's end, refused by the
  // stopped target). That is the harness stopping, not the run: recorded, it read as a
  // request the target never answered (explore on a real clock, seed 7000, program 28).
  context.trace = nullptr;
  context.deadlines = nullptr;
  tear_down(sched,
            {caf::actor_cast<caf::actor>(target), model, caf::actor_cast<caf::actor>(director)});
  host.stop();
  return result;
}

}  // namespace toolwire::actors
