// The actors that take part in a run besides the target: clients (section 3-6 from the
// app's side), the scripted model (section 8), task callers (section 9) and the director
// that creates the session and plays the scenario's timed steps.
#pragma once

#include <cstdint>
#include <string>

#include "toolwire/actors/run_context.hpp"
#include "toolwire/actors/server_actor.hpp"
#include "toolwire/reference_server/model_script.hpp"
#include "toolwire/scenarios/scenario.hpp"

namespace toolwire::actors {

//! Where a participant finds the session and what it authenticates with.
struct session_access {
  std::string session_id;
  std::string token;    // the session's own token (what a tab would hold)
  std::string api_key;  // a workspace API key with session.manage
};

//! A client's message interface.
//! - join, ping, vanish, leave, show_screen, ack, answer: the commands it gives itself at
//!   the times its spec sets (messages.hpp); nobody else sends them.
//! - `perform`: the director's scripted step `index`, one of the client's own actions
//!   (register, reconnect, vanish) or with the request the director built for it; the
//!   reply says the step is over.
//! - `event`, `stream_gap`: what its event stream delivers (target.hpp).
using client_actor = caf::typed_actor<
    caf::reacts_to<join_atom>, caf::reacts_to<ping_atom>, caf::reacts_to<vanish_atom>,
    caf::reacts_to<leave_atom>, caf::reacts_to<show_screen_atom, std::uint64_t>,
    caf::reacts_to<ack_atom, std::string>, caf::reacts_to<answer_atom, std::string>,
    caf::replies_to<perform_atom, std::uint64_t>::with<bool>,
    caf::replies_to<perform_atom, std::uint64_t, protocol::api_request>::with<bool>,
    caf::reacts_to<event_atom, reference_server::session_event>,
    caf::reacts_to<stream_gap_atom, std::string, std::uint64_t>>;

//! The director's message interface: its own timers (`play`: the next step is due;
//! `end`: the scenario's time is up), what its event stream delivers, and what the
//! participants learn that scripted steps refer to (`registered` from a client,
//! `model_calls` from the model). The director alone owns that state.
using director_actor = caf::typed_actor<caf::reacts_to<play_atom>, caf::reacts_to<end_atom>,
                                        caf::reacts_to<event_atom, reference_server::session_event>,
                                        caf::reacts_to<stream_gap_atom, std::string, std::uint64_t>,
                                        caf::reacts_to<registered_atom, std::string, std::string>,
                                        caf::reacts_to<model_calls_atom, task_model_calls>>;

//! A client: opens its event stream, registers, then behaves as its spec says. It
//! answers dispatched calls addressed to it, and only those. It tells `director` its
//! client id whenever it registers.
client_actor spawn_client(caf::local_actor* parent, scenarios::client_spec spec,
                          server_actor target, director_actor director, session_access access,
                          run_context* context);

//! A browser client (kind: browser): its scripted steps go to `context->browser`, whose
//! real tab is the client; it tells `director` the tab's client id at each registration.
client_actor spawn_browser_client(caf::local_actor* parent, scenarios::client_spec spec,
                                  director_actor director, session_access access,
                                  run_context* context);

//! A scripted model: answers each model step from the script (model_script format), and
//! tells `director` the tool calls of each answer in a task (the order {call: N} counts).
//! Why untyped: the target's `attach_model` takes a caf::actor (target.hpp), and the
//! remote target implements that interface too.
caf::actor spawn_model(caf::actor_system& system, reference_server::model_script script,
                       server_actor target, director_actor director, run_context* context);

//! A Part B caller: creates its task, polls it and answers its pending calls. Its own
//! timers are still named by string (act_atom); the director only stops it.
caf::actor spawn_task_caller(caf::local_actor* parent, scenarios::task_caller_spec spec,
                             server_actor target, std::string api_key, run_context* context);

//! The director: creates the session (with `context->settings.api_key`), starts clients
//! and task callers, plays the scripted steps in order at their times (a step starts
//! when the one before it has its response), and at `scenario.duration` stops every
//! participant it started. It owns what the steps refer to (script_state) and builds
//! every step's request, its clients' too.
director_actor spawn_director(caf::actor_system& system, const scenarios::scenario& plan,
                              server_actor target, run_context* context);

}  // namespace toolwire::actors
