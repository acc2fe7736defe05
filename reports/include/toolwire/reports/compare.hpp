// Comparing runs: a target × case matrix of verdicts from several report.json files
// (Autobahn|Testsuite style), for comparing implementations or two versions of one,
// with the cases whose verdicts differ marked.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "toolwire/protocol/types.hpp"

namespace toolwire::reports {

//! One run to compare: its column label and its report.json.
struct compared_run {
  std::string label;
  protocol::json report;
};

struct comparison {
  std::vector<std::string> labels;    // one per run, in the order given
  std::vector<std::string> case_ids;  // every case of any run, sorted
  //! verdicts[case][run]: the verdict label as report.json writes it, "" when the run
  //! has no such case (another catalog, a shard, a filter).
  std::vector<std::vector<std::string>> verdicts;
  //! Per run: how many cases passed, failed, and were in the run at all.
  std::vector<std::size_t> passed, failed, present;
  std::vector<bool> differs;  // per case: not every run gave the same verdict
  std::size_t differing = 0;
};

//! The matrix of `runs` (at least one). A report without cases gives an empty column.
comparison compare_runs(const std::vector<compared_run>& runs);

//! Column labels for reports: each run's target name, with its file name added where two
//! runs would otherwise share a label.
std::vector<std::string> run_labels(const std::vector<std::string>& targets,
                                    const std::vector<std::string>& files);

//! The matrix as a Markdown table: the differing cases first (or only, `differences_only`).
std::string compare_markdown(const comparison& c, bool differences_only = false);

//! One self-contained page (inline style, a filter for the differing rows, no network).
std::string compare_html(const comparison& c);

}  // namespace toolwire::reports
