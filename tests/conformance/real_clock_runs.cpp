// Real-clock runs of the catalog against the bundled server (see real_clock_runs.hpp).
#include "real_clock_runs.hpp"

#include <catch2/catch.hpp>

namespace toolwire::conformance_test {

bool is_slow(const reference_server::variations::variation_set& variations) {
  using enum reference_server::variations::variation;
  return variations.contains(slow_responses) || variations.contains(late_timers) ||
         variations.contains(slow_events) || variations.contains(slow_model_calls);
}

conformance::target_choice bundled_real_clock(
    reference_server::variations::variation_set variations) {
  const bool slow = is_slow(variations);
  conformance::bundled_server server;
  server.timeouts = {slow ? 1000 : 300, slow ? 3000 : 900, slow ? 4000 : 1200};
  server.real_clock = true;
  server.timing_tolerance_ms = slow ? 450 : 150;
  server.variations = std::move(variations);
  conformance::target_choice target;
  target.kind = std::move(server);
  return target;
}

namespace {

std::vector<conformance::case_result> run(const std::vector<conformance::catalog_case>& chosen,
                                          const conformance::target_choice& target) {
  conformance::run_settings settings;
  settings.jobs = 16;
  auto results = conformance::run_cases(chosen, target, settings);
  REQUIRE(results);
  return *results;
}

}  // namespace

std::vector<conformance::case_result> run_with_reruns(
    const std::vector<conformance::catalog_case>& chosen, const conformance::target_choice& target,
    std::string_view what) {
  auto results = run(chosen, target);
  for (int rerun = 0; rerun < 2; ++rerun) {
    std::vector<conformance::catalog_case> again;
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (results[i].verdict == conformance::verdict::fail) again.push_back(chosen[i]);
    }
    if (again.empty()) break;
    for (const auto& r : run(again, target)) {
      for (auto& first : results) {
        if (first.id != r.id) continue;
        WARN(what << ": intermittent on a real clock: " << first.id << "\n"
                  << (first.evidence.empty() ? "" : first.evidence.front().text()));
        if (r.verdict != conformance::verdict::fail) first = r;
      }
    }
  }
  return results;
}

std::size_t check_real_clock_results(const std::vector<conformance::case_result>& results,
                                     std::string_view what) {
  std::size_t applicable = 0;
  for (const auto& r : results) {
    INFO(what << ": " << r.id << "\n"
              << (r.evidence.empty() ? r.not_applicable_because : r.evidence.front().text()));
    if (r.verdict == conformance::verdict::not_applicable) {
      // Only the clock routes and millisecond boundaries need the virtual clock; a slow
      // target's wide window may not fit a case's times; the browser cases need tabs,
      // which tests/browser/browser_scenarios.sh opens.
      const bool clock_reason =
          r.not_applicable_because.find("virtual_clock") != std::string::npos ||
          r.not_applicable_because.find("millisecond") != std::string::npos ||
          r.not_applicable_because.find("tolerance window of") != std::string::npos ||
          r.not_applicable_because == conformance::no_browser_reason;
      CHECK(clock_reason);
      continue;
    }
    ++applicable;
    CHECK(r.verdict == conformance::verdict::pass);
  }
  INFO(what << ": " << applicable << " of " << results.size() << " applicable");
  CHECK(applicable * 10 >= results.size() * 9);
  return applicable;
}

}  // namespace toolwire::conformance_test
