// --repeat: failing cases run again, so a failure on a real clock can be told apart from
// a flake. Kept apart from the running of cases, which it only calls.
#include "toolwire/conformance/runner.hpp"

namespace toolwire::conformance {

std::optional<protocol::api_error> rerun_failures(const std::vector<catalog_case>& cases,
                                                  std::vector<case_result>& results,
                                                  const target_choice& target,
                                                  const run_settings& settings, int times) {
  std::vector<std::size_t> failing;
  std::vector<catalog_case> again;
  for (std::size_t i = 0; i < results.size() && i < cases.size(); ++i) {
    if (results[i].verdict == verdict::fail || results[i].verdict == verdict::warn) {
      failing.push_back(i);
      again.push_back(cases[i]);
    }
  }
  if (failing.empty() || times < 1) return std::nullopt;
  run_settings quiet = settings;
  quiet.progress = nullptr;
  for (int round = 0; round < times; ++round) {
    auto rerun = run_cases(again, target, quiet);
    if (!rerun) return rerun.error();
    for (std::size_t k = 0; k < failing.size(); ++k) {
      auto& r = results[failing[k]];
      ++r.reruns;
      const auto v = (*rerun)[k].verdict;
      if (v == verdict::fail || v == verdict::warn) ++r.rerun_failures;
    }
  }
  for (const auto i : failing) {
    auto& r = results[i];
    r.repeat_label = r.rerun_failures == r.reruns ? "consistent" : "intermittent";
    r.evidence.push_back(
        evidence_that(evidence_kind::repeat, "failed " + std::to_string(r.rerun_failures + 1) +
                                                 " of " + std::to_string(r.reruns + 1) + " runs (" +
                                                 r.repeat_label + ")"));
  }
  return std::nullopt;
}

}  // namespace toolwire::conformance
