#include "step_summary.hpp"

#include <cstdlib>
#include <fstream>
#include <iostream>

namespace toolwire::cli {

void append_step_summary(const std::string& markdown, std::string_view command) {
  const char* path = std::getenv("GITHUB_STEP_SUMMARY");
  if (path == nullptr || *path == '\0') return;
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << markdown;
  out.flush();
  if (!out) {
    std::cerr << command << ": warning: cannot append the summary to GITHUB_STEP_SUMMARY (" << path
              << ")\n";
  }
}

}  // namespace toolwire::cli
