// Running cases and judging them.
#include "toolwire/conformance/runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "tab_screenshots.hpp"
#include "toolwire/actors/judge.hpp"
#include "toolwire/actors/simulator.hpp"
#include "toolwire/conformance/http_client.hpp"
#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/conformance/preflight.hpp"
#include "toolwire/conformance/scenario_runner.hpp"
#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/protocol/spec_rules.hpp"

namespace toolwire::conformance {

namespace {

using clock_type = std::chrono::steady_clock;

std::vector<evidence> evidence_of(const catalog_case& c, const actors::trace& run) {
  std::vector<evidence> found;
  const auto judged = actors::judge(c.plan, run);
  for (const auto& r : judged.expectations.results) {
    if (r.passed) continue;
    const auto& step = c.plan.steps.at(r.step);
    evidence item;
    item.kind = evidence_kind::expectation;
    item.where = !r.expected.where.empty() ? r.expected.where
                 : !step.where.empty()     ? step.where
                                           : "step " + std::to_string(r.step + 1);
    item.spec_ids = r.expected.spec_ids;
    item.expected = actors::describe_expected(r.expected);
    item.at_ms = step.at;
    item.observed = r.observed;
    found.push_back(std::move(item));
  }
  for (const auto& e : judged.expectations.step_errors)
    found.push_back(evidence_that(evidence_kind::step_error, e));
  for (const auto& v : judged.violations) {
    auto item = evidence_that(evidence_kind::invariant, v.message, {v.spec_id});
    item.record = v.record;
    found.push_back(std::move(item));
  }
  for (const auto& t : judged.transport_errors)
    found.push_back(evidence_that(evidence_kind::transport, safe_dump(t)));
  return found;
}

protocol::json records_of(const actors::trace& run) {
  protocol::json records = protocol::json::array();
  for (const auto& r : run.records()) {
    records.push_back({{"at", r.at}, {"actor", r.actor}, {"kind", r.kind}, {"data", r.data}});
  }
  return records;
}

std::string reproduce_command(const catalog_case& c, const target_choice& target,
                              std::uint64_t seed) {
  return "toolwire check --filter '" + c.id + "' --seed " + std::to_string(seed) +
         target.as_flags() + (opens_tabs(c) ? " --browser" : "");
}

case_result base_result(const catalog_case& c, const target_choice& target, std::uint64_t seed) {
  case_result result;
  result.id = c.id;
  result.file = c.file;
  result.spec_ids = c.plan.spec_ids;
  result.tag = strongest_tag(c.plan.spec_ids);
  result.purpose = c.plan.purpose;
  result.seed = seed;
  result.reproduce = reproduce_command(c, target, seed);
  return result;
}

void judge(case_result& result, const catalog_case& c, const actors::trace& run) {
  try {
    result.evidence = evidence_of(c, run);
  } catch (const std::exception& e) {
    result.evidence = {evidence_that(evidence_kind::problem,
                                     std::string("the suite could not judge this case's trace: ") +
                                         escape_invalid_utf8(e.what()))};
  }
  result.trace = records_of(run);
  // Why before the expectations' verdict: what a case saw after its target stopped
  // answering says nothing about SPEC (a refused request has no status to check).
  result.unreachable_because = actors::first_unanswered(run);
  if (!result.unreachable_because.empty()) {
    result.verdict = verdict::error;
    result.evidence.insert(result.evidence.begin(),
                           evidence_that(evidence_kind::unreachable, result.unreachable_because));
  } else if (result.evidence.empty()) {
    result.verdict = verdict::pass;
  } else {
    result.verdict = c.grade == grade::required ? verdict::fail : verdict::warn;
  }
}

//! A case that failed because its target went away during it (went_away_during): an
//! error, as a refused request is (judge above).
void error_when_gone(case_result& result, const actors::trace& run, const target_choice& target) {
  if (result.verdict != verdict::fail && result.verdict != verdict::warn) return;
  auto gone = went_away_during(run, target.profile());
  if (gone.empty()) return;
  result.verdict = verdict::error;
  result.unreachable_because = std::move(gone);
  result.evidence.insert(result.evidence.begin(),
                         evidence_that(evidence_kind::unreachable, result.unreachable_because));
}

}  // namespace

bool uses_clock_routes(const scenarios::scenario& plan) {
  return std::any_of(plan.steps.begin(), plan.steps.end(), [](const scenarios::scripted_step& s) {
    return s.args.value("path", "").find("/_test/clock") != std::string::npos;
  });
}

namespace {

//! A case that cannot be timed for the target's timeouts (a time would go backwards: its
//! deadlines lie closer together than the steps between them), with the loader's
//! file:line error. Not applicable, not failed: the catalog test times every case for
//! SPEC's timeouts and short ones (tests/conformance/catalog_test.cpp), so a catalog bug
//! shows there, and here it is these timeouts, which SPEC lets a target choose (a correct
//! target at 300/600/900 ms failed call.result-timeout-exact for them).
case_result untimed(case_result result, const scenarios::timing& timing,
                    const protocol::api_error& error, const target_profile* profile) {
  result.verdict = verdict::not_applicable;
  result.not_applicable_because = "the case's times do not fit the target's timeouts (ack " +
                                  std::to_string(timing.ack_timeout_ms) + " ms, result " +
                                  std::to_string(timing.result_timeout_ms) + " ms, interrupt " +
                                  std::to_string(timing.interrupt_timeout_ms) +
                                  " ms): " + error.message;
  result.applicable_if = remedy_for(result.not_applicable_because, profile);
  return result;
}

//! Where a browser case's tabs come from (run_settings::browser) and where their
//! screenshots are written before embed_screenshots takes them.
struct tab_source {
  actors::tab_driver* driver = nullptr;
  std::string scratch_dir;
};

//! One case on `on`: timed for the target, not applicable when it cannot run there,
//! else run and judged. Over HTTP its model requests carry the tag "[tw:<id>] ".
case_result run_case(const catalog_case& original, scenario_runner& on, const target_choice& target,
                     std::uint64_t seed, std::optional<protocol::api_error>& setup_error,
                     const tab_source& tabs = {}) {
  auto result = base_result(original, target, seed);
  const auto timing = timing_for(original.plan, on.choice());
  auto timed = timed_for(original, timing);
  if (!timed) {
    // Why apart: times that fit a narrower window but not this one are the window's (the
    // target's speed, or a stated value), not the timeouts'.
    auto narrow = timing;
    narrow.tolerance_ms = 1;
    if (!timing.real_clock || narrow.tolerance_ms == timing.tolerance_ms ||
        !timed_for(original, narrow)) {
      return untimed(std::move(result), timing, timed.error(), target.profile());
    }
    result.verdict = verdict::not_applicable;
    result.not_applicable_because =
        "the case's times do not fit the target's tolerance window of " +
        std::to_string(timing.tolerance_ms) + " ms (" + timed.error().message + ")";
    result.applicable_if = remedy_for(result.not_applicable_because, target.profile());
    return result;
  }
  const auto& c = *timed;
  auto reason = on.not_applicable(c.plan);
  if (!reason) {
    setup_error = reason.error();
    return result;
  }
  // Why after the target's reasons: a target that cannot host a tab (a virtual clock)
  // stays not applicable with --browser too, and should say so.
  if (reason->empty() && opens_tabs(c) && tabs.driver == nullptr) *reason = no_browser_reason;
  if (!reason->empty()) {
    result.verdict = verdict::not_applicable;
    result.not_applicable_because = *reason;
    result.applicable_if = remedy_for(*reason, target.profile());
    return result;
  }
  if (opens_tabs(c)) {
    on.use_browser(tabs.driver);
    on.keep_tab_evidence(tabs.scratch_dir + "/" + c.id);
  }
  auto run = on.run(c.plan, seed, c.file, "[tw:" + c.id + "] ");
  if (!run) {
    result.verdict = verdict::fail;
    result.evidence = {
        evidence_that(evidence_kind::problem, "the case could not run: " + run.error().message)};
    return result;
  }
  judge(result, c, run->trace);
  error_when_gone(result, run->trace, target);
  if (opens_tabs(c)) embed_screenshots(result);
  return result;
}

//! `run()`'s result, or a failing verdict when something escaped it: one case the suite
//! could not handle must not end the run without its reports.
template <typename Run>
case_result guarded(const catalog_case& c, const target_choice& target, std::uint64_t seed,
                    Run run) {
  try {
    return run();
  } catch (const std::exception& e) {
    auto result = base_result(c, target, seed);
    result.verdict = verdict::fail;
    result.evidence = {evidence_that(
        evidence_kind::problem,
        std::string("the suite failed while running this case: ") + escape_invalid_utf8(e.what()))};
    return result;
  }
}

}  // namespace

std::string to_string(verdict v) {
  switch (v) {
    case verdict::pass:
      return "pass";
    case verdict::fail:
      return "fail";
    case verdict::warn:
      return "warn";
    case verdict::not_applicable:
      return "not applicable";
    case verdict::error:
      return "error";
  }
  return "?";
}

namespace {

//! "2 s", "1500 ms", "5 min": a timeout as a person reads it.
std::string duration_text(time_ms ms) {
  if (ms % 60'000 == 0 && ms >= 120'000) return std::to_string(ms / 60'000) + " min";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

//! The timeouts a scenario's `settings:` states that the target does not have, as
//! "result_timeout 10 s, the target has 300 s; ..."; "" when they agree or none is stated.
std::string timeouts_unmet(const scenarios::scenario& plan, const target_profile& profile) {
  std::string text;
  const auto compare = [&](const char* name, const std::optional<time_ms>& stated, time_ms actual) {
    if (!stated || *stated == actual) return;
    text += (text.empty() ? "" : "; ") + std::string(name) + " " + duration_text(*stated) +
            ", the target has " + duration_text(actual);
  };
  compare("ack_timeout", plan.stated_ack_timeout_ms, profile.ack_timeout_ms);
  compare("result_timeout", plan.stated_result_timeout_ms, profile.result_timeout_ms);
  compare("interrupt_timeout", plan.stated_interrupt_timeout_ms, profile.interrupt_timeout_ms);
  return text;
}

}  // namespace

std::string not_applicable_reason(const scenarios::scenario& plan, const target_profile& profile) {
  // Why first: a scenario whose times are written for other timeouts would read the
  // target's correct deadlines as violations (CALL-5, TASK-7).
  if (const auto unmet = timeouts_unmet(plan, profile); !unmet.empty()) {
    return "the scenario's settings: need " + unmet;
  }
  for (const auto& need : plan.needs) {
    if (profile.meets(need)) continue;
    if (need == scenarios::exact_timing) {
      return "the case checks a deadline to the millisecond, finer than a real clock's "
             "tolerance window of " +
             std::to_string(profile.timing_tolerance_ms) +
             " ms; it needs a target that serves the test clock (\"clock\": \"virtual\")";
    }
    if (need == scenarios::browser_tabs) {
      return "the scenario drives real browser tabs, which ping on the wall clock; it needs a "
             "target on a real clock (\"clock\": \"real\")";
    }
    return "the target lacks " + need;
  }
  for (const auto& id : plan.spec_ids) {
    if (profile.overrides.is_object() && profile.overrides.contains(id)) {
      return "the target replaces [P] rule " + id;
    }
  }
  return "";
}

scenarios::timing timing_for(const scenarios::scenario& plan, const target_choice& target) {
  auto timing = target.timing();
  if (target.bundled() == nullptr) return timing;
  if (plan.stated_ack_timeout_ms) timing.ack_timeout_ms = *plan.stated_ack_timeout_ms;
  if (plan.stated_result_timeout_ms) timing.result_timeout_ms = *plan.stated_result_timeout_ms;
  if (plan.stated_interrupt_timeout_ms)
    timing.interrupt_timeout_ms = *plan.stated_interrupt_timeout_ms;
  return timing;
}

scenarios::timing timing_of(const target_profile& profile) {
  scenarios::timing timing;
  timing.ack_timeout_ms = profile.ack_timeout_ms;
  timing.result_timeout_ms = profile.result_timeout_ms;
  timing.interrupt_timeout_ms = profile.interrupt_timeout_ms;
  timing.real_clock = !profile.virtual_clock;
  timing.tolerance_ms = profile.virtual_clock ? 1 : profile.timing_tolerance_ms;
  return timing;
}

protocol::outcome<catalog_case> timed_for(const catalog_case& c, const scenarios::timing& target) {
  const bool as_loaded = !target.real_clock && target.tolerance_ms == 1 &&
                         scenarios::pace_of(target) == 1.0 &&
                         c.plan.ack_timeout_ms == target.ack_timeout_ms &&
                         c.plan.result_timeout_ms == target.result_timeout_ms &&
                         c.plan.interrupt_timeout_ms == target.interrupt_timeout_ms;
  if (as_loaded) return c;  // the catalog's own reading already is this one
  catalog_case timed = c;
  if (c.file.empty()) {
    timed.plan.ack_timeout_ms = target.ack_timeout_ms;
    timed.plan.result_timeout_ms = target.result_timeout_ms;
    timed.plan.interrupt_timeout_ms = target.interrupt_timeout_ms;
    return timed;
  }
  auto plan = scenarios::load_file(c.file, target);
  if (!plan) return plan.error();
  // Faults a caller put on the case's plan stay (tests inject them that way).
  plan->faults = c.plan.faults;
  timed.plan = std::move(*plan);
  return timed;
}

bool opens_tabs(const catalog_case& c) {
  return scenarios::needs(c.plan, scenarios::browser_tabs);
}

namespace {

//! The target the browser cases run on: the bundled server keeps the wall clock for them,
//! since a tab pings on it (docs/browser.md, "Time"); any other target as it is.
target_choice tabs_target(target_choice target) {
  if (auto* server = std::get_if<bundled_server>(&target.kind)) server->real_clock = true;
  return target;
}

}  // namespace

std::optional<wall_time_estimate> estimate_wall_time(const std::vector<catalog_case>& cases,
                                                     const target_choice& target, int jobs,
                                                     bool browser) {
  const auto timing = target.timing();
  const bool browser_cases = browser && std::any_of(cases.begin(), cases.end(),
                                                    [](const auto& c) { return opens_tabs(c); });
  if (!timing.real_clock && !browser_cases) return std::nullopt;
  const auto browser_target = tabs_target(target);
  wall_time_estimate estimate;
  const auto note = [&](const catalog_case& c, double seconds) {
    if (seconds > estimate.longest_seconds) {
      estimate.longest_seconds = seconds;
      estimate.longest_case = c.id;
    }
    if (seconds > 60) ++estimate.over_a_minute;
  };
  // When each job is free again; a case goes to the one free first (ties: the lowest).
  std::vector<double> free_at(static_cast<std::size_t>(std::max(1, jobs)), 0.0);
  double browser_seconds = 0;
  for (const auto& c : cases) {
    if (opens_tabs(c)) {
      if (!browser) continue;  // not applicable: it takes no time
      auto timed = timed_for(c, timing_for(c.plan, browser_target));
      // A second per tab for Chromium to open it and the page to register.
      const double seconds =
          (timed ? static_cast<double>(scenarios::end_of_steps(timed->plan)) / 1000.0 : 0.0) +
          static_cast<double>(std::count_if(c.plan.clients.begin(), c.plan.clients.end(),
                                            [](const auto& client) { return client.browser; }));
      browser_seconds += seconds;
      note(c, seconds);
      continue;
    }
    if (!timing.real_clock) continue;  // a virtual clock costs no wall time
    auto timed = timed_for(c, timing_for(c.plan, target));
    const double seconds =
        timed ? static_cast<double>(scenarios::end_of_steps(timed->plan)) / 1000.0 : 0.0;
    auto first_free = std::min_element(free_at.begin(), free_at.end());
    *first_free += seconds;
    note(c, seconds);
  }
  estimate.seconds = *std::max_element(free_at.begin(), free_at.end()) + browser_seconds;
  return estimate;
}

protocol::outcome<std::vector<case_result>> run_cases(const std::vector<catalog_case>& cases,
                                                      const target_choice& target,
                                                      const run_settings& settings) {
  std::vector<case_result> results(cases.size());
  std::vector<bool> ran(cases.size(), false);
  std::mutex progress_mutex;
  std::size_t done = 0;
  // Two lanes: every other case first, side by side, then the browser cases one at a time.
  std::vector<std::size_t> lane, browser_lane;
  for (std::size_t i = 0; i < cases.size(); ++i)
    (opens_tabs(cases[i]) ? browser_lane : lane).push_back(i);
  std::atomic<std::size_t> next{0};  // the next case of `lane` to start
  std::atomic<bool> no_more{false};  // set when no further case may start
  int errors_in_a_row = 0;
  std::string stopped;
  auto finish = [&](std::size_t i, case_result result, clock_type::time_point started) {
    result.seconds = std::chrono::duration<double>(clock_type::now() - started).count();
    std::lock_guard lock(progress_mutex);
    results[i] = std::move(result);
    ran[i] = true;
    ++done;
    if (settings.progress) settings.progress(results[i], done, cases.size());
    errors_in_a_row = results[i].verdict == verdict::error ? errors_in_a_row + 1 : 0;
    if (settings.stop_after_errors > 0 && errors_in_a_row >= settings.stop_after_errors &&
        stopped.empty()) {
      stopped = "the target stopped answering at case " + results[i].id + " (" +
                results[i].unreachable_because + "); " + std::to_string(errors_in_a_row) +
                " cases in a row could not reach it, so the run stopped";
      no_more = true;  // no further case starts; those running finish
    }
  };

  // Workers take the next case until none is left. In-process every case has its own
  // core. The bundled server is started once per worker, so each worker's cases have a
  // clock of their own. A remote virtual clock is shared by all its sessions, and a case
  // that moves it would shift every other case's deadlines, so those cases run one at a
  // time; on a real clock every case has its own sessions and tasks and nothing to
  // coordinate, so they run at once.
  const bool own_targets = !target.profile() || !target.profile()->virtual_clock;
  const int workers = own_targets ? std::max(1, settings.jobs) : 1;
  std::mutex error_mutex;
  std::optional<protocol::api_error> setup_error;
  //! Runs case `i` on `on`; false when nothing more can run.
  auto run_one = [&](std::size_t i, scenario_runner& on, const target_choice& on_target,
                     const tab_source& tabs) {
    const auto started = clock_type::now();
    std::optional<protocol::api_error> error;
    auto result = guarded(cases[i], on_target, settings.seed, [&] {
      return run_case(cases[i], on, on_target, settings.seed, error, tabs);
    });
    if (error) {
      std::lock_guard lock(error_mutex);
      setup_error = error;
      no_more = true;  // nothing more can run
      return false;
    }
    finish(i, std::move(result), started);
    return true;
  };
  auto worker = [&] {
    scenario_runner on(target);
    for (std::size_t k = next++; k < lane.size() && !no_more; k = next++) {
      if (!run_one(lane[k], on, target, {})) return;
    }
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < workers && static_cast<std::size_t>(j) < lane.size(); ++j)
    threads.emplace_back(worker);
  worker();
  for (auto& t : threads)
    t.join();
  if (!browser_lane.empty() && !no_more) {
    const auto browser_target = tabs_target(target);
    tab_source tabs{settings.browser, ""};
    std::optional<scratch_directory> scratch;
    if (tabs.driver != nullptr) {
      auto made = scratch_directory::make("toolwire-tabs");
      if (!made) return made.error();
      scratch.emplace(std::move(*made));
      tabs.scratch_dir = scratch->path();
    }
    scenario_runner on(browser_target);
    for (std::size_t i : browser_lane) {
      if (no_more || !run_one(i, on, browser_target, tabs)) break;
    }
  }
  if (setup_error) return *setup_error;
  if (!stopped.empty()) {
    std::vector<case_result> kept;
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (ran[i]) kept.push_back(std::move(results[i]));
    }
    results = std::move(kept);
    stopped += "; the reports hold the " + std::to_string(results.size()) + " cases that ran";
    if (settings.stopped_because != nullptr) *settings.stopped_because = stopped;
  }
  return results;
}

}  // namespace toolwire::conformance
