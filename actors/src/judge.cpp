// The one judgement of a run (judge.hpp).
#include "toolwire/actors/judge.hpp"

namespace toolwire::actors {

run_judgement judge(const scenarios::scenario& plan, const trace& run) {
  run_judgement judged;
  judged.expectations = check_expectations(plan, run);
  judged.violations = check_invariants(run);
  for (const auto& r : run.records()) {
    if (r.kind == "transport_error") judged.transport_errors.push_back(r.data);
  }
  return judged;
}

}  // namespace toolwire::actors
