// Checks of flag values that CLI11 does not phrase for our users.
#pragma once

#include <string>

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

}  // namespace toolwire::cli
