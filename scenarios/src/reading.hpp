// The loader's parts, one per section of a scenario file; each fails with load_error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "format.hpp"
#include "toolwire/scenarios/scenario.hpp"
#include "yaml_reader.hpp"

namespace toolwire::scenarios::detail {

//! Who may act in steps besides the director: the actor names of the scenario.
struct cast {
  std::vector<std::string> clients;
  std::vector<std::string> browser_clients;  // of `clients`, those of kind browser
  std::vector<std::string> task_callers;
};

//! `m`'s value for the table's required key `name`; fails with the key's help.
const value& required(const mapping& m, const std::vector<format::key>& table,
                      std::string_view name);

//! A list of SPEC IDs, each one of SPEC.md's.
std::vector<std::string> read_spec_ids(const value& v);

//! A list of tools, each a name (build::tool's defaults) or {name, description, parameters}.
std::vector<protocol::tool_spec> read_tools(const value& v);

std::vector<scenarios::client_spec> read_clients(const value& v);
std::vector<scenarios::task_caller_spec> read_task_callers(const value& v);

//! The steps, with absolute times; `source` makes their `where`.
std::vector<scenarios::scripted_step> read_steps(const value& v, const cast& performers,
                                                 std::string_view source);

}  // namespace toolwire::scenarios::detail
