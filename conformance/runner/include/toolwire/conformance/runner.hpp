// Running catalog cases against a target and turning what happened into verdicts with
// evidence: expected vs observed, the SPEC text, and one command that reproduces the case.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "toolwire/actors/tab_driver.hpp"
#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/evidence.hpp"
#include "toolwire/conformance/target_choice.hpp"
#include "toolwire/conformance/target_profile.hpp"
#include "toolwire/reference_server/faults.hpp"
#include "toolwire/reference_server/variations/variations.hpp"
#include "toolwire/scenarios/loader.hpp"

namespace toolwire::conformance {

//! `error`: the case could not be judged because the target stopped answering (a request
//! refused, reset or timed out): not a SPEC verdict, and never a pass.
enum class verdict { pass, fail, warn, not_applicable, error };

std::string to_string(verdict v);

struct case_result {
  std::string id;
  std::string file;
  std::vector<std::string> spec_ids;
  std::string tag;  // [S], [P] or [R]
  std::string purpose;
  conformance::verdict verdict = verdict::pass;
  std::vector<conformance::evidence> evidence;  // one item per problem
  std::string not_applicable_because;
  //! verdict::error: the first request the target did not answer, and how, e.g. "POST
  //! /v1/sessions at 1000 ms: cannot connect to 127.0.0.1:8080: Connection refused".
  std::string unreachable_because;
  std::string applicable_if;  // what would make a not-applicable case run (see remedy_for)
  std::uint64_t seed = 0;
  double seconds = 0;
  std::string reproduce;                           // one command that runs exactly this case again
  protocol::json trace = protocol::json::array();  // the run's records, credentials redacted
  bool expected_failure = false;                   // listed in the baseline
  bool known_flaky = false;                        // listed as flaky in the baseline
  //! With --repeat: "consistent" when every rerun failed too, "intermittent" when one
  //! passed; "" when the case was not rerun.
  std::string repeat_label;
  int reruns = 0, rerun_failures = 0;
};

struct run_settings {
  std::uint64_t seed = 1;
  //! Workers at once: in-process, the bundled server (each worker has its own) and a
  //! real-clock target (its sessions share nothing but the wall clock). A virtual-clock
  //! target's clock is shared by every case, so its cases run one at a time.
  int jobs = 1;
  std::function<void(const case_result&, std::size_t done, std::size_t total)> progress;
  //! A target that stopped answering is not judged case after case: after this many
  //! cases in a row end in verdict::error, no further case starts (0: never stop).
  int stop_after_errors = 3;
  //! Set when the run stopped that way: one sentence for the user, e.g. "the target
  //! stopped answering at case reg.ttl-expiry (...); the reports hold the 31 cases that
  //! ran". The results then hold only the cases that ran, in catalog order.
  std::string* stopped_because = nullptr;
  //! Where cases with browser clients (kind: browser) open their tabs; owned by the caller.
  //! Null: those cases are not applicable ("this run opens no browser tabs"). They run
  //! after the others, one at a time (a tab's timing is judged on the wall clock, which
  //! other cases' load would shift), and against the bundled server on the wall clock
  //! when the target is the bundled server (docs/browser.md, "Time").
  actors::tab_driver* browser = nullptr;
};

//! Runs `cases`; results come back in the order of `cases` (without those a stop left
//! unrun, see run_settings::stop_after_errors). Fails only when a target
//! cannot be set up (the bundled server cannot listen, the stand-in's port is taken, the
//! target does not answer at all); a misbehaving target gives failing verdicts instead.
protocol::outcome<std::vector<case_result>> run_cases(const std::vector<catalog_case>& cases,
                                                      const target_choice& target,
                                                      const run_settings& settings);

//! How long a run on the wall clock will take, before it starts.
struct wall_time_estimate {
  double seconds = 0;        // the whole run, with its jobs side by side
  std::string longest_case;  // the case that takes longest
  double longest_seconds = 0;
  std::size_t over_a_minute = 0;  // cases that each take more than a minute
};

//! The estimate for a real-clock run of `cases` with `jobs` at once (the bundled server on
//! a real clock, or a real-clock profile): each case lasts until just after its last
//! step, timed for the target, and cases go in order to the first free job. With
//! `browser` (run_settings::browser set), the browser cases follow one at a time, each
//! with a second for opening its tabs. nullopt when no case waits on the wall clock (a
//! virtual clock or in-process, without browser cases to run).
std::optional<wall_time_estimate> estimate_wall_time(const std::vector<catalog_case>& cases,
                                                     const target_choice& target, int jobs,
                                                     bool browser = false);

//! Whether `c` has browser clients (kind: browser): it needs run_settings::browser.
bool opens_tabs(const catalog_case& c);

//! The reason a browser case is not applicable when the run opens no tabs; remedy_for
//! answers it with --browser.
inline constexpr const char* no_browser_reason =
    "the case drives real browser tabs, and this run opens no browser";

//! After a browser case ran and was judged: each tab's screenshot, which the run wrote to
//! a scratch file named in its `tab_evidence` record, goes into that record as
//! `screenshot_png` (base64) when the case did not pass, so that the JSON and HTML reports
//! stay one file each; the file is removed either way, and so is its path.
void embed_screenshots(case_result& result);

//! What would make a case applicable, for a not-applicable reason: e.g. "serve the test
//! clock (SPEC 7) and set \"clock\": \"virtual\" in the profile", or with a target given
//! as flags "... and pass --clock virtual".
std::string remedy_for(const std::string& not_applicable_because,
                       const target_profile* profile = nullptr);

//! --repeat: runs every failing or warning case of `results` `times` more times with the
//! same settings and labels it "consistent" (every rerun failed too) or "intermittent"
//! (a rerun passed). Fails only as run_cases does.
std::optional<protocol::api_error> rerun_failures(const std::vector<catalog_case>& cases,
                                                  std::vector<case_result>& results,
                                                  const target_choice& target,
                                                  const run_settings& settings, int times);

//! Whether a case calls the virtual-clock routes (SPEC 7), which the in-process target
//! lacks. (Exact timing alone does not need them: the simulator's time is exact.)
bool uses_clock_routes(const scenarios::scenario& plan);

//! Why `plan` cannot run against `profile`, or "" when it can: a capability it needs
//! (with what would make it applicable), or a [P] rule the target replaces. Never the
//! target's timeouts: cases are timed for whatever they are. `plan` must be timed for the
//! profile (timed_for), so that a boundary check too fine for a real clock shows as
//! exact_timing.
std::string not_applicable_reason(const scenarios::scenario& plan, const target_profile& profile);

//! The timing a profile's cases are resolved for: its timeouts; `tol` 1 ms on a virtual
//! clock, timing_tolerance_ms on a real one.
scenarios::timing timing_of(const target_profile& profile);

//! The timing `plan` is read with on `target`: target.timing(), except that the bundled
//! server, which is started for each plan's timeouts, takes those a scenario's settings:
//! state (a browser scenario's, whose tabs' TTLs are real seconds set against them).
scenarios::timing timing_for(const scenarios::scenario& plan, const target_choice& target);

//! `c` with its times resolved for `target` (read again from its file; a case without a
//! file keeps its times and takes the target's timeouts). Fails with the loader's
//! file:line error when a time does not resolve (e.g. it would be negative).
protocol::outcome<catalog_case> timed_for(const catalog_case& c, const scenarios::timing& target);

}  // namespace toolwire::conformance
