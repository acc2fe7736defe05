// A scripted scenario's expectations, checked on the trace of its run. Checking after the
// run, on the recorded trace, makes a verdict independent of the order in which actors
// happened to run within an instant: "seen by 40 s" means a record at or before 40 s.
#pragma once

#include <string>
#include <vector>

#include "toolwire/actors/trace.hpp"
#include "toolwire/scenarios/scenario.hpp"

namespace toolwire::actors {

struct expectation_result {
  std::size_t step = 0;  // index into scenario.steps
  scenarios::expectation expected;
  bool passed = false;
  std::string observed;  // what the trace shows instead (or what matched)
};

struct expectation_report {
  std::vector<expectation_result> results;
  //! Steps that could not be performed (e.g. "call 2 has not been dispatched").
  std::vector<std::string> step_errors;

  bool passed() const;
  std::size_t failures() const;
};

//! Whether an actual JSON value satisfies an expected one. Legitimate variation never
//! fails it (C-6: fields beyond those expected are ignored, at every depth): objects match
//! key by key, arrays item by item at the same index with equal lengths, both
//! recursively; other values must be equal. `{"$exactly": VALUE}`, anywhere in `expected`,
//! matches only a value equal to VALUE, for a SPEC rule that demands exactness;
//! `{"$any_order": [ITEMS]}` matches an array of as many items, paired one to one with
//! ITEMS in any order, for a list whose order SPEC leaves open.
bool value_matches(const json& expected, const json& actual);

//! How many tool results matching a `model_received` expectation's `args` (its tool, and
//! content or error) the model received in `run` by `by`.
std::size_t model_results_received(const json& args, const trace& run, time_ms by);

//! How many of `answered`'s requests (its args: actor, route, status, error) `run` shows
//! answered so by `by`: what the `answered` expectation counts.
std::size_t requests_answered(const json& args, const trace& run, time_ms by);

//! Checks every expectation of `plan` against `run` (which must have been recorded).
expectation_report check_expectations(const scenarios::scenario& plan, const trace& run);

//! Whether every trace-level expectation of a step the run has reached (its `expect`
//! marker is recorded) holds on `run` as recorded so far.
bool reached_expectations_hold(const scenarios::scenario& plan, const trace& run);

//! "web-tab.yaml:14 [LIFE-5] expected event client_tool_failed {"reason":"client_expired"}
//! by 40000 ms; observed: no such event".
std::string describe(const expectation_result& result, const scenarios::scenario& plan);
//! A one-line summary of what an expectation wants, e.g. `status 409, error conflict`.
std::string describe_expected(const scenarios::expectation& expected);

}  // namespace toolwire::actors
