// The fault proof of a catalog case (its `breaks_with:`): each fault it names must break a
// SPEC rule the case cites, make the case fail, and break no more than a fifth of the
// catalog, since a fault that breaks everything proves nothing about one case.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/runner.hpp"
#include "toolwire/reference_server/faults.hpp"

namespace toolwire::testing {

//! The cases each fault makes fail, by fault name.
using failing_cases = std::map<std::string, std::set<std::string>>;

//! The most cases a proving fault may break: 20 % of `catalog_size`.
inline std::size_t proof_breadth_limit(std::size_t catalog_size) {
  return catalog_size / 5;
}

//! Whether `c`'s failures are shown over HTTP rather than in-process: it calls the clock
//! routes, or a fault it names breaks a CLOCK rule (the in-process target has no virtual
//! clock of its own, so those faults act only in the bundled server).
inline bool proven_over_http(const conformance::catalog_case& c) {
  if (conformance::uses_clock_routes(c.plan)) return true;
  return std::any_of(c.plan.breaks_with.begin(), c.plan.breaks_with.end(), [](const auto& name) {
    const auto id = reference_server::parse_fault(name);
    return id && std::string_view(reference_server::describe(*id).spec_id).starts_with("CLOCK-");
  });
}

//! What is wrong with `c`'s proof, one line each; empty when it holds. `broken` says which
//! cases each fault breaks over the whole catalog; `failure_shown` is false where the case's
//! failure is shown elsewhere (the clock-route cases, over HTTP).
inline std::vector<std::string> proof_problems(const conformance::catalog_case& c,
                                               const failing_cases& broken,
                                               std::size_t catalog_size,
                                               bool failure_shown = true) {
  std::vector<std::string> problems;
  if (c.plan.breaks_with.empty()) problems.push_back("names no fault in 'breaks_with:'");
  for (const auto& name : c.plan.breaks_with) {
    const auto id = reference_server::parse_fault(name);
    if (!id) {
      problems.push_back(name + " is not a fault of the reference");
      continue;
    }
    const std::string rule(reference_server::describe(*id).spec_id);
    const auto& cited = c.plan.spec_ids;
    if (std::find(cited.begin(), cited.end(), rule) == cited.end()) {
      problems.push_back(name + " breaks " + rule + ", which the case does not cite");
    }
    const auto it = broken.find(name);
    const std::size_t breadth = it == broken.end() ? 0 : it->second.size();
    if (breadth > proof_breadth_limit(catalog_size)) {
      problems.push_back(name + " breaks " + std::to_string(breadth) + " of " +
                         std::to_string(catalog_size) + " cases: more than 20 % proves nothing");
    }
    if (failure_shown && (it == broken.end() || !it->second.contains(c.id))) {
      problems.push_back("the case does not fail against " + name);
    }
  }
  return problems;
}

}  // namespace toolwire::testing
