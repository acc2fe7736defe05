// `toolwire check`.
#include "check_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

#include "signal_watch.hpp"
#include "step_summary.hpp"
#include "suggest.hpp"
#include "target_flags.hpp"
#include "toolwire/browser/driver_process.hpp"
#include "toolwire/conformance/baseline.hpp"
#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/conformance/runner.hpp"
#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/protocol/spec_rules.hpp"
#include "toolwire/reports/html.hpp"
#include "toolwire/reports/reports.hpp"
#include "toolwire/scenarios/vocabulary.hpp"
#include "validators.hpp"

#ifndef TOOLWIRE_VERSION
#define TOOLWIRE_VERSION "unknown"
#endif

namespace toolwire::cli {

namespace {

using conformance::case_result;
using conformance::verdict;

int usage_error(const std::string& message) {
  std::cerr << "toolwire check: " << message << "\n";
  return 2;
}

//! Writes `text` to `path` whole or not at all: written beside it, then renamed over it,
//! so that a run killed while it writes leaves the previous complete file.
bool write_text(const std::string& path, const std::string& text) {
  const auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial, std::ios::binary);
    out << text;
    if (!out) return false;
  }
  std::filesystem::rename(partial, path, ec);
  return !ec;
}

void print_list(const std::vector<conformance::catalog_case>& cases) {
  for (const auto& c : cases) {
    std::string ids;
    for (const auto& id : c.plan.spec_ids)
      ids += (ids.empty() ? "" : ",") + id;
    std::cout << c.id << "  " << ids << "  " << conformance::strongest_tag(c.plan.spec_ids) << "  "
              << c.plan.purpose << "\n";
  }
  std::cout << cases.size() << " cases\n";
}

//! Why `filter` matched no case and what would: how a filter reads, the groups, and the
//! nearest case ids. Why so much: the usual mistakes are a bare group ("reg"), a rule id
//! ("REG-1") and a list ("auth.*,ses.*"), and each has its own remedy.
std::string no_match_hint(const std::vector<std::string>& ids, const std::string& filter) {
  std::set<std::string> groups;
  for (const auto& id : ids)
    groups.insert(id.substr(0, id.find('.')));
  std::string hint =
      ". A filter is one glob over case ids, group.name ('*' any text, '?' one character)";
  if (filter.find(',') != std::string::npos) {
    hint += "; a comma is no separator: run one check per filter, or one glob that covers both";
  }
  if (protocol::find_spec_rule(filter) != nullptr) {
    hint += "; '" + filter +
            "' is a SPEC rule id, not a case id: `toolwire check --list` shows "
            "every case with the rules it cites";
  } else if (groups.contains(filter)) {
    hint += "; for the whole group write --filter '" + filter + ".*'";
  }
  hint += ". Groups: ";
  for (const auto& group : groups)
    hint += (hint.ends_with(": ") ? "" : ", ") + group;
  const std::vector<std::string_view> views(ids.begin(), ids.end());
  hint += ". Nearest ids: ";
  const auto near = scenarios::vocabulary::nearest(filter, views, 3);
  for (std::size_t i = 0; i < near.size(); ++i)
    hint.append(i == 0 ? "" : ", ").append(near[i]);
  return hint;
}

//! Whether `fd` is a terminal that may get colour: https://no-color.org, a NO_COLOR that
//! is set and not empty turns it off; TERM=dumb cannot show it.
bool colour_on(int fd) {
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour != nullptr && *no_colour != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string_view(term) == "dumb") return false;
  return isatty(fd) != 0;
}

//! `word` in the colour of `v` (green pass, red fail, yellow warn, dim not applicable),
//! or as it is without colour.
std::string coloured(std::string_view word, verdict v, bool colour) {
  std::string out;
  if (!colour) return out.append(word);
  switch (v) {
    case verdict::pass:
      out = "\033[32m";
      break;
    case verdict::fail:
      out = "\033[1;31m";
      break;
    case verdict::warn:
      out = "\033[33m";
      break;
    case verdict::not_applicable:
      out = "\033[2m";
      break;
    case verdict::error:
      out = "\033[1;35m";
      break;
  }
  return out.append(word).append("\033[0m");
}

