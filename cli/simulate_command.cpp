// `toolwire simulate` and `toolwire replay`.
#include "simulate_command.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "scenario_source.hpp"
#include "suggest.hpp"
#include "target_flags.hpp"
#include "toolwire/actors/judge.hpp"
#include "toolwire/actors/observations.hpp"
#include "toolwire/actors/simulator.hpp"
#include "toolwire/browser/driver_process.hpp"
#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/preflight.hpp"
#include "toolwire/conformance/scenario_runner.hpp"
#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/reference_server/faults.hpp"
#include "validators.hpp"

namespace toolwire::cli {

using protocol::json;

namespace {

struct seed_range {
  std::uint64_t first = 1;
  std::uint64_t last = 1;
};

std::optional<seed_range> parse_seeds(const std::string& text) {
  const auto dots = text.find("..");
  if (dots == std::string::npos) return std::nullopt;
  try {
    std::size_t used = 0;
    const std::string a = text.substr(0, dots), b = text.substr(dots + 2);
    seed_range range{std::stoull(a, &used), 0};
    if (used != a.size()) return std::nullopt;
    range.last = std::stoull(b, &used);
    if (used != b.size() || range.last < range.first || a[0] == '-' || b[0] == '-') {
      return std::nullopt;
    }
    return range;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string trace_path_for(const std::string& pattern, std::uint64_t seed) {
  std::string path = pattern;
  const auto at = path.find("{seed}");
  if (at != std::string::npos) path.replace(at, 6, std::to_string(seed));
  return path;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

std::vector<std::string> fault_names(const reference_server::fault_set& faults) {
  std::vector<std::string> names;
  for (auto f : faults)
    names.emplace_back(reference_server::describe(f).name);
  return names;
}

//! Where a run went, for the trace header, so that replay can go there again.
actors::recorded_target recorded(const conformance::target_choice& target) {
  using kind = actors::recorded_target::kind;
  actors::recorded_target where;
  if (const auto* server = target.bundled()) {
    where.where = kind::bundled;
    for (auto v : server->variations)
      where.variations.emplace_back(reference_server::variations::describe(v).name);
  } else if (const auto* server = target.profiled()) {
    where.where = server->flags.empty() ? kind::profile : kind::profile_flags;
    where.profile = server->path;
    where.profile_flags = server->flags;
  }
  return where;
}

//! The scenario as this target reads it: a profile's timeouts and clock retime a file; the
//! bundled server on a real clock (for browser clients) keeps the file's timeouts and
//! reads its times for the wall clock.
protocol::outcome<scenarios::scenario> plan_for(const located_scenario& located,
                                                conformance::scenario_runner& on) {
  const bool profiled = on.choice().profile() != nullptr;
  if (!profiled && !on.real_clock()) return located.plan;
  auto timed = conformance::timed_for(
      {located.plan.name, located.file, located.plan, conformance::grade::required},
      conformance::timing_for(located.plan, on.choice()));
  if (!timed) return timed.error();
  return timed->plan;
}

protocol::outcome<actors::run_result> run_seed(const scenarios::scenario& plan,
                                               const std::string& source,
                                               conformance::scenario_runner& on,
                                               std::uint64_t seed) {
  auto result = on.run(plan, seed, source, "[tw:simulate-" + std::to_string(seed) + "] ");
  if (!result) return result;
  auto header = actors::trace_header::from_json(result->trace.header(), source);
  if (!header) return header.error();
  header->faults = fault_names(on.choice().faults());
  header->target = recorded(on.choice());
  // What replay allows the run it compares with this one (comparison_tolerance).
  if (result->harness_late_ms > 0) header->harness_late_ms = result->harness_late_ms;
  result->trace.set_header(header->to_json());
  return result;
}

//! On a real clock the second run may fall behind the first along a chain of causes
//! (actors::lateness::inherited), as explore allows a target behind the reference.
actors::lateness lateness_on(const conformance::scenario_runner& on) {
  return on.real_clock() ? actors::lateness::inherited : actors::lateness::each_on_its_own;
}

//! What a run on `on` showed. On a real clock a poll may find a task still `processing`
//! in one run where the other had moved on (actors::processing_polls::passed_over).
std::vector<actors::observation> observed_on(const actors::trace& run,
                                             const conformance::scenario_runner& on) {
  return actors::observe(run, on.real_clock() ? actors::processing_polls::passed_over
                                              : actors::processing_polls::compared);
}

//! How far apart in time two runs of `plan` may show the same behaviour: the target's
//! tolerance, widened by the runs' lateness, and with browser clients half a second more.
//! Why the lateness: on a real clock a step that went out late (after a tab that took a
//! second to open, 1.6 s on a loaded machine here) shows its effects that much after its
//! written time, through no fault of the target; explore allows its target the same. Why
//! the half second: a tab's own requests (its ack, its result, its registration after a
//! resume) go out when Chromium runs its script, which varies by a few hundred ms between
//! runs on a loaded machine (207 ms over a 200 ms tolerance in one replay here); that is
//! the browser's time, not the target's.
protocol::time_ms comparison_tolerance(const conformance::scenario_runner& on,
                                       const scenarios::scenario& plan, protocol::time_ms a_late_ms,
                                       protocol::time_ms b_late_ms) {
  return on.tolerance_ms() + std::max(a_late_ms, b_late_ms) +
         (scenarios::needs(plan, scenarios::browser_tabs) ? 500 : 0);
}

//! Whether two runs of one seed showed the same: in-process, the same trace byte for
//! byte; over HTTP, the same observations (ids and timing within tolerance may differ).
std::string differs(const actors::run_result& a, const actors::run_result& b,
                    const conformance::scenario_runner& on, const scenarios::scenario& plan) {
  if (on.in_process()) {
    return a.trace.hash() == b.trace.hash() ? "" : "second run hash " + b.trace.hash();
  }
  auto d = actors::first_divergence(
      observed_on(a.trace, on), observed_on(b.trace, on),
      comparison_tolerance(on, plan, a.harness_late_ms, b.harness_late_ms), lateness_on(on));
  if (!d) return "";
  std::string why = "the second run differs";
  for (const auto& line : actors::describe(*d))
    why += " " + line;
  return why;
}

//! A scenario with browser clients runs the bundled server on the wall clock: a tab pings
//! on it (docs/browser.md, "Time").
void clock_for(const scenarios::scenario& plan, conformance::target_choice& choice) {
  auto* server = std::get_if<conformance::bundled_server>(&choice.kind);
  if (server && scenarios::needs(plan, scenarios::browser_tabs)) server->real_clock = true;
}

//! Starts the browser driver for a plan with browser clients, once (`tabs` keeps it), and
//! gives it to `on`. "" when the plan can run; else why its tabs cannot.
std::string give_tabs(const scenarios::scenario& plan, std::shared_ptr<actors::tab_driver>& tabs,
                      conformance::scenario_runner& on) {
  if (!scenarios::needs(plan, scenarios::browser_tabs)) return "";
  if (!tabs) {
    auto started = browser::driver_process::start_with_chromium({TOOLWIRE_BROWSER_DIR});
    if (!started) return started.error().message;
    tabs = std::move(*started);
  }
  on.use_browser(tabs.get());
  return "";
}

std::string seconds(protocol::time_ms ms) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f s", static_cast<double>(ms) / 1000.0);
  return buffer;
}

}  // namespace

simulate_command::simulate_command(CLI::App& parent) {
  app_ = parent.add_subcommand(
      "simulate",
      "Run a scenario for one seed or a range of seeds and check its expectations and the "
      "trace invariants: on the deterministic simulator (the in-process reference core, "
      "virtual time) by default, over HTTP against the bundled reference server with "
      "--bundled, or against any server a --target profile describes.");
  app_->footer(R"(
Examples:
  toolwire simulate --list
  toolwire simulate library:parallel_reverse_order --seeds 1..200 --check-determinism
  toolwire simulate library:ack_just_before_deadline --seed 7 --trace run.jsonl
  toolwire simulate scenarios/library/double_result.yaml --target acme.json --trace acme.jsonl
  toolwire simulate my_scenario.yaml --bundled --fault double_result_accepted

Against a --target the scenario's times are resolved for the profile's timeouts and clock
(docs/scenario-language.md, "Time"), as `toolwire check` does for its cases. A scenario
whose settings: state timeouts the target does not have is not applicable there (its
times are written for those timeouts), and so is one that needs what the target lacks.
library:NAME is NAME.yaml of the scenario library: share/toolwire/scenarios when this
binary is installed, else the source tree's scenarios/library; here )" +
               conformance::default_library_dir() + R"(.
Exit codes: 0 every seed held its expectations and invariants (or, with
--skip-inapplicable, the scenario is not applicable to the target); 1 one did not; 2 bad
usage, a scenario that does not load, a target that cannot be used, a target that did
not answer a request (refused, reset, timed out: nothing after it is judged), or a
scenario the target cannot run (not applicable: nothing was checked).
Read: docs/simulator.md, docs/scenario-language.md, docs/scenario-library.md)");
  app_->add_option("scenario", scenarios_,
                   "scenario files (FILE.yaml, see docs/scenario-language.md) or library:NAME, "
                   "a scenario of the library (see --list); several run one after another");
  app_->add_option("--seed", seed_, "the seed that picks the interleaving")
      ->default_val(1)
      ->check(seed_value);
  app_->add_option("--seeds", seeds_, "a range of seeds A..B (inclusive)");
  app_->add_option("--trace", trace_,
                   "write the trace (JSON Lines) here; with --seeds, '{seed}' in the name is "
                   "replaced by each seed. With browser clients, each open tab's screenshot "
                   "at the end of the run goes beside it (NAME.tab-ACTOR.png) and its "
                   "console into the trace");
  app_->add_option("--json", json_,
                   "write the JSON report here: per seed its verdict, trace hash, violations "
                   "(with rule ids), failed expectations, steps that could not run and "
                   "transport errors; and the totals");
  app_->add_flag("--quiet", quiet_, "no progress (with --seeds on a terminal)");
  target_.add_to(*app_, default_target::in_process);
  app_->add_flag("--check-determinism", check_determinism_,
                 "run every seed twice and compare: in-process the trace hashes, over HTTP "
                 "the normalised observations (ids and timing within tolerance may differ)");
  app_->add_flag("--list", list_,
                 "list the scenario library (library:NAME, SPEC IDs, purpose) and exit");
  app_->add_flag("--skip-inapplicable", skip_inapplicable_,
                 "exit 0, not 2, when the target cannot run the scenario (e.g. its settings: "
                 "state other timeouts than the target's): for running a whole library "
                 "against one target");
}

int simulate_command::run() const {
  if (list_) {
    auto table = library_table();
    if (!table) {
      std::cerr << "toolwire simulate: " << table.error().message << "\n";
      return 2;
    }
    std::cout << *table;
    return 0;
  }
  if (scenarios_.empty()) {
    std::cerr << "toolwire simulate: a scenario is required (toolwire simulate --list)\n";
    return 2;
  }
  if (scenarios_.size() == 1) return run_scenario(scenarios_.front());
  if (!trace_.empty() || !json_.empty()) {
    std::cerr << "toolwire simulate: --trace and --json take one scenario; run the "
              << scenarios_.size() << " one at a time for them\n";
    return 2;
  }
  // Why 1 first: a failed expectation is news about the target; an error or a scenario
  // not run says only that something was not checked.
  std::size_t failed = 0, not_checked = 0;
  for (const auto& scenario : scenarios_) {
    const int code = run_scenario(scenario);
    if (code == 1) ++failed;
    if (code == 2) ++not_checked;
  }
  std::cout << scenarios_.size() << " scenarios: " << scenarios_.size() - failed - not_checked
            << " passed, " << failed << " failed, " << not_checked
            << " not checked (an error, or not applicable)\n";
  if (failed > 0) return 1;
  return not_checked > 0 ? 2 : 0;
}

int simulate_command::run_scenario(const std::string& scenario) const {
  if (scenarios_.size() > 1) std::cout << scenario << ":\n";
  auto located = locate_scenario(scenario);
  if (!located) {
    std::cerr << "toolwire simulate: " << located.error().message << "\n";
    return 2;
  }
  seed_range range{seed_, seed_};
  if (!seeds_.empty()) {
    auto parsed = parse_seeds(seeds_);
    if (!parsed) {
      std::cerr << "toolwire simulate: --seeds must be A..B with A <= B, e.g. 1..200\n";
      return 2;
    }
    range = *parsed;
  }
  const bool many = range.last > range.first;
  if (many && !trace_.empty() && trace_.find("{seed}") == std::string::npos) {
    std::cerr << "toolwire simulate: with --seeds, --trace needs '{seed}' in the file name\n";
    return 2;
  }
  auto chosen = target_.choose();
  if (!chosen) {
    std::cerr << "toolwire simulate: " << chosen.error().message << "\n";
    return 2;
  }
  const bool has_browser = scenarios::needs(located->plan, scenarios::browser_tabs);
  clock_for(located->plan, chosen->choice);
  conformance::scenario_runner on(chosen->choice);
  auto plan = plan_for(*located, on);
  if (!plan) {
    std::cerr << "toolwire simulate: " << plan.error().message << "\n";
    return 2;
  }
  auto unfit = on.not_applicable(*plan);
  if (!unfit) {
    std::cerr << "toolwire simulate: the target cannot be used: " << unfit.error().message << "\n";
    return 2;
  }
  if (!unfit->empty()) {
    // Why not a violation: a scenario the target cannot play says nothing of the target.
    std::cerr << "toolwire simulate: not applicable, nothing was checked: " << chosen->name
              << " cannot run " << located->source << ": " << *unfit
              << "\n  to run it: " << conformance::remedy_for(*unfit, chosen->choice.profile())
              << "\n";
    return skip_inapplicable_ ? 0 : 2;
  }

  if (auto why = give_tabs(*plan, tabs_, on); !why.empty()) {
    std::cerr << "toolwire simulate: " << located->source
              << " has browser clients, and they cannot run here: " << why << "\n";
    return 2;
  }
  const bool progress = many && !quiet_ && isatty(STDERR_FILENO);
  json report_seeds = json::array();
  std::set<std::string> distinct;
  std::uint64_t failed = 0, runs = 0, unanswered = 0;
  for (std::uint64_t seed = range.first;; ++seed) {
    // Where the tabs' screenshots go: beside the trace, as PREFIX.tab-ACTOR.png.
    if (has_browser && !trace_.empty()) {
      const std::string path = trace_path_for(trace_, seed);
      on.keep_tab_evidence(path.ends_with(".jsonl") ? path.substr(0, path.size() - 6) : path);
    }
    auto result = run_seed(*plan, located->source, on, seed);
    if (!result) {
      std::cerr << "toolwire simulate: " << result.error().message << "\n";
      return 2;
    }
    ++runs;
    const std::string hash = result->trace.hash();
    distinct.insert(result->trace.records_hash());  // the header holds the seed
    const auto judged = actors::judge(*plan, result->trace);
    const auto& violations = judged.violations;
    const auto& expectations = judged.expectations;
    std::vector<std::string> transport;
    for (const auto& t : judged.transport_errors)
      transport.push_back("transport: " + protocol::safe_dump(t));
    bool bad = !judged.passed() || result->hit_step_limit;
    std::string verdict =
        violations.empty() ? "ok" : std::to_string(violations.size()) + " violation(s)";
    if (!expectations.passed()) {
      // Why apart: a step that could not run is not an expectation, and "1 of 0
      // expectation(s) failed" read as a contradiction.
      if (expectations.failures() > 0 || expectations.step_errors.empty()) {
        verdict += ", " + std::to_string(expectations.failures()) + " of " +
                   std::to_string(expectations.results.size()) + " expectation(s) failed";
      }
      if (!expectations.step_errors.empty()) {
        verdict +=
            ", " + std::to_string(expectations.step_errors.size()) + " step(s) could not run";
      }
    } else if (!expectations.results.empty()) {
      verdict += ", " + std::to_string(expectations.results.size()) + " expectation(s) held";
    }
    if (!transport.empty())
      verdict += ", " + std::to_string(transport.size()) + " transport error(s)";
    if (check_determinism_) {
      auto again = run_seed(*plan, located->source, on, seed);
      if (!again) {
        std::cerr << "toolwire simulate: " << again.error().message << "\n";
        return 2;
      }
      if (auto why = differs(*result, *again, on, *plan); !why.empty()) {
        bad = true;
        verdict += ", NONDETERMINISTIC (" + why + ")";
      }
    }
    if (result->hit_step_limit) verdict += ", stopped at the step limit";
    // Why not a failure: what a run showed after its target stopped answering says nothing
    // about SPEC (issue 21.4); the seed is an error, and the command exits 2 unless another
    // seed failed on its own.
    const auto not_answered =
        judged.unanswered.empty() && bad
            ? conformance::went_away_during(result->trace, chosen->choice.profile())
            : judged.unanswered;
    const bool reached = not_answered.empty() && judged.harness_failure.empty();
    if (!not_answered.empty()) {
      bad = true;
      verdict = "ERROR, the target did not answer: " + not_answered;
    } else if (!judged.harness_failure.empty()) {
      bad = true;
      verdict = "ERROR, the run could not go on: " + judged.harness_failure;
    }
    if (bad || !many) {
      if (progress) std::cerr << "\r\033[K";
      std::cout << "seed " << seed << ": " << result->trace.records().size() << " records, "
                << result->choices << " choices, " << seconds(result->simulated_ms)
                << (on.in_process() ? " simulated" : " on the target's clock") << ", hash " << hash
                << ", " << verdict << "\n";
      for (const auto& v : violations)
        std::cout << "  " << actors::describe(v) << "\n";
      for (const auto& r : expectations.results) {
        if (!r.passed) std::cout << "  " << actors::describe(r, *plan) << "\n";
      }
      for (const auto& e : expectations.step_errors)
        std::cout << "  " << e << "\n";
      for (const auto& t : transport)
        std::cout << "  " << t << "\n";
      for (const auto& r : result->trace.records()) {
        if (r.kind != "tab_evidence") continue;
        const json& shot = protocol::member_at(r.data, "screenshot");
        std::cout << "  evidence of tab '" << r.actor << "' at the end of the run: "
                  << (shot.is_string() ? "screenshot " + shot.get<std::string>()
                                       : "no screenshot (" +
                                             protocol::string_at(r.data, "screenshot_error") + ")")
                  << ", its console (" << protocol::member_at(r.data, "console").size()
                  << " lines) and log (" << protocol::member_at(r.data, "page_log").size()
                  << ") in the trace\n";
      }
    }
    if (!json_.empty()) {
      json entry = {{"seed", seed},
                    {"passed", !bad},
                    {"unanswered", not_answered},
                    {"harness_failure", judged.harness_failure},
                    {"verdict", verdict},
                    {"hash", hash},
                    {"records", result->trace.records().size()},
                    {"violations", json::array()},
                    {"failed_expectations", json::array()},
                    {"steps_not_run", expectations.step_errors},
                    {"transport_errors", transport}};
      for (const auto& v : violations)
        entry["violations"].push_back({{"rule", v.spec_id}, {"text", actors::describe(v)}});
      for (const auto& r : expectations.results) {
        if (r.passed) continue;
        entry["failed_expectations"].push_back({{"rules", r.expected.spec_ids},
                                                {"where", r.expected.where},
                                                {"text", actors::describe(r, *plan)}});
      }
      report_seeds.push_back(std::move(entry));
    }
    if (!trace_.empty()) {
      const std::string path = trace_path_for(trace_, seed);
      if (!write_file(path, result->trace.to_jsonl())) {
        std::cerr << "toolwire simulate: cannot write " << path << "\n";
        return 2;
      }
    }
    if (bad) {
      ++(reached ? failed : unanswered);
      std::cout << "  reproduce: toolwire simulate " << located->source << " --seed " << seed
                << target_.as_flags() << " --trace seed-" << seed << ".jsonl\n";
    }
    if (progress && runs % 10 == 0) {
      std::cerr << "\r\033[K" << runs << "/" << (range.last - range.first + 1) << " seeds"
                << std::flush;
    }
    if (seed == range.last) break;
  }
  if (progress) std::cerr << "\r\033[K";
  if (!json_.empty()) {
    const json report = {{"toolwire_simulate", 1},
                         {"scenario", located->source},
                         {"target", chosen->name},
                         {"runs", runs},
                         {"failed", failed},
                         {"unanswered", unanswered},
                         {"distinct_traces", distinct.size()},
                         {"determinism_checked", check_determinism_},
                         {"seeds", std::move(report_seeds)}};
    if (!write_file(json_, report.dump(2) + "\n")) {
      std::cerr << "toolwire simulate: cannot write " << json_ << "\n";
      return 2;
    }
  }
  if (many || check_determinism_) {
    std::cout << located->source << ": " << runs << " seed(s), " << distinct.size()
              << " distinct trace(s), " << failed << " failed"
              << (unanswered > 0 ? ", " + std::to_string(unanswered) + " not answered" : "")
              << (check_determinism_ ? ", determinism checked" : "") << "\n";
  }
  if (failed > 0 && !chosen->timing_caveat.empty()) {
    std::cout << "note: " << chosen->timing_caveat << "\n";
  }
  if (failed > 0) return 1;
  if (unanswered > 0) {
    std::cerr << "toolwire simulate: " << unanswered << " of " << runs
              << " run(s) could not be judged (the target did not answer, or the browser driver "
                 "failed): see each seed's ERROR line\n";
    return 2;
  }
  return 0;
}

replay_command::replay_command(CLI::App& parent) {
  app_ = parent.add_subcommand(
      "replay",
      "Re-run the scenario and seed recorded in a trace, on the target recorded with it (or "
      "--target), and report either 'identical' or the first record that diverges, with both "
      "versions.");
  app_->footer(R"(
Examples:
  toolwire simulate library:tab_closes_mid_call --seed 7 --trace run.jsonl
  toolwire replay run.jsonl
  toolwire simulate scenarios/library/double_result.yaml --target acme.json --trace acme.jsonl
  toolwire replay acme.jsonl                      # against acme.json again
  toolwire replay acme.jsonl --target acme-v2.json

An in-process trace must come back byte for byte. A trace recorded over HTTP is compared
after normalising what may legitimately differ between two runs of a server: ids, fields
SPEC does not list, orders SPEC leaves open, free texts, and timing within the target's
tolerance (docs/simulator.md, "Replay").
Exit codes: 0 identical; 1 the run diverged (the first differing record is shown); 2 a
trace, scenario or target that cannot be used.
Read: docs/simulator.md)");
  app_->add_option("trace", trace_, "a trace written by toolwire simulate --trace")->required();
  app_->add_option("--target", target_,
                   "re-run against this target profile instead of the trace's target");
  app_->add_flag("--no-preflight", no_preflight_, "with --target: skip the preflight");
}

namespace {}  // namespace

int replay_command::run() const {
  std::ifstream in(trace_, std::ios::binary);
  if (!in) {
    std::cerr << "toolwire replay: cannot read " << trace_ << "\n";
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  auto recorded = actors::trace::from_jsonl(text.str(), trace_);
  if (!recorded) {
    std::cerr << "toolwire replay: " << recorded.error().message << "\n";
    return 2;
  }
  auto header = actors::trace_header::from_json(recorded->header(), trace_);
  if (!header) {
    std::cerr << "toolwire replay: " << header.error().message << "\n";
    return 2;
  }
  auto located = locate_scenario(header->source);
  if (!located) {
    std::cerr << "toolwire replay: " << located.error().message << "\n";
    return 2;
  }
  auto target = target_flags::recorded(*header, target_, no_preflight_, trace_);
  if (!target) {
    std::cerr << "toolwire replay: " << target.error().message << "\n";
    return 2;
  }
  clock_for(located->plan, target->choice);
  conformance::scenario_runner on(target->choice);
  auto plan = plan_for(*located, on);
  if (!plan) {
    std::cerr << "toolwire replay: " << plan.error().message << "\n";
    return 2;
  }
  std::shared_ptr<actors::tab_driver> tabs;
  if (auto why = give_tabs(*plan, tabs, on); !why.empty()) {
    std::cerr << "toolwire replay: " << located->source
              << " has browser clients, and they cannot run here: " << why << "\n";
    return 2;
  }
  auto rerun = run_seed(*plan, located->source, on, header->seed);
  if (!rerun) {
    std::cerr << "toolwire replay: " << rerun.error().message << "\n";
    return 2;
  }
  if (!on.in_process()) {
    const auto d = actors::first_divergence(
        observed_on(*recorded, on), observed_on(rerun->trace, on),
        comparison_tolerance(on, *plan, header->harness_late_ms.value_or(0),
                             rerun->harness_late_ms),
        lateness_on(on));
    if (!d) {
      std::cout << "identical after normalising: " << observed_on(rerun->trace, on).size()
                << " observations of " << rerun->trace.records().size() << " records\n";
      return 0;
    }
    std::cout << "diverged (recorded is 'the reference', the re-run 'the target'):\n";
    for (const auto& line : actors::describe(*d))
      std::cout << "  " << line << "\n";
    return 1;
  }
  const auto& a = recorded->records();
  const auto& b = rerun->trace.records();
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i < a.size() && i < b.size() && a[i] == b[i]) continue;
    // Line numbers count the header as line 1.
    std::cout << "diverged at record " << i << " (" << trace_ << ":" << i + 2 << ")\n"
              << "  recorded: " << (i < a.size() ? actors::trace::line_of(a[i]) : "(end of trace)")
              << "\n  replayed: "
              << (i < b.size() ? actors::trace::line_of(b[i]) : "(end of trace)") << "\n";
    return 1;
  }
  std::cout << "identical: " << a.size() << " records, hash " << rerun->trace.hash() << "\n";
  return 0;
}

}  // namespace toolwire::cli
