// What a run showed, in a form two implementations can be compared by: every response's
// status and error type, each entity's events (a client's, a call's, a turn's), what the
// model was offered and received at each step, and what each task looked like. Ids are
// replaced by what they stand for (the actor that registered, the n-th turn, the call's
// turn and tool), fields SPEC does not list are dropped, lists SPEC leaves unordered are
// sorted and texts SPEC leaves free are left out. Two runs of one program on two correct
// implementations observe the same; where they differ, one of them broke a rule.
// Differential exploration (explore/) and `replay` of a remote trace compare
// runs this way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "toolwire/actors/trace.hpp"

namespace toolwire::actors {

struct observation {
  time_ms at = 0;
  //! What it is about, the same in every run of the program, e.g. "step 4 (tab PUT
  //! /v1/sessions/S1/clients/tab/tools)" or "events of call turn1:tab.read_form#1 [2]".
  std::string subject;
  std::string value;                  // the normalised observation, compact JSON
  std::vector<std::string> spec_ids;  // the rules that decide it
  bool timed = false;                 // its time is the target's behaviour (an event, a model step)
  //! Which of its subject's observations it is, from 1 (the "[n]" ending the subject).
  int nth = 0;
  //! For a task's model steps: the actor that created the task (its task caller), whose
  //! polls decide when it learns what the task waits for. Empty otherwise.
  std::string task_caller;
  //! For the answer to an actor's own request (not a step's): the actor and the route as
  //! its table spells it (protocol::route_shown). Empty otherwise.
  std::string actor, route;
  //! How much more than the comparison's tolerance its time may differ by (set by the
  //! caller of first_divergence where the harness's own schedule quantizes it).
  time_ms slack_ms = 0;
};

//! Whether a task caller's polls that found its task `processing` are compared.
enum class processing_polls {
  //! Compared: on a virtual clock a model step takes the time the clock stops say, so a
  //! poll finds the task in the same state on every correct target.
  compared,
  //! Passed over: on a real clock a task is `processing` for as long as its model step
  //! takes, which SPEC does not bound, so a poll of a slow target may still find it there
  //! where the reference had already moved on (explore, seed 4600: a poll at 8120 ms got
  //! `processing` where the reference showed `interrupted`). The states it settles in
  //! (`interrupted` with its pending calls, `completed`, `failed`) are still compared in
  //! order, so a task that never leaves `processing` still differs.
  passed_over,
};

//! Everything `run` shows, normalised, in the order it happened.
std::vector<observation> observe(const trace& run,
                                 processing_polls polls = processing_polls::compared);

//! The actors whose registrations `run`'s target accepted, in the order its streams showed
//! them (client_registered), an actor once for each registration: the order the target
//! took where several arrived at one instant (run_options::registration_order).
std::vector<std::string> registration_order(const trace& run);

//! The first observation (in time) where the target differs from the reference.
struct divergence {
  time_ms at = 0;
  std::string subject;
  std::optional<std::string> reference;  // nullopt: the reference did not show it
  std::optional<std::string> target;     // nullopt: the target did not show it
  time_ms reference_at = 0, target_at = 0;
  std::vector<std::string> spec_ids;
  std::string actor, route;  // as the observation's (an actor's own request), or empty
};

//! How late a target may show a timed observation.
enum class lateness {
  //! Each within the tolerance (and its slack) of the reference's time: a virtual clock,
  //! where the target's clock stops where the reference's does.
  each_on_its_own,
  //! On a real clock a slow target falls behind along a chain of causes: a dispatch comes
  //! after a late model answer, the call's deadline runs from that dispatch, the next model
  //! step follows the deadline. So once the target has shown an observation some time
  //! late, every timed observation after it (in the reference's order) may be that much
  //! later than the tolerance allows, and each link of the chain is judged by what it adds
  //! (a deadline from what armed it, as CALL-5's window is). Found by explore, seed 9000,
  //! program 180: under load each round of a turn came about 100 ms later than the one
  //! before, and a call's ack_timeout, 1,089 ms after its own dispatch as against 1,000 in
  //! the oracle, was 570 ms late in program time. The most the target was late so far
  //! counts, not the last observation's lateness: another chain's observation in between
  //! (a client's expiry, on time) does not make the slow chain fast again.
  inherited,
};

//! Compares what the reference and the target showed. A timed observation differs when
//! its times are more than `tolerance_ms` (and the slack `how` allows) apart. nullopt when
//! they agree.
std::optional<divergence> first_divergence(const std::vector<observation>& reference,
                                           const std::vector<observation>& target,
                                           time_ms tolerance_ms,
                                           lateness how = lateness::each_on_its_own);

//! Lines that say where and how: "at 2500 ms, step 4 (...): the reference showed {...},
//! the target {...} [TOOLS-1, TOOLS-3]".
std::vector<std::string> describe(const divergence& d);

}  // namespace toolwire::actors
