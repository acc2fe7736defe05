// `toolwire explore`: property-based scenario programs against a target (the in-process
// reference core, a faulty one, the bundled server or any server over HTTP), compared
// with the clean reference as the oracle; a divergence is shrunk, triaged and written out
// as a scenario file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "target_flags.hpp"
#include "toolwire/explore/explore.hpp"
#include "toolwire/protocol/types.hpp"

namespace toolwire::cli {

class explore_command {
  //! What this search covers of its campaign: its shard (1/1 without --shard), the
  //! programs it generates and its jobs (each with the seed campaign_seed gives it).
  struct search_plan {
    explore::campaign_shard shard = {};
    bool sharded = false;  // --shard was given
    int programs = 0;
    int jobs = 1;              // searches, each a process
    int programs_at_once = 1;  // programs one search runs at once (a real-clock --target)
    std::string target;        // the target's name, for the summary
  };

 public:
  explicit explore_command(CLI::App& parent);
  bool selected() const { return app_->parsed(); }
  //! 0: no divergence; 1: a divergence (written to --out); 2: bad usage, a target that
  //! cannot be used, or no program ran.
  int run() const;

 private:
  //! Prints what a search found (writing a divergence to --out) and returns the exit code.
  int report(const explore::explore_result& result, std::uint64_t seed,
             const search_plan& plan) const;
  //! What every summary says about the search: its target, shard and seeds.
  void describe_plan(const search_plan& plan, protocol::json& summary) const;
  //! "shard 2/4, seeds 2, 6": empty without --shard.
  std::string shard_text(const search_plan& plan) const;
  //! --json: writes `summary` there (nothing without --json); false after saying why not.
  bool write_json(const protocol::json& summary) const;
  void print_retried(const explore::explore_result& result) const;
  //! With --focus: how many of `programs` reached a move citing a focused rule.
  void print_focus(int reaching, int programs, protocol::json& summary) const;
  //! A progress line (or the tty's one line) for `p`, of `programs` asked for. While a
  //! divergence shrinks: a line as it starts and every 10 s after, `last_shrink_line`
  //! holding when the last was written (seconds into the search; negative: none yet).
  void show_progress(const explore::explore_progress& p, const std::string& progress, int programs,
                     double& last_shrink_line) const;
  int run_jobs(explore::explore_options options, const std::string& progress,
               const search_plan& plan) const;
  //! --judge FILE: the file's program judged as the search judges one; exit code.
  int judge_file(const explore::explore_options& options) const;

  CLI::App* app_;
  int programs_ = 1'000;
  std::uint64_t seed_ = 1;
  std::string out_ = "toolwire-reports/explore";
  target_flags target_;
  bool no_shrink_ = false;
  std::string time_budget_;
  std::string shrink_budget_ = "5m";
  int until_coverage_ = 0;          // 0: not asked
  std::vector<std::string> focus_;  // --focus: SPEC rules the search leans toward
  int jobs_ = 1;
  std::string shard_;  // --shard I/N
  int triage_ = 5;
  std::string progress_ = "auto";
  std::string judge_;
  std::string json_;
  bool quiet_ = false;
};

}  // namespace toolwire::cli
