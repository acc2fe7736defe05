// When what matters happened in one oracle run (the in-process reference's run of a
// program): read from its trace once, used to move real-clock steps clear of races.

#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "toolwire/actors/simulator.hpp"

namespace toolwire::explore::detail {

using protocol::time_ms;

//! When what matters happened in one oracle run: the deadlines the target armed, the
//! dispatches and settlements of calls, turns, registrations, model answers: what a step of
//! a real-clock program races (explore.cpp, clear_of_races).
struct oracle_instants {
  std::vector<actors::armed_deadline> deadlines;
  //! The instants the target's timers fired at (a deadline armed but then disarmed, by an
  //! answer or a ping, never fires).
  std::set<time_ms> timers_fired;
  //! When each deadline (by its due instant) was first armed.
  std::map<time_ms, time_ms> first_armed;
  std::vector<time_ms> dispatches;            // the n-th dispatch of the session, in order
  std::vector<std::string> dispatched_calls;  // the n-th dispatch's call id
  //! When a client acked or answered a call on its own (not a scripted step), by call id,
  //! and the same by the client's actor.
  std::map<std::string, std::vector<time_ms>> own_settlements;
  std::map<std::string, std::vector<time_ms>> own_settlements_by;
  //! When calls were dispatched to each client, by its actor: its own ack and result are
  //! due its delays later, sent or not (a client drops its answer to a call that failed).
  std::map<std::string, std::vector<time_ms>> dispatches_to;
  //! When a task caller posted its tool results on its own, and when it polled its task,
  //! by caller actor.
  std::map<std::string, std::vector<time_ms>> caller_answers;
  std::map<std::string, std::vector<time_ms>> caller_polls;
  //! When a model answer to a task's step was applied (plus its hold: the task leaves
  //! `processing` then), by the actor of the caller that created the task.
  std::map<std::string, std::vector<time_ms>> task_answers_applied;
  //! The session's turns: when each started and when it completed or failed (-1: not yet).
  std::vector<actors::armed_deadline> turns;
  std::map<std::string, time_ms> registrations;  // client actor -> when it got its id
  //! Client actor -> when its TTL ran out (client_unregistered, reason "expired").
  std::map<std::string, time_ms> expiries;
  //! When the target resolved a model answer's tool names (TOOLS-5: a dispatch, or the
  //! next step asked once the answer's calls failed at once).
  std::vector<time_ms> resolutions;
  //! A turn's held model answers: when each was asked for and applied (plus the hold).
  std::vector<actors::armed_deadline> held_answers;
  //! When a turn's model answers that call tools were applied, held or not.
  std::vector<time_ms> calling_answers_applied;
  std::set<std::size_t> unplayable_steps;  // steps that could not run (a step_error)
};

//! Reads `oracle`'s trace (its deadlines need run_options::note_deadlines).
oracle_instants oracle_instants_of(const actors::run_result& oracle);

}  // namespace toolwire::explore::detail
