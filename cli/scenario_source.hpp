// Finding a scenario from the command line: a scenario file (FILE.yaml) or `builtin:NAME`.
#pragma once

#include <string>

#include "toolwire/actors/scenario.hpp"
#include "toolwire/protocol/outcome.hpp"

namespace toolwire::cli {

struct located_scenario {
  actors::scenario plan;
  std::string source;  // canonical form, recorded in traces: "builtin:NAME"
};

//! Resolves `spec`; the error lists what is available.
protocol::outcome<located_scenario> locate_scenario(const std::string& spec);

//! One line per built-in scenario: name, SPEC IDs, purpose.
std::string builtin_table();

}  // namespace toolwire::cli