//! Where a failed browser case's tab evidence is kept: the JSON and HTML reports this run
//! writes ("" when it writes neither, e.g. with --junit alone).
std::string tab_evidence_reports(const std::string& json_path, const std::string& html_path) {
  std::string out;
  for (const std::string* path : {&json_path, &html_path}) {
    if (path->empty()) continue;
    out += (out.empty() ? "" : " and ") + *path;
  }
  return out;
}

void print_failure(const case_result& r, bool colour, const std::string& evidence_reports) {
  const char* word = r.verdict == verdict::warn    ? "WARN"
                     : r.verdict == verdict::error ? "ERROR"
                                                   : "FAIL";
  std::cout << "\n" << coloured(word, r.verdict, colour) << " ";
  if (!r.repeat_label.empty()) std::cout << "(" << r.repeat_label << ") ";
  std::cout << r.id << " [";
  for (std::size_t i = 0; i < r.spec_ids.size(); ++i)
    std::cout << (i ? "," : "") << r.spec_ids[i];
  std::cout << "] " << r.purpose << "\n";
  for (const auto& e : r.evidence)
    std::cout << "  - " << e.text() << "\n";
  for (const auto& record : r.trace) {
    if (!record.is_object() || record.value("kind", "") != "tab_evidence") continue;
    const auto& data = protocol::member_at(record, "data");
    std::cout << "  tab '" << protocol::string_at(record, "actor") << "' at the end of the run: "
              << (data.contains("screenshot_png") ? "its screenshot, " : "")
              << "its console and page log "
              << (evidence_reports.empty() ? "are kept in a JSON or HTML report (--json, --html)"
                                           : "are in " + evidence_reports)
              << "\n";
  }
  std::cout << "  reproduce: " << r.reproduce << "\n";
}

void print_summary(const reports::tally& t, std::size_t cases, double seconds,
                   const std::string& scope) {
  std::printf("\n%-18s %6s\n", "verdict", "cases");
  std::printf("%-18s %6zu\n%-18s %6zu\n", "pass", t.pass, "fail", t.fail);
  if (t.error > 0) std::printf("%-18s %6zu\n", "error", t.error);
  std::printf("%-18s %6zu\n%-18s %6zu\n%-18s %6zu\n%-18s %6zu\n", "warn", t.warn, "not applicable",
              t.not_applicable, "expected failure", t.expected_failures, "total", cases);
  std::printf("scope: %s\n%.2f s\n", scope.c_str(), seconds);
}

//! "about 6 min" for a wall time in seconds.
std::string about(double seconds) {
  if (seconds < 90) return "about " + std::to_string(static_cast<int>(seconds + 0.5)) + " s";
  return "about " + std::to_string(static_cast<int>(seconds / 60 + 0.5)) + " min";
}

//! Every not-applicable reason, with what would make its cases run.
void print_not_applicable(const std::vector<case_result>& results) {
  for (const auto& g : reports::not_applicable_groups(results)) {
    std::cout << "\nNOT APPLICABLE (" << g.cases.size() << "): " << g.reason
              << "\n  to run them: " << g.applicable_if << "\n  cases:";
    for (std::size_t i = 0; i < g.cases.size(); ++i)
      std::cout << (i ? ", " : " ") << g.cases[i];
    std::cout << "\n";
  }
}

//! Writes one report; false when it cannot (a report writer never ends the run).
template <typename Make>
bool write_report(const std::string& path, Make make) {
  if (path.empty()) return true;
  try {
    if (write_text(path, make())) return true;
    std::cerr << "toolwire check: cannot write " << path << "\n";
    return false;
  } catch (const std::exception& e) {
    std::cerr << "toolwire check: cannot write " << path << ": " << e.what() << "\n";
    return false;
  }
}

//! Waiting on a server is mostly idle time, so the bundled server takes more jobs than
//! there are CPUs.
int default_jobs(const conformance::target_choice& target) {
  if (target.in_process())
    return static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  // A virtual-clock target's clock is shared by its cases; a real clock needs no care.
  if (const auto* profile = target.profile()) return profile->virtual_clock ? 1 : 16;
  return 16;
}

}  // namespace

