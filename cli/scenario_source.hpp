// Finding a scenario from the command line: a scenario file (FILE.yaml) or `library:NAME`,
// a file of the scenario library (docs/scenario-library.md).
#pragma once

#include <string>

#include "toolwire/protocol/outcome.hpp"
#include "toolwire/scenarios/scenario.hpp"

namespace toolwire::cli {

struct located_scenario {
  scenarios::scenario plan;
  std::string source;  // canonical form, recorded in traces: "FILE.yaml" or "library:NAME"
  std::string file;    // the file it was loaded from (a profile's timing reloads it)
};

//! Resolves `spec`: a FILE.yaml (or .yml) as given, `library:NAME` as NAME.yaml of
//! conformance::default_library_dir(). An unknown name's error suggests the closest one and
//! `toolwire simulate --list`; `builtin:NAME` (the C++ scenarios that the library replaced)
//! is an error that says so.
protocol::outcome<located_scenario> locate_scenario(const std::string& spec);

//! Two lines per library scenario, in name order: `library:NAME  SPEC-IDS`, then the purpose.
//! An error when the library is missing or a file of it does not load.
protocol::outcome<std::string> library_table();

}  // namespace toolwire::cli
