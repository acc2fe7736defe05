// Running the catalog against the bundled server on a real clock, as the conformance
// tests do: shared by the catalog's real-clock test and the variation proof.
#pragma once

#include <string_view>
#include <vector>

#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/runner.hpp"

namespace toolwire::conformance_test {

//! True when `variations` make the server slow (slow_responses, slow_events,
//! late_timers, slow_model_calls).
bool is_slow(const reference_server::variations::variation_set& variations);

//! The bundled server on a real clock at 300/900/1200 ms with a 150 ms tolerance (with a
//! slow variation 1000/3000/4000 ms and 450 ms, as the preflight would derive for it: a
//! window that wide does not fit 300 ms timeouts), as a real-clock target should be started; `variations` as `serve
//! --variation` takes them.
conformance::target_choice bundled_real_clock(
    reference_server::variations::variation_set variations = {});

//! Runs `chosen` against `target`, 16 at once. Why reruns: on a wall clock a loaded CI
//! machine can make a case fail once (the flake triage of `check --repeat`); a case that
//! fails in all three runs is a false failure of the suite. A case that failed and then
//! passed is reported with a Catch2 WARN naming `what` and keeps its passing result.
std::vector<conformance::case_result> run_with_reruns(
    const std::vector<conformance::catalog_case>& chosen, const conformance::target_choice& target,
    std::string_view what);

//! Checks a real-clock run: every applicable case passed, only cases that need the
//! virtual clock (or, on a slow target, a window wider than its times) were not
//! applicable, and at least 90 % applied. Returns how many applied.
std::size_t check_real_clock_results(const std::vector<conformance::case_result>& results,
                                     std::string_view what);

}  // namespace toolwire::conformance_test
