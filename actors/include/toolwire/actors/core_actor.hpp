// The in-process server under test: one reference core inside an actor. It translates messages to
// core calls and core outputs to messages, and arms one timer at the core's next
// deadline. It holds no protocol logic of its own.
#pragma once

#include "toolwire/actors/run_context.hpp"
#include "toolwire/actors/server_actor.hpp"

namespace toolwire::actors {

server_actor spawn_core_actor(caf::actor_system& system, reference_server::core_config config,
                              run_context* context);

}  // namespace toolwire::actors
