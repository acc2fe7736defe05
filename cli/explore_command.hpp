// `toolwire explore`: property-based scenario programs against the reference core (or a
// faulty one), with failures shrunk and written out as scenario files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace toolwire::cli {

class explore_command {
 public:
  explicit explore_command(CLI::App& parent);
  bool selected() const { return app_->parsed(); }
  //! 0: no program failed; 1: a failure (written to --out); 2: bad usage.
  int run() const;

 private:
  CLI::App* app_;
  int programs_ = 1'000;
  std::uint64_t seed_ = 1;
  std::string out_ = "toolwire-reports/explore";
  std::vector<std::string> faults_;
  bool no_shrink_ = false;
};

}  // namespace toolwire::cli
