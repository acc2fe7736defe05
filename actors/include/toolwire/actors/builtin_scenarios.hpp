// Scenarios built in C++: the simulator's own examples, runnable by name
// (`toolwire simulate builtin:NAME`) before and besides the YAML library.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "toolwire/actors/scenario.hpp"

namespace toolwire::actors {

const std::vector<scenario>& builtin_scenarios();
std::optional<scenario> find_builtin(std::string_view name);

}  // namespace toolwire::actors
