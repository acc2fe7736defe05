// "Did you mean": the closest known word to a mistyped subcommand, flag, fault or variation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace toolwire::cli {

//! " (did you mean 'x'?)" for the known word closest to `word` (edit distance 2 at most),
//! or "" when none is that close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& known);

//! "unknown fault 'x' (did you mean 'y'?); toolwire serve --list-faults lists them".
std::string unknown_fault_message(std::string_view name);

//! "unknown variation 'x' (did you mean 'y'?); toolwire serve --list-variations lists them".
std::string unknown_variation_message(std::string_view name);

//! One line per token that CLI11 did not expect and that is close to a subcommand or a
//! flag of the subcommand it was typed after, e.g. "did you mean 'check'? (for 'chek')".
//! Call it after a parse that failed. Empty when nothing is left over or nothing is close.
std::vector<std::string> hints_for_extras(const CLI::App& app);

}  // namespace toolwire::cli
