// Command-line helpers shared by the benches: each bench parses its own flags, but they
// fail the same way on a missing or bad value (exit 2, one line naming the flag).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace toolwire::bench {

//! The value after the flag at argv[i], which moves i on to it; exits 2 when it is missing.
inline std::string flag_value(int argc, char** argv, int& i, std::string_view program) {
  if (i + 1 >= argc) {
    std::cerr << program << ": " << argv[i] << " needs a value\n";
    std::exit(2);
  }
  return argv[++i];
}

//! `text` as an integer from 1 to `max`; exits 2 naming `flag` otherwise.
inline std::uint64_t positive_arg(std::string_view program, const std::string& flag,
                                  const std::string& text,
                                  std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  try {
    std::size_t used = 0;
    const auto value = std::stoull(text, &used);
    if (used == text.size() && text.front() != '-' && value > 0 && value <= max) return value;
  } catch (const std::exception&) {
  }
  std::cerr << program << ": " << flag << " needs a positive integer, got '" << text << "'\n";
  std::exit(2);
}

}  // namespace toolwire::bench
