// What would make a not-applicable case run: the advice next to every reason in the
// console and the reports (issue: no empty verdicts). Kept apart from the applicability
// rules, which it reads only through their reasons. Phrased in the terms the user gave the
// target in: profile fields for a file, flags for flags (issue 24.3).
#include "toolwire/conformance/runner.hpp"

namespace toolwire::conformance {

std::string remedy_for(const std::string& reason, const target_profile* profile) {
  const auto has = [&](std::string_view text) { return reason.find(text) != std::string::npos; };
  const bool flags = profile != nullptr && profile->given_as_flags;
  const auto timeouts_where = flags ? std::string(
                                          "pass them as --ack-timeout-ms, --result-timeout-ms and "
                                          "--interrupt-timeout-ms")
                                    : std::string("put them in the profile");
  if (has("lacks part_a")) {
    return flags ? "implement Part A and pass --parts A (or A,B)"
                 : "implement Part A and add \"A\" to the profile's parts";
  }
  if (has("lacks part_b")) {
    return flags ? "implement Part B and pass --parts B (or A,B) with --assistant-id"
                 : "implement Part B and add \"B\" to the profile's parts (with assistant_id)";
  }
  if (has(no_browser_reason)) {
    return "pass --browser (it needs Chromium, node and playwright-core: scripts/bootstrap "
           "--browser; docs/browser.md)";
  }
  if (has("browser client's tab") || has("real browser tabs")) {
    if (has("in-process")) {
      return "run it over HTTP: add --bundled (the bundled server then keeps the wall clock) or "
             "--target";
    }
    return flags ? "run the target on the wall clock and pass --clock real"
                 : "run the target on the wall clock and set \"clock\": \"real\" in the profile";
  }
  // Why "to the millisecond" here: such a case names a real clock's tolerance window too,
  // but no window makes it run (not_applicable_reason); only the test clock does.
  if (has("lacks virtual_clock") || has("virtual-clock") || has("virtual clock") ||
      has("to the millisecond")) {
    if (has("in-process")) return "check over HTTP (drop --in-process)";
    if (profile == nullptr) {
      return "serve the test clock (SPEC 7) and set \"clock\": \"virtual\" in the profile";
    }
    return "serve the test clock (SPEC 7) and " + how_to_set(*profile, "clock", "\"virtual\"");
  }
  if (has("lacks limited_key")) {
    return flags ? "pass --limited-api-key-env VAR, VAR holding a key without session.manage"
                 : "add limited_api_key (a key without session.manage) to the profile";
  }
  if (has("replaces [P] rule")) {
    return flags ? "follow the rule as SPEC words it (overrides are a profile file's field)"
                 : "follow the rule as SPEC words it and remove it from the profile's overrides";
  }
  if (has("tolerance window of")) {
    return std::string(
               "make the target answer faster (the window is derived from its "
               "measured speed), or ") +
           (flags ? "pass a smaller --timing-tolerance-ms"
                  : "state a smaller timing_tolerance_ms in the profile");
  }
  if (has("do not fit the target's timeouts")) {
    return "start the target with longer timeouts, further apart (the case needs room "
           "between its deadlines), and " +
           timeouts_where;
  }
  if (has("settings: need")) {
    return "start the target with the timeouts the scenario's settings: state (and " +
           timeouts_where +
           "), or write the scenario's times relative to the target's timeouts "
           "(docs/scenario-language.md, \"Time\")";
  }
  if (has("timed for") || has("timeout")) {
    return "start the target with the timeouts the case is timed for, and " + timeouts_where;
  }
  return "see docs/target-profile.md for the capabilities a profile declares";
}

}  // namespace toolwire::conformance
