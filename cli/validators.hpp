// Checks of flag values that CLI11 does not phrase for our users.
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

namespace toolwire::cli {

//! A seed: an unsigned 64-bit integer. Why a check of our own: CLI11 reads "-1" into an
//! unsigned value as 18446744073709551615, and its NonNegativeNumber names a double range.
inline const CLI::Validator seed_value(
    [](std::string& text) -> std::string {
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
        return "a seed is an integer from 0 to 18446744073709551615, got '" + text + "'";
      }
      return "";
    },
    "SEED");

//! "--shard I/N" (check, explore): {I, N} with 1 <= I <= N, or nullopt for anything else.
inline std::optional<std::pair<int, int>> parse_shard(const std::string& text) {
  int index = 0, count = 0;
  char slash = 0;
  std::istringstream in(text);
  if (!(in >> index >> slash >> count) || slash != '/' || count < 1 || index < 1 || index > count ||
      !in.eof()) {
    return std::nullopt;
  }
  return std::pair{index, count};
}

}  // namespace toolwire::cli
