// `toolwire check`: the conformance catalog against a target, with verdicts, evidence,
// baselines and reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "target_flags.hpp"

namespace toolwire::cli {

class check_command {
 public:
  explicit check_command(CLI::App& parent);
  bool selected() const { return app_->parsed(); }
  //! 0: every required case passed; 1: a failure (or a stale baseline, or fewer cases
  //! ran than --min-applicable); 2: bad usage, a bad profile, a target that fails the
  //! preflight or stops answering, or nothing was checked; 130 / 143: SIGINT / SIGTERM.
  int run() const;

 private:
  CLI::App* app_;
  target_flags target_;
  std::string catalog_;
  std::string filter_;
  int jobs_ = 0;  // 0: see default_jobs
  std::uint64_t seed_ = 1;
  std::string shard_;
  std::string expected_failures_;
  bool update_baseline_ = false;
  std::string junit_, json_, markdown_;
  std::string html_;
  bool html_all_ = false;
  bool list_ = false;
  bool browser_ = false;
  bool quiet_ = false;
  std::string progress_ = "auto";  // auto | tty | lines | none
  int min_applicable_ = 0;
  int repeat_ = 0;
};

}  // namespace toolwire::cli
