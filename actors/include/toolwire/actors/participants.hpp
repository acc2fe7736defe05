// The actors that take part in a run besides the target: clients (section 3-6 from the
// app's side), the scripted model (section 8), task callers (section 9) and the director
// that creates the session and plays the scenario's timed steps.
#pragma once

#include "toolwire/actors/run_context.hpp"
#include "toolwire/actors/scenario.hpp"
#include "toolwire/actors/target.hpp"
#include "toolwire/reference_server/model_script.hpp"

namespace toolwire::actors {

//! Where a participant finds the session and what it authenticates with.
struct session_access {
  std::string session_id;
  std::string token;    // the session's own token (what a tab would hold)
  std::string api_key;  // a workspace API key with session.manage
};

//! A client: opens its event stream, registers, then behaves as its spec says. It
//! answers dispatched calls addressed to it, and only those.
caf::actor spawn_client(caf::local_actor* parent, client_spec spec, target_actor target,
                        session_access access, run_context* context);

//! A scripted model: answers each model step from the script (model_script format).
caf::actor spawn_model(caf::actor_system& system, reference_server::model_script script,
                       target_actor target, run_context* context);

//! A Part B caller: creates its task, polls it and answers its pending calls.
caf::actor spawn_task_caller(caf::local_actor* parent, task_caller_spec spec, target_actor target,
                             std::string api_key, run_context* context);

//! The director: creates the session (with `context->script.api_key`), starts clients
//! and task callers, plays the scripted steps in order at their times (a step starts
//! when the one before it has its response), and at `scenario.duration` stops every
//! participant it started.
caf::actor spawn_director(caf::actor_system& system, const scenario& plan, target_actor target,
                          run_context* context);

}  // namespace toolwire::actors
