// The GitHub step summary: what `check` and `report merge` add to the run's page.
#pragma once

#include <string>
#include <string_view>

namespace toolwire::cli {

//! Appends `markdown` to the file GITHUB_STEP_SUMMARY names, when it is set: GitHub shows
//! that file on the run's page, and earlier steps may have written to it already, so it is
//! never truncated. A file that cannot be written only warns, as `command`: the summary is
//! a courtesy, the verdict is the exit code.
void append_step_summary(const std::string& markdown, std::string_view command);

}  // namespace toolwire::cli
