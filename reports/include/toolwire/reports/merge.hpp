// Joining the reports of `toolwire check --shard I/N` runs into the report of the whole run,
// and reading a report.json back into case results (which merging needs, and which lets
// every report kind be written again from a saved run).
#pragma once

#include <string>
#include <vector>

#include "toolwire/protocol/outcome.hpp"
#include "toolwire/reports/reports.hpp"

namespace toolwire::reports {

//! A run as report.json holds it: its cases and what the reports say about the run.
struct saved_run {
  std::vector<conformance::case_result> results;
  run_summary summary;
};

//! Reads a report as json_report writes it. Fields of the wrong type read as absent; a
//! value that is no report, or a case without an id or with an unknown verdict, is an
//! error that says which.
protocol::outcome<saved_run> read_saved_run(const protocol::json& report);

//! One run from the shards of one: refused, with the reason, unless every shard has the
//! same catalog version, filter, seed and target, each names its own shard "I/N" of one
//! N, all N are there, and no case is in two. Cases keep the order of the shards (1 to
//! N); the duration is the longest shard's (shards run side by side), the start the
//! earliest; a stale baseline entry counts once.
protocol::outcome<saved_run> merge_shards(std::vector<saved_run> shards);

}  // namespace toolwire::reports
