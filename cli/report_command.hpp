// `toolwire report`: reports made again from a run's report.json, without running
// anything. `report html` writes the HTML report (other report kinds join it as
// subcommands of their own).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace toolwire::cli {

class report_command {
 public:
  explicit report_command(CLI::App& parent);
  bool selected() const { return app_->parsed(); }
  //! 0: written; 2: bad usage, a report.json that cannot be read, or an output that
  //! cannot be written.
  int run() const;

 private:
  CLI::App* app_;
  CLI::App* html_;
  std::string input_;
  std::string output_;
  bool all_ = false;
};

}  // namespace toolwire::cli
