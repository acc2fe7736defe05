// A scenario on its target. One host per kind: in-process, the simulator's own host of
// the reference core; over HTTP, a remote host of the profile's server or of the bundled
// server started for the plan's timeouts.
#include "toolwire/conformance/scenario_runner.hpp"

#include "bundled_reference.hpp"
#include "toolwire/conformance/remote_host.hpp"

namespace toolwire::conformance {

scenario_runner::scenario_runner(target_choice target) : target_(std::move(target)) {
  if (const auto* server = target_.bundled()) {
    bundled_ = std::make_unique<detail::bundled_reference>(
        server->faults, server->variations, server->real_clock, server->timing_tolerance_ms,
        server->settle_ms);
  }
}

scenario_runner::~scenario_runner() = default;

protocol::outcome<const target_profile*> scenario_runner::profile_for(
    const scenarios::scenario& plan) {
  if (const auto* profile = target_.profile()) return profile;
  if (!bundled_) return static_cast<const target_profile*>(nullptr);
  auto started = bundled_->profile_for(
      {plan.ack_timeout_ms, plan.result_timeout_ms, plan.interrupt_timeout_ms});
  if (!started) return started.error();
  bundled_profile_ = std::move(*started);
  return &bundled_profile_;
}

protocol::outcome<std::string> scenario_runner::not_applicable(const scenarios::scenario& plan) {
  auto profile = profile_for(plan);
  if (!profile) return profile.error();
  if (*profile != nullptr) return not_applicable_reason(plan, **profile);
  if (scenarios::needs(plan, scenarios::browser_tabs)) {
    return std::string(
        "a browser client's tab needs a server over HTTP on a real clock; "
        "the in-process target is neither");
  }
  // In-process time passes by waiting (exactly, so timing cases run); there are no
  // clock routes to test.
  return std::string(
      uses_clock_routes(plan) ? "the in-process target has no virtual-clock routes (SPEC 7)" : "");
}

protocol::outcome<actors::run_result> scenario_runner::run(const scenarios::scenario& plan,
                                                           std::uint64_t seed,
                                                           const std::string& source,
                                                           const std::string& tag,
                                                           std::vector<time_ms> clock_stops) {
  actors::run_options options;
  options.seed = seed;
  options.source = source;
  options.clock_stops = std::move(clock_stops);
  options.browser = browser_;
  options.evidence_prefix = evidence_prefix_;
  auto profile = profile_for(plan);
  if (!profile) return profile.error();
  if (*profile == nullptr) {
    // The simulator's own host runs the core with the plan's faults.
    auto faulty = plan;
    for (auto f : target_.faults())
      faulty.faults.insert(f);
    return actors::simulate(faulty, options);
  }
  auto host = remote_host::start(**profile, tag);
  if (!host) return host.error();
  options.host = host->get();
  options.message_tag = tag;
  if (real_clock()) options.owed_wait_ms = tolerance_ms();
  return actors::simulate(plan, options);
}

}  // namespace toolwire::conformance
