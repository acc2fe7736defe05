// What would make a not-applicable case run: the advice next to every reason in the
// console and the reports (issue: no empty verdicts). Kept apart from the applicability
// rules, which it reads only through their reasons.
#include "toolwire/conformance/runner.hpp"

namespace toolwire::conformance {

std::string remedy_for(const std::string& reason) {
  const auto has = [&](std::string_view text) { return reason.find(text) != std::string::npos; };
  if (has("lacks part_a")) return "implement Part A and add \"A\" to the profile's parts";
  if (has("lacks part_b")) {
    return "implement Part B and add \"B\" to the profile's parts (with assistant_id)";
  }
  if (has("lacks virtual_clock") || has("virtual-clock") || has("virtual clock")) {
    if (has("in-process")) return "check over HTTP (drop --in-process)";
    return "serve the test clock (SPEC 7) and set \"clock\": \"virtual\" in the profile";
  }
  if (has("lacks limited_key")) {
    return "add limited_api_key (a key without session.manage) to the profile";
  }
  if (has("replaces [P] rule")) {
    return "follow the rule as SPEC words it and remove it from the profile's overrides";
  }
  if (has("tolerance window of")) {
    return "make the target answer faster (the window is derived from its measured speed), "
           "or state a smaller timing_tolerance_ms in the profile";
  }
  if (has("settings: need")) {
    return "start the target with the timeouts the scenario's settings: state (and put them "
           "in the profile), or write the scenario's times relative to the target's timeouts "
           "(docs/scenario-language.md, \"Time\")";
  }
  if (has("timed for") || has("timeout")) {
    return "start the target with the timeouts the case is timed for, and put them in the "
           "profile";
  }
  return "see docs/target-profile.md for the capabilities a profile declares";
}

}  // namespace toolwire::conformance
