// A scenario on its target: in-process, on the bundled server, or on a profile's server.
#include "toolwire/conformance/scenario_target.hpp"

#include "bundled_reference.hpp"
#include "toolwire/conformance/remote_host.hpp"

namespace toolwire::conformance {

scenario_target::scenario_target(target_choice target) : target_(std::move(target)) {
  if (!target_.in_process && !target_.profile) {
    bundled_ = std::make_unique<detail::bundled_reference>(
        target_.faults, target_.variations, target_.bundled_real_clock, target_.timing_tolerance_ms,
        target_.bundled_settle_ms);
  }
}

scenario_target::~scenario_target() = default;

protocol::outcome<target_profile> scenario_target::profile_for(const scenarios::scenario& plan) {
  if (target_.profile) return *target_.profile;
  return bundled_->profile_for(
      {plan.ack_timeout_ms, plan.result_timeout_ms, plan.interrupt_timeout_ms});
}

protocol::outcome<scenarios::timing> scenario_target::timing() {
  if (target_.profile) return timing_of(*target_.profile);
  scenarios::timing timing;
  timing.ack_timeout_ms = target_.ack_timeout_ms;
  timing.result_timeout_ms = target_.result_timeout_ms;
  timing.interrupt_timeout_ms = target_.interrupt_timeout_ms;
  if (!target_.in_process && target_.bundled_real_clock) {
    timing.real_clock = true;
    timing.tolerance_ms = target_.timing_tolerance_ms;
  }
  return timing;
}

protocol::outcome<std::string> scenario_target::not_applicable(const scenarios::scenario& plan) {
  if (target_.in_process) {
    if (scenarios::needs(plan, scenarios::browser_tabs)) {
      return std::string(
          "a browser client's tab needs a server over HTTP on a real clock; "
          "the in-process target is neither");
    }
    // In-process time passes by waiting (exactly, so timing cases run); there are no
    // clock routes to test.
    return std::string(uses_clock_routes(plan)
                           ? "the in-process target has no virtual-clock routes (SPEC 7)"
                           : "");
  }
  auto profile = profile_for(plan);
  if (!profile) return profile.error();
  return not_applicable_reason(plan, *profile);
}

protocol::outcome<actors::run_result> scenario_target::run(const scenarios::scenario& plan,
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
  if (target_.in_process) {
    auto faulty = plan;
    faulty.faults.insert(target_.faults.begin(), target_.faults.end());
    return actors::simulate(faulty, options);
  }
  auto profile = profile_for(plan);
  if (!profile) return profile.error();
  auto host = remote_host::start(*profile, tag);
  if (!host) return host.error();
  options.host = host->get();
  options.message_tag = tag;
  if (real_clock()) options.owed_wait_ms = tolerance_ms();
  return actors::simulate(plan, options);
}

time_ms scenario_target::tolerance_ms() const {
  if (target_.profile) {
    return target_.profile->virtual_clock ? 1 : target_.profile->timing_tolerance_ms;
  }
  return !target_.in_process && target_.bundled_real_clock ? target_.timing_tolerance_ms : 1;
}

bool scenario_target::real_clock() const {
  if (target_.profile) return !target_.profile->virtual_clock;
  return !target_.in_process && target_.bundled_real_clock;
}

}  // namespace toolwire::conformance
