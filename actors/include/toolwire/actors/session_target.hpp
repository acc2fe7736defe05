// The in-process target: one reference core inside an actor. It translates messages to
// core calls and core outputs to messages, and arms one timer at the core's next
// deadline. It holds no protocol logic of its own.
#pragma once

#include "toolwire/actors/run_context.hpp"
#include "toolwire/actors/target.hpp"

namespace toolwire::actors {

target_actor spawn_session_target(caf::actor_system& system, reference_server::core_config config,
                                  run_context* context);

}  // namespace toolwire::actors
