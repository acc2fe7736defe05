// Reading the target flags.
#include "target_flags.hpp"

#include <filesystem>

#include "suggest.hpp"
#include "toolwire/conformance/preflight.hpp"

namespace toolwire::cli {

namespace {

//! On a real clock: the tolerance window the run checks deadlines in, and why that one
//! (chosen_target::timing and timing_caveat). The profile's stated value stands; otherwise
//! the target is measured and the window derived from its speed (a slow, correct target is
//! not failed for being slow). A stated window is measured against too, and one narrower
//! than the target's measured speed alone needs is said.
protocol::outcome<protocol::done> real_clock_timing(conformance::target_profile& profile,
                                                    bool measure_nothing, chosen_target& chosen) {
  const auto window = [&] {
    return "timing tolerance " + std::to_string(profile.timing_tolerance_ms) + " ms";
  };
  if (measure_nothing) {
    chosen.timing =
        window() + (profile.timing_tolerance_stated
                        ? ", as the profile states"
                        : ", the default (--no-preflight: the target was not measured)");
    return protocol::done{};
  }
  auto measured = conformance::measure_latency(profile);
  if (!measured) return protocol::invalid_request("preflight: " + measured.error().message);
  const auto measured_text = conformance::describe(*measured);
  if (!profile.timing_tolerance_stated) {
    profile.timing_tolerance_ms = conformance::derived_tolerance_ms(*measured);
    chosen.timing = window() + ", derived from the target's speed (" + measured_text +
                    "; the profile's timing_tolerance_ms sets it instead)";
    return protocol::done{};
  }
  chosen.timing = window() + ", as the profile states";
  // Why without the floor: the floor stands for a timer's own lateness, which the
  // preflight cannot see; a stated window may well trust the target's timers more.
  const auto speed_needs = conformance::derived_tolerance_ms(*measured, 0);
  if (profile.timing_tolerance_ms >= speed_needs) return protocol::done{};
  const std::string narrower = "narrower than the " + std::to_string(speed_needs) +
                               " ms the target's measured speed needs (" + measured_text + ")";
  chosen.timing += "; " + narrower;
  chosen.timing_caveat =
      "the stated timing tolerance (" + std::to_string(profile.timing_tolerance_ms) + " ms) is " +
      narrower +
      ", so a deadline it meets late may be judged missed on its speed alone; run again "
      "without a stated tolerance (the window is then derived from the target's speed) "
      "before reading such a failure as a SPEC violation";
  return protocol::done{};
}

}  // namespace

void target_flags::add_to(CLI::App& app, default_target fallback) {
  fallback_ = fallback;
  app.add_option("--target", target_, "a target profile (JSON; docs/target-profile.md)");
  from_flags_.add_to(app);
  if (fallback == default_target::bundled) {
    app.add_flag("--in-process", in_process_,
                 "run on the simulator's in-process reference core instead of over HTTP");
  } else {
    app.add_flag("--bundled", bundled_,
                 "run over HTTP against the bundled reference server (started on a free "
                 "loopback port with the virtual clock) instead of the in-process core");
  }
  app.add_option("--fault", faults_,
                 "run against a reference server with this fault (repeatable; toolwire serve "
                 "--list-faults lists them; not with --target)");
  app.add_option("--variation", variations_,
                 "run against a bundled reference server with this variation, behaviour SPEC "
                 "allows (repeatable; toolwire serve --list-variations)");
  app.add_option("--settle-ms", settle_ms_,
                 "over HTTP: how long the target must be quiet before its arrivals are "
                 "handed over, beyond what it owes and what its streams and the model "
                 "stand-in already hold (the profile's settle_ms; for the bundled server 0 "
                 "on its virtual clock, 15 on "
                 "a real one, 60 with --variation slow_events or slow_model_calls; carried "
                 "by every reproduce command)")
      ->check(CLI::Range(0, 600000));
  app.add_option("--request-timeout-ms", request_timeout_ms_,
                 "with --target: override the profile's request_timeout_ms (carried by "
                 "every reproduce command)")
      ->check(CLI::Range(1, 600000));
  app.add_flag("--no-preflight", no_preflight_,
               "with --target: skip the preflight (session, task, model stand-in, test "
               "clock) that runs before anything else");
}

protocol::outcome<chosen_target> target_flags::choose() const {
  const bool in_process =
      fallback_ == default_target::bundled ? in_process_ : !bundled_ && !has_profile();
  if (!target_.empty() && from_flags_.given()) {
    return protocol::invalid_request(
        "--base-url and the flags with it describe a target instead of a profile file; not "
        "with --target");
  }
  if (has_profile() && (in_process_ || bundled_ || !faults_.empty())) {
    return protocol::invalid_request(
        "--in-process, --bundled and --fault choose the reference server; not with --target or "
        "--base-url");
  }
  if (!has_profile() && (request_timeout_ms_ >= 0 || no_preflight_)) {
    return protocol::invalid_request(
        "--request-timeout-ms and --no-preflight apply to a --target or --base-url; the bundled "
        "server's are fixed");
  }
  if (in_process && settle_ms_ >= 0) {
    return protocol::invalid_request("--settle-ms applies over HTTP; in-process nothing settles");
  }
  reference_server::fault_set faults;
  for (const auto& name : faults_) {
    auto f = reference_server::parse_fault(name);
    if (!f) return protocol::invalid_request(unknown_fault_message(name));
    // Why refuse: the in-process target has no clock routes and no virtual clock of its
    // own, so a fault of a CLOCK rule would give a green run that planted nothing.
    const std::string_view rule = reference_server::describe(*f).spec_id;
    if (in_process && rule.starts_with("CLOCK-")) {
      return protocol::invalid_request(
          "fault " + name + " breaks " + std::string(rule) +
          ", which only the bundled server's virtual clock has: " +
          (fallback_ == default_target::bundled ? "drop --in-process" : "add --bundled"));
    }
    faults.insert(*f);
  }
  if (!variations_.empty() && (in_process || has_profile())) {
    return protocol::invalid_request(
        "--variation applies to the bundled server over HTTP; not in-process or with --target "
        "or --base-url");
  }
  chosen_target chosen;
  auto& target = chosen.choice;
  if (in_process) {
    target.kind = conformance::in_process_core{std::move(faults), {}};
    chosen.name = "toolwire reference (in-process)";
    return chosen;
  }
  if (!has_profile()) {
    conformance::bundled_server server;
    server.faults = std::move(faults);
    for (const auto& name : variations_) {
      auto v = reference_server::variations::parse_variation(name);
      if (!v) return protocol::invalid_request(unknown_variation_message(name));
      server.variations.insert(*v);
    }
    if (settle_ms_ >= 0) {
      server.settle_ms = settle_ms_;
      target.reproduce_flags.push_back("--settle-ms " + std::to_string(settle_ms_));
    }
    target.kind = std::move(server);
    chosen.name = "toolwire reference (bundled, over HTTP)";
    return chosen;
  }
  auto profile = target_.empty() ? from_flags_.build() : conformance::load_profile(target_);
  if (!profile) return profile.error();
  conformance::profiled_server server;
  server.path = target_;
  if (target_.empty()) {
    server.flags = from_flags_.args();
    target.reproduce_flags.push_back(profile_flags::joined(server.flags));
  }
  if (settle_ms_ >= 0) {
    profile->settle_ms = settle_ms_;
    target.reproduce_flags.push_back("--settle-ms " + std::to_string(settle_ms_));
  }
  if (request_timeout_ms_ >= 0) {
    profile->request_timeout_ms = request_timeout_ms_;
    target.reproduce_flags.push_back("--request-timeout-ms " + std::to_string(request_timeout_ms_));
  }
  // Why first: a run against a target that is not there would fail everything for one reason.
  if (auto unreachable = conformance::why_unreachable(*profile); !unreachable.empty()) {
    return protocol::invalid_request("target '" + profile->name + "' at http://" +
                                     profile->base.to_string() + " is unreachable: " + unreachable);
  }
  if (!no_preflight_) {
    if (auto failure = conformance::preflight(*profile); !failure.empty()) {
      return protocol::invalid_request("preflight: " + failure);
    }
  }
  if (!profile->virtual_clock) {
    if (auto timed = real_clock_timing(*profile, no_preflight_, chosen); !timed) {
      return timed.error();
    }
  }
  chosen.name = profile->name;
  server.profile = std::move(*profile);
  target.kind = std::move(server);
  return chosen;
}

protocol::outcome<chosen_target> target_flags::recorded(const actors::trace_header& header,
                                                        const std::string& override_profile,
                                                        bool no_preflight,
                                                        const std::string& where) {
  using kind = actors::recorded_target::kind;
  target_flags flags;
  flags.fallback_ = default_target::in_process;
  const auto target = header.target.value_or(actors::recorded_target{});
  if (!override_profile.empty()) {
    flags.target_ = override_profile;
  } else if (target.where == kind::profile) {
    // Why a hint: the header keeps the path as it was typed, relative to where the run was.
    std::error_code ec;
    if (!std::filesystem::is_regular_file(target.profile, ec)) {
      return protocol::invalid_request(
          where + ":1: this trace ran against the target profile '" + target.profile +
          "', which is not a file from here; pass --target FILE (that profile, or another)");
    }
    flags.target_ = target.profile;
  } else if (target.where == kind::profile_flags) {
    // They were recorded as the flags that built the profile, so they are read as flags.
    CLI::App parser;
    flags.from_flags_.add_to(parser);
    std::vector<std::string> reversed(target.profile_flags.rbegin(), target.profile_flags.rend());
    try {
      parser.parse(reversed);
    } catch (const CLI::ParseError& e) {
      return protocol::invalid_request(
          where + ":1: the recorded profile flags cannot be read: " + e.what());
    }
  } else {
    flags.bundled_ = target.where == kind::bundled;
    flags.variations_ = target.variations;
    flags.faults_ = header.faults.value_or(std::vector<std::string>{});
  }
  flags.no_preflight_ = no_preflight && flags.has_profile();
  auto chosen = flags.choose();
  if (!chosen) return protocol::invalid_request(where + ":1: " + chosen.error().message);
  return chosen;
}

std::string target_flags::as_flags() const {
  std::string flags;
  if (!target_.empty()) flags += " --target " + target_;
  if (from_flags_.given()) flags += " " + profile_flags::joined(from_flags_.args());
  if (in_process_) flags += " --in-process";
  if (bundled_) flags += " --bundled";
  for (const auto& f : faults_)
    flags += " --fault " + f;
  for (const auto& v : variations_)
    flags += " --variation " + v;
  if (settle_ms_ >= 0) flags += " --settle-ms " + std::to_string(settle_ms_);
  if (request_timeout_ms_ >= 0)
    flags += " --request-timeout-ms " + std::to_string(request_timeout_ms_);
  return flags;
}

}  // namespace toolwire::cli
