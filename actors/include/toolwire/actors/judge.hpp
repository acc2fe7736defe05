// One judgement of a run against its plan: its expectations, the trace invariants and the
// transport errors the harness recorded. check, simulate and explore each derived these on
// their own before (issue 23.5); now they render or weigh this one, and none re-derives it.
#pragma once

#include <string>
#include <vector>

#include "toolwire/actors/expectations.hpp"
#include "toolwire/actors/invariants.hpp"
#include "toolwire/actors/trace.hpp"
#include "toolwire/scenarios/scenario.hpp"

namespace toolwire::actors {

struct run_judgement {
  expectation_report expectations;
  std::vector<violation> violations;
  //! The data of each `transport_error` record: what the harness could not do over HTTP.
  std::vector<protocol::json> transport_errors;
  //! The first request the target did not answer at all (refused, reset, timed out, or
  //! still unanswered when the run ended), as "METHOD PATH at N ms: <how>"; "" when it
  //! answered every one. What a run showed after that says nothing about SPEC: such a run
  //! is an error of the target's reach, not a verdict (check: verdict error; explore: the
  //! program runs again, and a target that still does not answer stops the search).
  std::string unanswered;
  //! The first failure of the harness's own tools (the browser driver died or missed its
  //! deadline), as "step N: <how>"; "" when none. Like `unanswered`, an error of the run,
  //! never a verdict on the target.
  std::string harness_failure;

  //! The run broke what its plan expects or a rule the invariants check (a transport
  //! error alone is not such a breach: it says the target could not be reached).
  bool broke_rules() const { return !expectations.passed() || !violations.empty(); }
  //! Nothing to report: no breach and no transport error.
  bool passed() const { return !broke_rules() && transport_errors.empty(); }
};

run_judgement judge(const scenarios::scenario& plan, const trace& run);

//! run_judgement::unanswered alone, for a judge that weighs nothing else.
std::string first_unanswered(const trace& run);

}  // namespace toolwire::actors
