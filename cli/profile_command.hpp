// `toolwire profile init` and `toolwire profile check`: start a target profile without
// writing one by hand, and validate one without running the catalog.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace toolwire::cli {

class profile_command {
 public:
  explicit profile_command(CLI::App& parent);
  bool selected() const { return app_->parsed(); }
  //! init: 0 written, 2 bad usage or the file cannot be written; check: 0 every profile
  //! loads, 2 one does not (its error names the file and the field).
  int run() const;

 private:
  int init() const;
  int check() const;

  CLI::App* app_;
  CLI::App* init_;
  CLI::App* check_;
  std::string file_;
  std::string clock_ = "virtual";
  bool force_ = false;
  std::string from_;
  std::vector<std::string> files_;
};

}  // namespace toolwire::cli
