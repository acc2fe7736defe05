// Joining the --json summaries of `toolwire explore --shard I/N` runs (one campaign split
// across CI runners) into the summary of the whole campaign.
#pragma once

#include <string>
#include <vector>

#include "toolwire/protocol/outcome.hpp"
#include "toolwire/protocol/types.hpp"

namespace toolwire::reports {

//! One shard's summary as `toolwire explore --shard I/N --json FILE` wrote it, and FILE
//! (which every refusal and every line about the shard names).
struct explore_shard_summary {
  std::string file = {};
  protocol::json summary = {};
};

//! Whether `value` is an explore summary (toolwire explore --json), not a check report.
bool is_explore_summary(const protocol::json& value);

//! The summary of one campaign from its shards'. Refused, with the reason and the file,
//! when a summary names no shard (explore ran without --shard), two name the same shard,
//! or they disagree on N, the base --seed, the campaign's --programs, --time-budget, the
//! target or the life-cycle points (another toolwire version). A shard that is not there
//! is not refused: its index is in "missing_shards" and the outcome cannot be
//! no_divergence. What the result holds:
//! - outcome: "divergence" when any shard diverged; else "error" when a shard did not end
//!   clean (error, nothing_checked, jobs_failed) or one is missing; else "no_divergence";
//! - programs and requests added up; seconds the longest shard's (shards run side by
//!   side, so it is the campaign's wall time), seconds_summed the shards' added up;
//! - coverage the union: a point any shard's reference reached is reached;
//! - seeds every shard's; divergences each shard's divergence (its reproduce line, files
//!   and seed) with "shard"; errors each shard that did not end clean; shards one line each.
//! Not merged: requests_per_program (a median or p95 of medians is neither) and the
//! retried/left-out counts of one search; each shard's own file has them.
protocol::outcome<protocol::json> merge_explore_shards(
    const std::vector<explore_shard_summary>& shards);

}  // namespace toolwire::reports
