// `toolwire check`.
#include "check_command.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>
#include <thread>

#include "step_summary.hpp"
#include "suggest.hpp"
#include "target_flags.hpp"
#include "toolwire/conformance/baseline.hpp"
#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/conformance/runner.hpp"
#include "toolwire/reports/html.hpp"
#include "toolwire/reports/reports.hpp"

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

bool write_text(const std::string& path, const std::string& text) {
  const auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
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
  }
  return out.append(word).append("\033[0m");
}

void print_failure(const case_result& r, bool colour) {
  std::cout << "\n"
            << (r.verdict == verdict::warn ? coloured("WARN", r.verdict, colour)
                                           : coloured("FAIL", r.verdict, colour))
            << " ";
  if (!r.repeat_label.empty()) std::cout << "(" << r.repeat_label << ") ";
  std::cout << r.id << " [";
  for (std::size_t i = 0; i < r.spec_ids.size(); ++i)
    std::cout << (i ? "," : "") << r.spec_ids[i];
  std::cout << "] " << r.purpose << "\n";
  for (const auto& e : r.evidence)
    std::cout << "  - " << e << "\n";
  std::cout << "  reproduce: " << r.reproduce << "\n";
}

void print_summary(const reports::tally& t, std::size_t cases, double seconds) {
  std::printf("\n%-18s %6s\n", "verdict", "cases");
  std::printf("%-18s %6zu\n%-18s %6zu\n%-18s %6zu\n%-18s %6zu\n%-18s %6zu\n%-18s %6zu\n", "pass",
              t.pass, "fail", t.fail, "warn", t.warn, "not applicable", t.not_applicable,
              "expected failure", t.expected_failures, "total", cases);
  std::printf("%.2f s\n", seconds);
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
  if (target.in_process) return static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  // A virtual-clock target's clock is shared by its cases; a real clock needs no care.
  if (target.profile) return target.profile->virtual_clock ? 1 : 16;
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
preflight, or nothing was checked.
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
  app_->add_option("--seed", seed_, "the seed of every case's run")->default_val(1);
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
  auto cases = conformance::filter_cases(std::move(*catalog), filter_);
  if (!shard_.empty()) {
    int index = 0, count = 0;
    char slash = 0;
    std::istringstream in(shard_);
    if (!(in >> index >> slash >> count) || slash != '/' || count < 1 || index < 1 ||
        index > count || !in.eof()) {
      return usage_error("--shard must be I/N with 1 <= I <= N, e.g. 2/4; got '" + shard_ + "'");
    }
    cases = conformance::shard_cases(std::move(cases), index, count);
  }
  if (list_) {
    print_list(cases);
    return 0;
  }
  if (cases.empty()) {
    return usage_error("nothing was checked: no case matches --filter '" + filter_ + "'" +
                       (shard_.empty() ? "" : " in shard " + shard_));
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
  // The runner calls this under its own lock, one finished case at a time.
  settings.progress = [&](const case_result& r, std::size_t done, std::size_t total) {
    const auto word = coloured(conformance::to_string(r.verdict), r.verdict, colour);
    if (tty) {
      std::cerr << "\r\033[K[" << done << "/" << total << "] " << r.id << ": " << word
                << std::flush;
    } else if (lines) {
      std::cerr << "[" << done << "/" << total << "] " << word << " " << r.id << std::endl;
    }
  };
  const auto started = std::chrono::steady_clock::now();
  auto results = conformance::run_cases(cases, target, settings);
  if (tty) std::cerr << "\r\033[K";
  if (!results) return usage_error("the target cannot be used: " + results.error().message);
  if (repeat_ > 0) {
    if (auto error = conformance::rerun_failures(cases, *results, target, settings, repeat_)) {
      return usage_error("the target cannot be used: " + error->message);
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  if (update_baseline_) {
    if (!write_text(expected_failures_, conformance::baseline_text(*results))) {
      return usage_error("cannot write " + expected_failures_);
    }
    std::cout << "baseline written: " << expected_failures_ << "\n";
    return 0;
  }
  reports::run_summary summary{target_name,     seed_,
                               seconds,         conformance::apply_baseline(listed, *results),
                               min_applicable_, repeat_};
  summary.catalog_dir = catalog_dir;
  summary.toolwire_version = TOOLWIRE_VERSION;
  if (auto version = conformance::catalog_version(catalog_dir)) summary.catalog_version = *version;
  summary.filter = filter_;
  summary.shard = shard_;
  summary.started_at =
      reports::utc_time_text(std::chrono::system_clock::now() -
                             std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                 std::chrono::duration<double>(seconds)));
  for (const auto& r : *results) {
    if ((r.verdict == verdict::fail && !r.expected_failure) || r.verdict == verdict::warn) {
      print_failure(r, colour_on(STDOUT_FILENO));
    }
  }
  for (const auto& id : summary.stale_baseline) {
    std::cout << "\nSTALE BASELINE " << id << ": listed in " << expected_failures_
              << " but passed; remove it\n";
  }
  print_not_applicable(*results);
  const auto t = reports::count(*results);
  print_summary(t, results->size(), seconds);
  const auto status = reports::status_of(*results, summary);
  if (!status.message.empty()) std::cout << status.message << "\n";
  // Without a report flag every report goes to toolwire-reports/: a run always leaves
  // something to read.
  const bool defaults = junit_.empty() && json_.empty() && markdown_.empty() && html_.empty();
  const std::string junit = defaults ? "toolwire-reports/junit.xml" : junit_;
  const std::string html = defaults ? "toolwire-reports/report.html" : html_;
  const std::string json = defaults ? "toolwire-reports/report.json" : json_;
  const std::string markdown = defaults ? "toolwire-reports/summary.md" : markdown_;
  bool written = write_report(junit, [&] { return reports::junit_xml(*results, summary); });
  written &= write_report(
      json, [&] { return conformance::safe_dump(reports::json_report(*results, summary), 1); });
  const std::string summary_text = reports::markdown_summary(*results, summary);
  written &= write_report(markdown, [&] { return summary_text; });
  written &= write_report(html, [&] {
    return reports::html_report(reports::json_report(*results, summary), {html_all_});
  });
  append_step_summary(summary_text, "toolwire check");
  if (!written) return 2;
  if (defaults)
    std::cout << "reports: toolwire-reports/{junit.xml,report.json,summary.md,report.html}\n";
  return status.exit_code;
}

}  // namespace toolwire::cli
