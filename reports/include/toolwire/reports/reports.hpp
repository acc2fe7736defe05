// Reports of a conformance run: JUnit XML for CI test tabs, JSON with everything (verdicts,
// evidence, the trace of every case) for the HTML report and for tools, and a Markdown
// summary for CI step summaries. Credentials never reach them: traces are redacted when
// recorded, and profiles are described without their keys.
#pragma once

#include <string>
#include <vector>

#include "toolwire/conformance/runner.hpp"

namespace toolwire::reports {

struct run_summary {
  std::string target;  // the target's name (never its credentials)
  std::uint64_t seed = 0;
  double seconds = 0;
  std::vector<std::string> stale_baseline;  // listed as expected failures, but passed
};

struct tally {
  std::size_t pass = 0, fail = 0, warn = 0, not_applicable = 0, expected_failures = 0;
};

tally count(const std::vector<conformance::case_result>& results);

//! One <testcase> per case (classname = its group), failures with SPEC IDs and evidence,
//! warnings and not-applicable cases as <skipped> with the reason.
std::string junit_xml(const std::vector<conformance::case_result>& results,
                      const run_summary& summary);

protocol::json json_report(const std::vector<conformance::case_result>& results,
                           const run_summary& summary);

std::string markdown_summary(const std::vector<conformance::case_result>& results,
                             const run_summary& summary);

//! XML text escaping (&, <, >, ", ') with control characters dropped.
std::string xml_escape(std::string_view text);

}  // namespace toolwire::reports
