// Property-based scenarios: RapidCheck generates whole scenario programs (clients with
// random behaviours, scripted actions at random times, model decisions), runs each on
// the simulator against a target core, and checks it with the trace invariants and with
// the clean reference core as the oracle. A failure is shrunk by RapidCheck and written
// out as a scripted scenario that reproduces it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "toolwire/actors/scenario.hpp"
#include "toolwire/reference_server/faults.hpp"

namespace toolwire::scenarios {

struct explore_options {
  int programs = 1'000;         // how many programs to generate (RapidCheck's maxSuccess)
  std::uint64_t seed = 1;       // RapidCheck's seed; also the simulator seed of each run
  reference::fault_set faults;  // the target core's faults; the oracle has none
  bool shrink = true;
  //! Called after each program with how many have run (for progress on a terminal).
  std::function<void(int)> progress;
};

//! A program that failed, after shrinking.
struct explore_failure {
  actors::scenario program;           // the shrunk program, with expectations from the oracle run
  std::uint64_t seed = 0;             // the simulator seed that reproduces it
  std::vector<std::string> problems;  // invariant violations and differences from the oracle
  int programs_before = 0;            // programs that passed before the first failure
  int shrink_runs = 0;                // programs run while shrinking
};

struct explore_result {
  int programs_run = 0;
  std::optional<explore_failure> failure;
};

explore_result explore(const explore_options& options);

//! What is wrong with one program on a core with `faults`: the invariant violations of
//! its trace and every scripted step whose response differs from the clean core's.
//! Empty when it behaves like the reference.
std::vector<std::string> judge(const actors::scenario& program, std::uint64_t seed,
                               const reference::fault_set& faults);

//! The program with one expectation per scripted step: the status the clean core
//! answered, citing the SPEC IDs of the step's action. Run against the faulty core it
//! fails; against the reference it passes.
actors::scenario with_oracle_expectations(actors::scenario program, std::uint64_t seed);

}  // namespace toolwire::scenarios
