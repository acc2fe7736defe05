// `toolwire report`: reports made again from runs' report.json files, without running
// anything. `report html` writes the HTML report of one run; `report compare` the
// target × case matrix of several; `report merge` joins the shards of one run.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace toolwire::cli {

class report_command {
 public:
  explicit report_command(CLI::App& parent);
  bool selected() const { return app_->parsed(); }
  //! 0: written (for merge: and the merged run passed, as check's exit codes say); 2: bad
  //! usage, a report.json that cannot be read, or an output that cannot be written.
  int run() const;

 private:
  int run_html() const;
  int run_compare() const;
  int run_merge() const;
  //! `report merge` of explore --shard summaries: the campaign's summary; exit codes as
  //! explore's (0 no divergence, 1 a divergence, 2 a shard that errored or is missing).
  int run_explore_merge() const;

  CLI::App* app_;
  CLI::App* html_;
  CLI::App* compare_;
  std::string input_;
  std::string output_;
  bool all_ = false;
  std::vector<std::string> compared_;
  std::string compare_output_ = "compare.html";
  std::string compare_markdown_;
  bool differences_only_ = false;
  CLI::App* merge_;
  std::vector<std::string> shards_;
  std::string merged_json_, merged_junit_, merged_markdown_, merged_html_;
};

}  // namespace toolwire::cli
