#pragma once
// One way to print a duration on the console, shared by explore and report merge, so a
// merged campaign's seconds read like a single shard's.

#include <cstdio>
#include <string>

namespace toolwire::cli {

//! `seconds` as "12.3 s".
inline std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f s", seconds);
  return buffer;
}

}  // namespace toolwire::cli
