// The deterministic harness on CAF's test coordinator.
#include "toolwire/actors/simulator.hpp"

#include "toolwire/actors/participants.hpp"
#include "toolwire/actors/session_target.hpp"

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

time_ms now_of(caf::scheduler::test_coordinator& sched) {
  using namespace std::chrono;
  return duration_cast<milliseconds>(sched.clock().now().time_since_epoch()).count();
}

caf::actor_system_config test_config() {
  caf::actor_system_config config;
  config.set("scheduler.policy", caf::atom("testing"));
  config.set("logger.verbosity", caf::atom("quiet"));
  config.set("logger.console", caf::atom("none"));
  return config;
}

reference::core_config target_config(const scenario& plan) {
  reference::core_config config;
  config.api_keys = {{simulator_api_key, {reference::scope_session_manage}},
                     {simulator_limited_key, {}}};
  config.ack_timeout_ms = plan.ack_timeout_ms;
  config.result_timeout_ms = plan.result_timeout_ms;
  config.interrupt_timeout_ms = plan.interrupt_timeout_ms;
  config.secret_seed = 0x7001'5eed;
  config.faults = plan.faults;
  return config;
}

//! Steps the coordinator until nothing is runnable and no timer is due by `limit`. A
//! remote target's arrivals count as runnable work: time moves only once it is quiet.
void drive(caf::scheduler::test_coordinator& sched, seeded_picker& picker, time_ms limit,
           const run_options& options, run_result& result) {
  for (;;) {
    if (result.steps >= options.max_steps) {
      result.hit_step_limit = true;
      return;
    }
    if (!sched.jobs.empty()) {
      if (sched.jobs.size() > 1) {
        ++result.choices;
        const std::size_t chosen = picker.pick(sched.jobs.size());
        std::rotate(sched.jobs.begin(), sched.jobs.begin() + static_cast<std::ptrdiff_t>(chosen),
                    sched.jobs.begin() + static_cast<std::ptrdiff_t>(chosen) + 1);
      }
      sched.run_once();
      ++result.steps;
      continue;
    }
    if (options.host != nullptr && options.host->deliver_arrivals()) continue;
    const bool real = options.host != nullptr && options.host->real_time();
    if (real) {
      // The target's time is the wall clock: once the target is quiet, the actors' clock
      // catches up with it (firing what fell due meanwhile, in order), never beyond.
      const time_ms wall = std::min(options.host->wall_elapsed(), limit);
      if (wall > now_of(sched)) {
        sched.clock().advance_time(std::chrono::milliseconds(wall - now_of(sched)));
        continue;
      }
    }
    const auto& timers = sched.clock().schedule();
    if (timers.empty()) return;
    const auto due = timers.begin()->first;
    const time_ms due_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(due.time_since_epoch()).count();
    if (due_ms > limit) return;
    if (real) {
      // Every wait is for something: the next due step or timer, or an arrival.
      options.host->wait_until(due_ms);
      continue;
    }
    if (options.host != nullptr) options.host->clock_moves(due_ms - now_of(sched));
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

protocol::outcome<run_result> simulate(const scenario& plan, const run_options& options) {
  auto script = reference::model_script::from_json(plan.model_script, plan.name + " model script");
  if (!script) return script.error();

  run_result result;
  result.trace.set_header({{"toolwire_trace", 1},
                           {"scenario", plan.name},
                           {"source", options.source},
                           {"seed", options.seed}});
  run_context context;
  context.trace = options.record ? &result.trace : nullptr;
  context.plan = &plan;
  context.script.api_key = options.host ? options.host->api_key() : simulator_api_key;
  context.script.limited_key = options.host ? options.host->limited_key() : simulator_limited_key;
  context.script.message_tag = options.message_tag;
  if (options.host) context.script.assistant_id = options.host->assistant_id();
  for (const auto& key : {context.script.api_key, context.script.limited_key}) {
    if (!key.empty()) result.trace.add_secret(key);
  }

  caf::actor_system_config config = test_config();
  caf::actor_system system{config};
  auto& sched = dynamic_cast<caf::scheduler::test_coordinator&>(system.scheduler());
  seeded_picker picker(options.seed);

  auto target = options.host ? options.host->spawn(system, &context)
                             : spawn_session_target(system, target_config(plan), &context);
  auto model = spawn_model(system, std::move(*script), target, &context);
  caf::anon_send(target, attach_model_atom::value, model);
  auto director = spawn_director(system, plan, target, &context);

  // The scenario's time, then (in-process) a settle-out in which only the target and the
  // model run, so every open call reaches its deadline and is settled (CALL-5).
  const bool settle_out = options.host == nullptr || options.host->settle_out();
  const time_ms settle = settle_out ? plan.result_timeout_ms + plan.interrupt_timeout_ms + 1000 : 0;
  const bool real = options.host != nullptr && options.host->real_time();
  drive(sched, picker, real ? end_of_steps(plan) : end_of(plan) + settle, options, result);
  result.simulated_ms = now_of(sched);
  tear_down(sched, {caf::actor_cast<caf::actor>(target), model, director});
  if (options.host != nullptr) options.host->stop();
  return result;
}

}  // namespace toolwire::actors
