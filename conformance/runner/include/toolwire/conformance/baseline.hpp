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
  //! Known to fail now and then (e.g. on a real clock): a failure does not fail the run
  //! unless --repeat found it consistent, and a pass is not stale.
  std::set<std::string> flaky;

  // Why constructors: `baseline{{ids...}}` of callers written before `flaky` stays clean.
  baseline() = default;
  explicit baseline(std::set<std::string> expected, std::set<std::string> known_flaky = {})
      : expected_failures(std::move(expected)), flaky(std::move(known_flaky)) {}
};

//! One case id per line; `#` starts a comment. A case is known-flaky when written
//! `flaky: <id>` or `<id>  # flaky`. Errors name file:line.
protocol::outcome<baseline> load_baseline(const std::string& path);

//! Marks listed failures as expected and listed flaky cases as known flaky; returns the
//! listed (not flaky) cases that passed (stale).
std::vector<std::string> apply_baseline(const baseline& listed, std::vector<case_result>& results);

//! A baseline listing every failing case, for --update-baseline; an intermittent one
//! (--repeat) is written as flaky.
std::string baseline_text(const std::vector<case_result>& results);

}  // namespace toolwire::conformance
