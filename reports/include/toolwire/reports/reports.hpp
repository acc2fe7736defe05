// Reports of a conformance run: JUnit XML for CI test tabs, JSON with everything (verdicts,
// evidence, the trace of every case) for the HTML report and for tools, and a Markdown
// summary for CI step summaries. Credentials never reach them: traces are redacted when
// recorded, and profiles are described without their keys.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "toolwire/conformance/runner.hpp"

namespace toolwire::reports {

struct run_summary {
  std::string target;  // the target's name (never its credentials)
  std::uint64_t seed = 0;
  double seconds = 0;
  std::vector<std::string> stale_baseline;  // listed as expected failures, but passed
  int min_applicable_pct = 0;               // --min-applicable; 0: no minimum
  int repeat = 0;                           // --repeat: reruns of each failing case
  //! Case files and evidence name paths relative to it (people read the reports on
  //! another machine); "" leaves paths as they are. Only report.json's "catalog" and
  //! the traces keep it, for tools that read the files again.
  std::string catalog_dir;
  std::string toolwire_version;  // for JUnit's <properties>, report.json and the HTML report
  std::string started_at;        // when the run began, as utc_time_text writes it; "" unknown
  //! What `toolwire report merge` checks before it joins shards: shards of one run have
  //! the same catalog, filter and seed, and each its own "I/N".
  std::string catalog_version;  // conformance::catalog_version; "" unknown
  std::string filter;           // --filter; "" all cases
  std::string shard;            // --shard "I/N"; "" the whole selection
  //! How many cases the catalog holds before --filter and --shard: with `filter` and
  //! `shard`, the scope every report states (scope_text). 0: unknown (an old report).
  std::size_t catalog_cases = 0;
  //! How many cases the selection holds; more than the results when the run stopped
  //! early (`stopped`) or was interrupted. 0: as many as the results.
  std::size_t selected_cases = 0;
  //! The run stopped because the target stopped answering (run_settings::stopped_because).
  std::string stopped;
  //! A real-clock target's tolerance window and where it came from (the preflight's
  //! measurement or the profile); "" on a virtual clock.
  std::string timing;
  //! The run was interrupted by a signal: "SIGINT" or "SIGTERM"; "" it ran to its end.
  std::string interrupted;

  // Why constructors: callers written for the first four fields keep compiling cleanly.
  run_summary() = default;
  run_summary(std::string target_name, std::uint64_t run_seed, double run_seconds,
              std::vector<std::string> stale, int min_applicable = 0, int repeats = 0)
      : target(std::move(target_name)),
        seed(run_seed),
        seconds(run_seconds),
        stale_baseline(std::move(stale)),
        min_applicable_pct(min_applicable),
        repeat(repeats) {}
};

//! How a run ends: its exit code (0 passed, 1 failed, 2 nothing was checked) and, when
//! not 0 for an ordinary failure, why in one line.
struct run_status {
  int exit_code = 0;
  std::string message;
};

//! 130 / 143 when the run was interrupted by SIGINT / SIGTERM; 2 when the run stopped
//! because the target stopped answering, or a case could not reach it (verdict error)
//! and none failed, or with "nothing was checked" when no case ran (every one not
//! applicable); 1 on a failure, a stale baseline, or fewer cases run than
//! min_applicable_pct of the selection; else 0.
run_status status_of(const std::vector<conformance::case_result>& results,
                     const run_summary& summary);

//! The not-applicable reasons of a run, each with its remedy and the cases it kept from
//! running, most frequent first.
struct not_applicable_group {
  std::string reason;
  std::string applicable_if;
  std::vector<std::string> cases;
};
std::vector<not_applicable_group> not_applicable_groups(
    const std::vector<conformance::case_result>& results);

struct tally {
  std::size_t pass = 0, fail = 0, warn = 0, not_applicable = 0, expected_failures = 0, error = 0;
};

tally count(const std::vector<conformance::case_result>& results);

//! What a run covered, in words every report repeats: "all 231 cases of the catalog", or
//! "24 of 231 cases, selected by --filter 'auth.*'" (and "--shard 1/2"); with "; 12 of
//! them ran before the run stopped" when fewer ran than were selected.
std::string scope_text(const run_summary& summary, std::size_t results);

//! What went wrong in a failed case, in one line: the first line of its first evidence
//! item (failed expectations come first), paths relative to `catalog_dir`.
std::string failure_headline(const conformance::case_result& result,
                             const std::string& catalog_dir);

//! One <testcase> per case (classname = its group), failures headed by what went wrong
//! (failure_headline) with the purpose, SPEC IDs and evidence in the body; warnings,
//! expected failures and not-applicable cases as <skipped> with the reason, counted by
//! the testsuite's skipped=. The suite's <properties> hold the toolwire version, the seed
//! and the target's name, never its credentials.
std::string junit_xml(const std::vector<conformance::case_result>& results,
                      const run_summary& summary);

protocol::json json_report(const std::vector<conformance::case_result>& results,
                           const run_summary& summary);

//! Fit for a GitHub step summary: passed, failed, warnings, not applicable and expected
//! failures counted apart, overall and per group; not-applicable cases never count
//! against a pass.
std::string markdown_summary(const std::vector<conformance::case_result>& results,
                             const run_summary& summary);

//! `when` as ISO 8601 UTC to the second, e.g. "2026-12-01T16:26:03Z".
std::string utc_time_text(std::chrono::system_clock::time_point when);

//! XML text escaping (&, <, >, ", ') with control characters dropped and bytes that are
//! not UTF-8 written as `\xHH`.
std::string xml_escape(std::string_view text);

}  // namespace toolwire::reports
