// Running catalog cases against a target and turning what happened into verdicts with
// evidence: expected vs observed, the SPEC text, and one command that reproduces the case.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/target_profile.hpp"
#include "toolwire/reference_server/faults.hpp"
#include "toolwire/reference_server/variations/variations.hpp"

namespace toolwire::conformance {

enum class verdict { pass, fail, warn, not_applicable };

std::string to_string(verdict v);

struct case_result {
  std::string id;
  std::string file;
  std::vector<std::string> spec_ids;
  std::string tag;  // [S], [P] or [R]
  std::string purpose;
  conformance::verdict verdict = verdict::pass;
  std::vector<std::string> evidence;  // one item per problem; with the SPEC text of its rules
  std::string not_applicable_because;
  std::uint64_t seed = 0;
  double seconds = 0;
  std::string reproduce;                           // one command that runs exactly this case again
  protocol::json trace = protocol::json::array();  // the run's records, credentials redacted
  bool expected_failure = false;                   // listed in the baseline
};

//! Where the cases run.
struct target_choice {
  //! In-process: the reference core on the simulator, with these faults.
  bool in_process = false;
  reference::fault_set faults;
  //! The bundled server only: behaviour SPEC allows that the reference does not show.
  reference::variations::variation_set variations;
  //! Over HTTP: the target the profile describes. For the bundled reference server the
  //! runner starts one per distinct timeout setting of the cases.
  std::optional<target_profile> profile;
  std::string profile_path;  // for the reproduce command; empty: the bundled server
};

struct run_settings {
  std::uint64_t seed = 1;
  int jobs = 1;  // in-process and bundled: workers at once; a remote target: always 1
  std::function<void(const case_result&, std::size_t done, std::size_t total)> progress;
};

//! Runs `cases`; results come back in the order of `cases`. Fails only when a target
//! cannot be set up (the bundled server cannot listen, the stand-in's port is taken, the
//! target does not answer at all); a misbehaving target gives failing verdicts instead.
protocol::outcome<std::vector<case_result>> run_cases(const std::vector<catalog_case>& cases,
                                                      const target_choice& target,
                                                      const run_settings& settings);

//! Whether a case calls the virtual-clock routes (SPEC 7), which the in-process target
//! lacks. (Exact timing alone does not need them: the simulator's time is exact.)
bool uses_clock_routes(const actors::scenario& plan);

//! Why `c` cannot run against `profile`, or "" when it can: a capability it needs, a [P]
//! rule the target replaces, or a timeout the case depends on that the target has
//! otherwise.
std::string not_applicable_reason(const catalog_case& c, const target_profile& profile);

}  // namespace toolwire::conformance
