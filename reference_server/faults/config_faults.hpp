// The faults planted in the core's configuration rather than in its decisions: the
// timeouts the core runs with. The core's constructor hands its configuration through
// here; the rule files never name a fault.
#pragma once

#include "toolwire/reference_server/core.hpp"

namespace toolwire::reference_server::detail {

//! The configuration the core runs with: `config`, with the timeouts its faults change.
core_config with_config_faults(core_config config);

}  // namespace toolwire::reference_server::detail
