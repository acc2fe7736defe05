// Baselines (like MCP's expected-failures and Connect's known-failing lists): cases a
// target is known to fail. Listed failures do not fail a run; a listed case that passes
// does, so the list never goes stale silently.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "toolwire/conformance/runner.hpp"

namespace toolwire::conformance {

struct baseline {
  std::set<std::string> expected_failures;
};

//! One case id per line; `#` starts a comment. Errors name file:line.
protocol::outcome<baseline> load_baseline(const std::string& path);

//! Marks listed failures as expected; returns the listed cases that passed (stale).
std::vector<std::string> apply_baseline(const baseline& listed, std::vector<case_result>& results);

//! A baseline listing every failing case, for --update-baseline.
std::string baseline_text(const std::vector<case_result>& results);

}  // namespace toolwire::conformance