check_command::check_command(CLI::App& parent) {
  app_ = parent.add_subcommand(
      "check",
      "Run the conformance catalog against a target and report, per case, pass / fail / "
      "warn / not applicable with evidence. Without --target it starts the bundled reference "
      "server on a free loopback port with the virtual clock and checks it over HTTP.");
  app_->footer(R"(
Examples:
  toolwire check                                  # the bundled server; reports in toolwire-reports/
  toolwire check --target acme.json --expected-failures known.txt --junit junit.xml
  ACME_KEY=... toolwire check --base-url http://127.0.0.1:8080 --api-key-env ACME_KEY \
      --parts A,B --model-stand-in 127.0.0.1:18080 --assistant-id 1   # no profile file
  toolwire check --in-process --filter 'reg.*' --progress lines
  toolwire check --fault double_result_accepted   # what a failing run looks like

Exit codes: 0 every required case passed; 1 a failure, a stale baseline or fewer cases ran
than --min-applicable; 2 bad usage, a bad profile, an unreachable target or a failed
preflight, a target that stopped answering mid-run (its cases are errors, not failures),
or nothing was checked; 130 / 143 interrupted by SIGINT / SIGTERM (complete reports of the
cases that finished are written first).
The default catalog is the installed one (<binary's dir>/../share/toolwire/catalog) when it
exists, else the source tree's it was built from; --catalog overrides both.
Read: docs/conformance.md, docs/target-profile.md, docs/ci.md)");
  target_.add_to(*app_, default_target::bundled);
  app_->add_option("--catalog", catalog_, "the catalog directory")
      ->default_str(conformance::default_catalog_dir());
  app_->add_option("--filter", filter_, "only cases whose id matches this glob, e.g. 'reg.*'");
  app_->add_option("--jobs", jobs_,
                   "cases run at once: in-process, against the bundled server (each job "
                   "gets a server of its own) and against a real-clock --target; a "
                   "virtual-clock --target runs one case at a time, because its clock is "
                   "shared. Default: the CPUs in-process, 16 for the bundled server and a "
                   "real-clock target")
      ->check(CLI::Range(1, 256));
  app_->add_option("--seed", seed_, "the seed of every case's run")
      ->default_val(1)
      ->check(seed_value);
  app_->add_option("--shard", shard_, "run shard I of N (I/N, 1-based), e.g. 2/4");
  app_->add_option("--expected-failures", expected_failures_,
                   "a baseline: case ids expected to fail (one per line)");
  app_->add_flag("--update-baseline", update_baseline_,
                 "write the failing cases to --expected-failures and exit 0");
  app_->add_option("--junit", junit_,
                   "write JUnit XML here (without any report flag, all four reports go to "
                   "toolwire-reports/)");
  app_->add_option("--json", json_, "write the JSON report (verdicts, evidence, traces) here");
  app_->add_option("--markdown", markdown_,
                   "write a Markdown summary here. Whenever the environment variable "
                   "GITHUB_STEP_SUMMARY names a file, the summary is also appended to it "
                   "(never overwritten; a file that cannot be written only warns)");
  app_->add_option("--html", html_,
                   "write the HTML report here: one self-contained file with a requirement "
                   "matrix, and a sequence diagram and wire log per failed case");
  app_->add_flag("--html-all", html_all_, "the HTML report draws every case, not only failed ones");
  app_->add_flag("--list", list_, "list the cases (id, SPEC IDs, grade, purpose) and exit");
  app_->add_flag("--browser", browser_,
                 "run the browser cases (browser.*) in headless Chromium: after the other "
                 "cases, one at a time, against the bundled server on the wall clock or a "
                 "real-clock --target; a case that does not pass keeps each tab's screenshot "
                 "and console in the JSON and HTML reports. Without it they are not "
                 "applicable. Needs Chromium, node and playwright-core (scripts/bootstrap "
                 "--browser; docs/browser.md)");
  auto* quiet = app_->add_flag("--quiet", quiet_, "no progress: the same as --progress none");
  app_->add_option("--progress", progress_,
                   "how finished cases are shown on stderr: 'tty' rewrites one line "
                   "([done/total] case: verdict), 'lines' prints one line per finished case "
                   "([done/total] verdict case; for CI logs), 'none' nothing; 'auto' is tty "
                   "on a terminal, else lines. Verdicts are coloured on a terminal unless "
                   "NO_COLOR is set")
      ->check(CLI::IsMember({"auto", "tty", "lines", "none"}))
      ->capture_default_str()
      ->excludes(quiet);
  app_->add_option("--min-applicable", min_applicable_,
                   "fail the run (exit 1) when fewer than PCT percent of the selected cases "
                   "ran (were applicable); a run in which no case ran exits 2 regardless")
      ->check(CLI::Range(0, 100));
  app_->add_option("--repeat", repeat_,
                   "run every failing case N more times and label each failure consistent "
                   "(failed every time) or intermittent (passed at least once)")
      ->check(CLI::Range(0, 100));
}

int check_command::run() const {
  const std::string catalog_dir = catalog_.empty() ? conformance::default_catalog_dir() : catalog_;
  auto catalog = conformance::load_catalog(catalog_dir);
  if (!catalog) return usage_error(catalog.error().message);
  const std::size_t catalog_cases = catalog->size();
  std::vector<std::string> catalog_ids;
  for (const auto& c : *catalog)
    catalog_ids.push_back(c.id);
  auto cases = conformance::filter_cases(std::move(*catalog), filter_);
  if (!shard_.empty()) {
    const auto shard = parse_shard(shard_);
    if (!shard) {
      return usage_error("--shard must be I/N with 1 <= I <= N, e.g. 2/4; got '" + shard_ + "'");
    }
    cases = conformance::shard_cases(std::move(cases), shard->first, shard->second);
  }
  if (list_) {
    print_list(cases);
    return 0;
  }
  if (cases.empty()) {
    if (!shard_.empty()) {
      return usage_error("nothing was checked: no case matches --filter '" + filter_ +
                         "' in shard " + shard_);
    }
    return usage_error("nothing was checked: no case matches --filter '" + filter_ + "'" +
                       no_match_hint(catalog_ids, filter_));
  }
  if (update_baseline_ && expected_failures_.empty()) {
    return usage_error("--update-baseline needs --expected-failures FILE");
  }
  auto chosen = target_.choose();
  if (!chosen) return usage_error(chosen.error().message);
  const conformance::target_choice& target = chosen->choice;
  const std::string& target_name = chosen->name;

  conformance::baseline listed;
  if (!expected_failures_.empty() && !update_baseline_) {
    auto loaded = conformance::load_baseline(expected_failures_);
    if (!loaded) return usage_error(loaded.error().message);
    listed = *loaded;
    // Why refuse: an id that names no case excuses nothing and never goes stale, so a typo
    // would sit in the baseline for ever while the failure it meant fails the run.
    std::vector<std::string> unknown;
    for (const auto* ids : {&listed.expected_failures, &listed.flaky}) {
      for (const auto& id : *ids) {
        if (std::find(catalog_ids.begin(), catalog_ids.end(), id) != catalog_ids.end()) continue;
        unknown.push_back("'" + id + "' is no case of the catalog" + did_you_mean(id, catalog_ids));
      }
    }
    if (!unknown.empty()) {
      std::string message = expected_failures_ + ": ";
      for (std::size_t i = 0; i < unknown.size(); ++i)
        message += (i == 0 ? "" : "; ") + unknown[i];
      return usage_error(message + " (toolwire check --list lists the case ids)");
    }
  }

  // Why lines off a terminal: CI logs do not interpret \r, so a rewritten line would show
  // nothing until the end (or every state at once); one line per case reads as a log.
  const std::string progress = quiet_                  ? "none"
                               : progress_ != "auto"   ? progress_
                               : isatty(STDERR_FILENO) ? "tty"
                                                       : "lines";
  const bool tty = progress == "tty";
  const bool lines = progress == "lines";
  const bool colour = colour_on(STDERR_FILENO);
  conformance::run_settings settings;
  settings.seed = seed_;
  settings.jobs = jobs_ > 0 ? jobs_ : default_jobs(target);
  std::string stopped;
  settings.stopped_because = &stopped;
  // The driver, started only when a selected case opens tabs: Chromium takes seconds.
  std::unique_ptr<browser::driver_process> tabs;
  if (browser_ && std::any_of(cases.begin(), cases.end(), conformance::opens_tabs)) {
    auto started = browser::driver_process::start_with_chromium({TOOLWIRE_BROWSER_DIR});
    if (!started) return usage_error("--browser: " + started.error().message);
    tabs = std::move(*started);
    settings.browser = tabs.get();
  }

  reports::run_summary summary{target_name, seed_, 0, {}, min_applicable_, repeat_};
  summary.catalog_dir = catalog_dir;
  summary.toolwire_version = TOOLWIRE_VERSION;
  if (auto version = conformance::catalog_version(catalog_dir)) summary.catalog_version = *version;
  summary.filter = filter_;
  summary.shard = shard_;
  summary.catalog_cases = catalog_cases;
  summary.timing = chosen->timing;
  summary.selected_cases = cases.size();
  const auto started = std::chrono::steady_clock::now();
  const auto wall_started = std::chrono::system_clock::now();
  summary.started_at = reports::utc_time_text(wall_started);
  auto seconds_so_far = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };

  // Without a report flag every report goes to toolwire-reports/: a run always leaves
  // something to read.
  const bool defaults = junit_.empty() && json_.empty() && markdown_.empty() && html_.empty();
  const std::string junit = defaults ? "toolwire-reports/junit.xml" : junit_;
  const std::string html = defaults ? "toolwire-reports/report.html" : html_;
  const std::string json = defaults ? "toolwire-reports/report.json" : json_;
  const std::string markdown = defaults ? "toolwire-reports/summary.md" : markdown_;
  auto write_reports = [&](const std::vector<case_result>& results,
                           const reports::run_summary& as) {
    bool written = write_report(junit, [&] { return reports::junit_xml(results, as); });
    written &= write_report(
        json, [&] { return conformance::safe_dump(reports::json_report(results, as), 1); });
    written &= write_report(markdown, [&] { return reports::markdown_summary(results, as); });
    written &= write_report(
        html, [&] { return reports::html_report(reports::json_report(results, as), {html_all_}); });
    return written;
  };

  // The cases finished so far, in catalog order, for the reports written while the run
  // goes on (a run killed outright leaves them) and for a run cut short by a signal.
  std::mutex finished_mutex;
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < cases.size(); ++i)
    position.emplace(cases[i].id, i);
  std::map<std::size_t, case_result> finished;
  auto finished_results = [&] {
    std::vector<case_result> out;
    for (const auto& [at, r] : finished)
      out.push_back(r);
    (void)conformance::apply_baseline(listed, out);  // staleness is the final report's to say
    return out;
  };
  bool final_reports = false;  // from then on a signal leaves the reports to the run
  auto partial_summary = [&](const std::string& interrupted) {
    reports::run_summary as = summary;
    as.seconds = seconds_so_far();
    as.interrupted = interrupted;
    return as;
  };
  auto last_written = std::chrono::steady_clock::now();
  const bool writes_as_it_goes = !update_baseline_;

  // The runner calls this under its own lock, one finished case at a time.
  settings.progress = [&](const case_result& r, std::size_t done, std::size_t total) {
    const auto word = coloured(conformance::to_string(r.verdict), r.verdict, colour);
    if (tty) {
      std::cerr << "\r\033[K[" << done << "/" << total << "] " << r.id << ": " << word
                << std::flush;
    } else if (lines) {
      std::cerr << "[" << done << "/" << total << "] " << word << " " << r.id << std::endl;
    }
    if (!writes_as_it_goes) return;
    std::lock_guard lock(finished_mutex);
    finished[position[r.id]] = r;
    // Why at most once a second: a report holds every trace, and a fast run finishes
    // hundreds of cases a second; the reports at the end are complete in any case.
    const auto now = std::chrono::steady_clock::now();
    if (done < total && now - last_written >= std::chrono::seconds(1)) {
      last_written = now;
      write_reports(finished_results(), partial_summary("unfinished"));
    }
  };

  if (!chosen->timing.empty() && !quiet_) std::cerr << "toolwire check: " << chosen->timing << "\n";
  if (const auto estimate =
          conformance::estimate_wall_time(cases, target, settings.jobs, tabs != nullptr);
      estimate && !quiet_) {
    const auto browser_cases =
        tabs == nullptr ? 0 : std::count_if(cases.begin(), cases.end(), conformance::opens_tabs);
    const auto others = static_cast<std::ptrdiff_t>(cases.size()) - browser_cases;
    std::cerr << "toolwire check: " << cases.size() << " cases";
    if (!chosen->timing.empty() && others > 0) {
      std::cerr << " on a real clock, " << settings.jobs << " at once";
    }
    if (browser_cases > 0) {
      std::cerr << (others > 0 ? "; then " : ", ") << browser_cases
                << " in Chromium, one at a time";
    }
    std::cerr << ": " << about(estimate->seconds) << " (the longest, " << estimate->longest_case
              << ", takes " << about(estimate->longest_seconds);
    if (estimate->over_a_minute > 1) {
      std::cerr << "; " << estimate->over_a_minute << " cases take more than a minute each";
    }
    std::cerr << ")\n";
  }

  // SIGINT / SIGTERM: complete reports of what finished, marked interrupted, then exit
  // 130 / 143 at once (the cases still running may wait minutes on a real clock).
  std::optional<signal_watch> signals;
  if (writes_as_it_goes) {
    signals.emplace([&](const std::string& name, int exit_code) {
      std::lock_guard lock(finished_mutex);
      if (final_reports) std::_Exit(exit_code);
      if (tty) std::cerr << "\r\033[K";
      const auto results = finished_results();
      const auto as = partial_summary(name);
      write_reports(results, as);
      std::cerr << "toolwire check: interrupted by " << name << "; the reports hold the "
                << results.size() << " of " << cases.size() << " cases that had finished\n";
      std::cerr.flush();
      std::cout.flush();
      std::_Exit(exit_code);
    });
  }
  auto results = conformance::run_cases(cases, target, settings);
  std::unique_lock final_lock(finished_mutex);  // no partial report overwrites the final ones
  final_reports = true;
  settings.progress = nullptr;
  if (tty) std::cerr << "\r\033[K";
  if (!results) return usage_error("the target cannot be used: " + results.error().message);
  if (repeat_ > 0 && stopped.empty()) {
    if (auto error = conformance::rerun_failures(cases, *results, target, settings, repeat_)) {
      return usage_error("the target cannot be used: " + error->message);
    }
  }
  const double seconds = seconds_so_far();

  if (update_baseline_) {
    if (!write_text(expected_failures_, conformance::baseline_text(*results))) {
      return usage_error("cannot write " + expected_failures_);
    }
    std::cout << "baseline written: " << expected_failures_ << "\n";
    return 0;
  }
  summary.seconds = seconds;
  summary.stale_baseline = conformance::apply_baseline(listed, *results);
  summary.stopped = stopped;
  for (const auto& r : *results) {
    if ((r.verdict == verdict::fail && !r.expected_failure) || r.verdict == verdict::warn ||
        r.verdict == verdict::error) {
      print_failure(r, colour_on(STDOUT_FILENO), tab_evidence_reports(json, html));
    }
  }
  for (const auto& id : summary.stale_baseline) {
    std::cout << "\nSTALE BASELINE " << id << ": listed in " << expected_failures_
              << " but passed; remove it\n";
  }
  print_not_applicable(*results);
  const auto t = reports::count(*results);
  print_summary(t, results->size(), seconds, reports::scope_text(summary, results->size()));
  if (t.fail > 0 && !chosen->timing_caveat.empty()) {
    std::cout << "note: " << chosen->timing_caveat << "\n";
  }
  const auto status = reports::status_of(*results, summary);
  if (!status.message.empty()) std::cout << status.message << "\n";
  const bool written = write_reports(*results, summary);
  append_step_summary(reports::markdown_summary(*results, summary), "toolwire check");
  if (!written) return 2;
  if (defaults)
    std::cout << "reports: toolwire-reports/{junit.xml,report.json,summary.md,report.html}\n";
  return status.exit_code;
}

}  // namespace toolwire::cli
