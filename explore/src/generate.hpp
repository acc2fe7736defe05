// The generators of scenario programs (RapidCheck): run inside a property, they draw a
// whole program for a target of the given shape.
#pragma once

#include "toolwire/explore/explore.hpp"
#include "toolwire/scenarios/scenario.hpp"

namespace toolwire::explore::detail {

//! One program: clients with random behaviours, maybe task callers, scripted actions at
//! random times, and the model's decisions; timed for `shape`'s timeouts.
scenarios::scenario gen_program(const program_shape& shape);

//! The SPEC IDs a scripted action bears on (for the expectations written from the oracle).
std::vector<std::string> ids_for(const scenarios::scripted_step& step);

}  // namespace toolwire::explore::detail
