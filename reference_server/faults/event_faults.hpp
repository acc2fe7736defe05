// The faults planted in what the rules produce rather than in the rules: the shape, name
// and numbering of events, and the timeouts the core is configured with. `emit` and the
// core's constructor hand their work through here; the rule files never name a fault.
#pragma once

#include <cstdint>

#include "toolwire/reference_server/core.hpp"

namespace toolwire::reference_server::detail {

//! Changes `event`, about to be logged, as `faults` say; `next_seq` is the session's next
//! number, `previous` the type of its last event (empty for none). Returns false when the
//! event is dropped. The faulty policy's answer to rule_policy::shape_event.
bool reshape_event(const fault_set& faults, session_event& event, std::uint64_t& next_seq,
                   const std::string& previous);

//! The configuration the core runs with: `config`, with the timeouts its faults change.
core_config with_config_faults(core_config config);

}  // namespace toolwire::reference_server::detail
