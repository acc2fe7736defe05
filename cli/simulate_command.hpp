// `toolwire simulate` and `toolwire replay`: run scenarios on the deterministic simulator,
// check the trace invariants, write and re-run traces.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "target_flags.hpp"

namespace toolwire::actors {
class tab_driver;
}

namespace toolwire::cli {

class simulate_command {
 public:
  explicit simulate_command(CLI::App& parent);
  bool selected() const { return app_->parsed(); }
  //! 0: every run passed its invariants (and was deterministic when checked);
  //! 1: a violation or a nondeterministic seed; 2: bad usage.
  int run() const;

 private:
  //! One scenario: run() for each of them.
  int run_scenario(const std::string& scenario) const;

  CLI::App* app_;
  std::vector<std::string> scenarios_;
  //! The browser driver, started by the first scenario with browser clients and kept for
  //! the others (Chromium starts once).
  mutable std::shared_ptr<actors::tab_driver> tabs_;
  std::uint64_t seed_ = 1;
  std::string seeds_;
  std::string trace_;
  target_flags target_;
  std::string json_;
  bool quiet_ = false;
  bool check_determinism_ = false;
  bool skip_inapplicable_ = false;
  bool list_ = false;
};

class replay_command {
 public:
  explicit replay_command(CLI::App& parent);
  bool selected() const { return app_->parsed(); }
  //! 0: identical; 1: diverged (the first differing record is printed); 2: bad input.
  int run() const;

 private:
  CLI::App* app_;
  std::string trace_;
  std::string target_;
  bool no_preflight_ = false;
};

}  // namespace toolwire::cli
