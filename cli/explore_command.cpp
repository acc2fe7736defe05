// `toolwire explore`.
#include "explore_command.hpp"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "duration_text.hpp"
#include "toolwire/conformance/scenario_runner.hpp"
#include "toolwire/explore/explore.hpp"
#include "toolwire/scenarios/loader.hpp"
#include "validators.hpp"

namespace toolwire::cli {

namespace {

//! Searches that run as processes (--jobs), each with its own bundled server or core.
constexpr int most_jobs = 64;
//! Programs one search runs at once against a real-clock --target (--jobs there): each is
//! a run of a few threads, mostly waiting out real time.
constexpr int most_programs_at_once = 512;
//! Programs at once against a real-clock --target without --jobs: enough that a search is
//! not all waiting (at 100/300/400 ms timeouts, 32 at once ran 6-7 programs/s on 2 cores,
//! one at a time 0.28), few enough for a server's connection limits (each program holds a
//! connection or two per client and its requests').
constexpr int default_programs_at_once = 32;

//! Why a program explore left out on a real clock says nothing; `what` is its subject
//! ("the program", "each").
std::string still_racing_why(const std::string& what) {
  return "on a real clock " + what + " still raced a deadline, a dispatch or an answer after " +
         std::to_string(explore::most_moves_clear_of_races) +
         " moves clear of races, and no run of a racing program can tell a correct target from "
         "a faulty one";
}

//! "60s", "5m", "1500ms", "1h" as milliseconds; nullopt for anything else.
std::optional<std::chrono::milliseconds> parse_duration(const std::string& text) {
  std::size_t used = 0;
  long long amount = 0;
  try {
    amount = std::stoll(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::string unit = text.substr(used);
  if (amount < 0 || text[0] == '-' || text[0] == '+') return std::nullopt;
  if (unit == "ms") return std::chrono::milliseconds(amount);
  if (unit == "s") return std::chrono::seconds(amount);
  if (unit == "m") return std::chrono::minutes(amount);
  if (unit == "h") return std::chrono::hours(amount);
  return std::nullopt;
}

//! What a duration flag says when its value is not one: "--time-budget must be a number
//! and a unit (ms, s, m, h), e.g. 90s or 5m; got '90'".
std::string not_a_duration(const std::string& flag, const std::string& what,
                           const std::string& examples, const std::string& got) {
  return flag + " must be " + what + " and a unit (ms, s, m, h), e.g. " + examples + "; got '" +
         got + "'";
}

//! Programs over HTTP (or in-process with faults) through the runner's scenario_runner:
//! the same path as `simulate --target` and `check`. Each program's model requests carry
//! a tag of their own, so the shared model stand-in routes them to the right run.
class scenario_program_runner final : public explore::program_runner {
 public:
  explicit scenario_program_runner(const conformance::target_choice& choice)
      : choice_(choice), on_(std::make_unique<conformance::scenario_runner>(choice)) {}
  protocol::outcome<actors::run_result> run(const scenarios::scenario& program, std::uint64_t seed,
                                            std::vector<protocol::time_ms> clock_stops) override {
    // Why a fresh bundled server now and then: every program leaves its session, clients
    // and tasks behind, and a server holding thousands of them answers ever slower,
    // which on a short settle time shows as late arrivals.
    if (choice_.bundled() && ++runs_ % programs_per_server == 0) {
      on_ = std::make_unique<conformance::scenario_runner>(choice_);
    }
    static std::atomic<std::uint64_t> tags{0};
    return on_->run(program, seed, "explore", "[tw:explore-" + std::to_string(++tags) + "] ",
                    std::move(clock_stops));
  }

 private:
  static constexpr std::uint64_t programs_per_server = 100;
  conformance::target_choice choice_;
  std::unique_ptr<conformance::scenario_runner> on_;
  std::uint64_t runs_ = 0;
};

//! What programs are generated for: the profile's timeouts, parts and clock; for the
//! bundled server and in-process, explore's short timeouts (the bundled server is
//! started with them), so that deadlines are reached within a program.
protocol::outcome<explore::program_shape> shape_for(const conformance::target_choice& choice) {
  explore::program_shape shape;
  if (!choice.profile()) return shape;
  const auto& profile = *choice.profile();
  if (!profile.part_a) {
    return protocol::invalid_request(
        "explore generates Part A programs (sessions and clients, with Part B tasks beside "
        "them); target '" +
        profile.name + "' has no Part A");
  }
  // The same timing the profile's scenario files are read with.
  const auto timing = conformance::timing_of(profile);
  shape.ack_timeout_ms = timing.ack_timeout_ms;
  shape.result_timeout_ms = timing.result_timeout_ms;
  shape.interrupt_timeout_ms = timing.interrupt_timeout_ms;
  shape.real_clock = timing.real_clock;
  shape.tolerance_ms = timing.tolerance_ms;
  shape.part_b = profile.part_b;
  return shape;
}

//! Writes the traces a comparison was made of beside `stem` (STEM.target.jsonl,
//! STEM.oracle.jsonl; an empty trace is not written) and returns the paths written, or
//! nullopt after saying which one could not be written.
std::optional<std::vector<std::string>> write_compared_traces(const std::string& stem,
                                                              const actors::trace& target,
                                                              const actors::trace& oracle) {
  std::vector<std::string> written;
  for (const auto& [trace, name] :
       {std::pair{&target, ".target.jsonl"}, std::pair{&oracle, ".oracle.jsonl"}}) {
    if (trace->records().empty()) continue;
    std::ofstream out(stem + name);
    out << trace->to_jsonl();
    if (!out) {
      std::cerr << "toolwire explore: cannot write " << stem + name << "\n";
      return std::nullopt;
    }
    written.push_back(stem + name);
  }
  return written;
}

std::string traces_line(const std::vector<std::string>& written) {
  if (written.empty()) return "";
  std::string line = "traces compared (target";
  line += written.size() > 1 ? ", oracle): " : "): ";
  for (std::size_t i = 0; i < written.size(); ++i)
    line += (i == 0 ? "" : ", ") + written[i];
  return line + "\n";
}

std::string rules_text(const std::vector<std::string>& ids) {
  std::string text;
  for (const auto& id : ids)
    text += (text.empty() ? "" : ", ") + id;
  return text;
}

std::string triage_text(const explore::explore_failure& failure) {
  return failure.label() + " (failed " + std::to_string(failure.triage_failures) + " of " +
         std::to_string(failure.triage_runs) + " re-runs)";
}

std::string file_header(const explore::explore_failure& failure, const std::string& flags) {
  std::string text = "# Found by toolwire explore and shrunk";
  text += flags.empty() ? ".\n" : ", running with" + flags + ".\n";
  text += "# What went wrong:\n";
  for (const auto& p : failure.problems)
    text += "#   " + p + "\n";
  text += "# Rules involved: " + rules_text(failure.spec_ids) + "\n";
  text += "# Triage: " + triage_text(failure) + "\n";
  text += "# Expectations are the clean reference's (the oracle's).\n";
  text += "# Reproduce: toolwire simulate THIS_FILE --seed " + std::to_string(failure.seed) +
          flags + "\n";
  text += "# Judge again as explore did: toolwire explore --judge THIS_FILE --seed " +
          std::to_string(failure.seed) + flags + "\n";
  return text;
}

//! A rate as people read it: "168", or "0.28" for a slow real-clock search (whole numbers
//! showed it as 0 programs/s).
std::string per_second(int programs, double seconds) {
  const double rate = programs / std::max(seconds, 1e-9);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, rate >= 10 ? "%.0f" : rate >= 1 ? "%.1f" : "%.2f", rate);
  return buffer;
}

}  // namespace

explore_command::explore_command(CLI::App& parent) {
  app_ = parent.add_subcommand(
      "explore",
      "Generate random scenario programs (clients with random behaviours, task callers, "
      "actions at random times, model decisions), run each on a target and, in lock-step, "
      "on the clean in-process reference core (the oracle), and compare what both showed: "
      "statuses, error types, each client's, call's and turn's events, the tool results the "
      "model received, and the tasks. The trace invariants (among them TOOLS-3, for the tools "
      "each model step was offered) are checked on the target's trace too. The first divergence is "
      "shrunk against the target, re-run to tell a "
      "deterministic one from an intermittent one, and written to --out as a scenario file "
      "whose expectations come from the oracle.");
  app_->footer(R"(
Examples:
  toolwire explore --programs 10000 --seed 1
  toolwire explore --fault double_result_accepted --out toolwire-reports/explore
  toolwire explore --bundled --programs 2000 --jobs 2
  toolwire explore --target acme.json --time-budget 5m
  toolwire explore --shard 2/4 --programs 100000 --time-budget 20m --json shard2.json

Without --target or --bundled the target is the in-process core (with --fault, a faulty
one). Against a profile, programs are timed for its timeouts. Over HTTP a divergence is run
again at once before it counts (it may be a race with a deadline, or an arrival later than
the settle time); those that do not repeat are named in the summary.
Exit codes: 0 no divergence in the programs run; 1 a divergence (shrunk, written to --out,
with the command that reproduces it); 2 bad usage, a target that cannot be used, a
target that stopped answering (a program whose request went unanswered runs again; a
second unanswered run stops the search), or no program ran.
Shards: toolwire report merge shard*.json joins the --json summaries of explore --shard
1/N ... N/N into one (docs/ci.md shows a CI matrix).
Read: docs/explore.md, docs/simulator.md, docs/scenario-language.md, docs/ci.md)");
  app_->add_option("--programs", programs_, "how many programs to generate")
      ->default_val(1'000)
      ->check(CLI::Range(1, 10'000'000));
  app_->add_option("--seed", seed_, "the seed of the generator and of every run")
      ->default_val(1)
      ->check(seed_value);
  app_->add_option("--out", out_, "where a shrunk divergence is written")
      ->default_val("toolwire-reports/explore");
  target_.add_to(*app_, default_target::in_process);
  app_->add_flag("--no-shrink", no_shrink_, "write the first diverging program as found");
  app_->add_option("--shrink-budget", shrink_budget_,
                   "stop shrinking a divergence after this long and write the smallest program "
                   "that diverged by then, e.g. 90s, 20m (on a real clock each smaller program "
                   "takes seconds to judge; --jobs of them are judged at once there)")
      ->capture_default_str();
  app_->add_option("--time-budget", time_budget_,
                   "stop generating after this long, e.g. 90s, 5m, 1500ms; on a real clock a "
                   "program that would end past it is not started (shrinking, up to "
                   "--shrink-budget, and triage of a divergence found in time still run)");
  app_->add_option("--until-coverage", until_coverage_,
                   "stop generating once the reference has reached this percentage of its "
                   "life-cycle points (every move of a call, task, turn or client, and every "
                   "refusal SPEC answers with 409) in the programs judged")
      ->check(CLI::Range(1, 100));
  app_->add_option("--focus", focus_,
                   "lean the search toward a SPEC rule (repeatable): each program is the first "
                   "of up to 8 drawn whose run on the reference reaches a move citing it (a "
                   "rule the life-cycle tables cite, e.g. TASK-7, CALL-6, LIFE-5); the summary "
                   "says how many programs reached one");
  app_->add_option("--jobs", jobs_,
                   "searches at once (at most 64), each a process with its own target and seed "
                   "(--seed, --seed + 1, ...), sharing --programs; the first divergence stops "
                   "them all. A --target runs one search, since its model stand-in is shared: on a "
                   "real clock it runs --jobs programs at once (each in sessions of its own; "
                   "they mostly wait out real time; up to 512, 32 without --jobs), on a virtual "
                   "clock one at a time")
      ->default_val(1)
      ->check(CLI::Range(1, most_programs_at_once));
  app_->add_option("--shard", shard_,
                   "search shard I of N (I/N, 1-based, e.g. 2/4) of one campaign, on a machine "
                   "of its own with no coordination: --programs is the whole campaign's (shard "
                   "I generates its part, programs/N, one more for the first programs%N "
                   "shards), job j of shard I searches with seed --seed + (I-1) + N*j, so no "
                   "two shards share a seed, whatever --jobs each runs; --time-budget is each "
                   "shard's own wall time. Every shard gets the same other flags; toolwire "
                   "report merge joins their --json summaries");
  app_->add_option("--triage", triage_,
                   "re-runs of a divergence, to label it deterministic or intermittent")
      ->default_val(5)
      ->check(CLI::Range(0, 100));
  app_->add_option("--judge", judge_,
                   "judge one scenario file (a written divergence) as the search judges each "
                   "program: on the target, with its clock stops, against the oracle; writes "
                   "both traces to --out; exit 1 when it diverges")
      ->check(CLI::ExistingFile);
  app_->add_option("--json", json_,
                   "write the search's summary here as JSON: the outcome, programs, requests (per "
                   "program: median and p95), time, what the reference covered, and the "
                   "divergence (its problems, rules, triage and the files written) or the error");
  auto* quiet = app_->add_flag("--quiet", quiet_, "no progress: the same as --progress none");
  app_->add_option("--progress", progress_,
                   "'tty' rewrites one line, 'lines' prints one line per 100 programs, 'none' "
                   "nothing; 'auto' is tty on a terminal, else lines")
      ->check(CLI::IsMember({"auto", "tty", "lines", "none"}))
      ->capture_default_str()
      ->excludes(quiet);
}

int explore_command::run() const {
  auto usage = [](const std::string& message) {
    std::cerr << "toolwire explore: " << message << "\n";
    return 2;
  };
  auto chosen = target_.choose();
  if (!chosen) return usage(chosen.error().message);
  const auto& choice = chosen->choice;
  auto shape = shape_for(choice);
  if (!shape) return usage(shape.error().message);
  explore::explore_options options;
  options.programs = programs_;
  options.seed = seed_;
  options.shrink = !no_shrink_;
  options.shape = *shape;
  options.triage_runs = triage_;
  if (choice.in_process()) {
    options.faults = choice.faults();
  } else {
    options.target = [choice]() -> protocol::outcome<std::unique_ptr<explore::program_runner>> {
      return std::unique_ptr<explore::program_runner>(
          std::make_unique<scenario_program_runner>(choice));
    };
  }
  options.shrink_budget = parse_duration(shrink_budget_);
  if (!options.shrink_budget || options.shrink_budget->count() <= 0)
    return usage(
        not_a_duration("--shrink-budget", "a positive number", "90s or 20m", shrink_budget_));
  if (!time_budget_.empty()) {
    options.time_budget = parse_duration(time_budget_);
    if (!options.time_budget)
      return usage(not_a_duration("--time-budget", "a number", "90s or 5m", time_budget_));
  }
  if (until_coverage_ > 0) options.until_coverage_percent = until_coverage_;
  const auto focusable = explore::focusable_rules();
  for (const auto& rule : focus_) {
    if (std::find(focusable.begin(), focusable.end(), rule) == focusable.end()) {
      std::string listed;
      for (const auto& id : focusable)
        listed += (listed.empty() ? "" : ", ") + id;
      return usage("--focus " + rule +
                   ": no move of the reference's life-cycle tables cites it, so no program "
                   "can be steered toward it; these can: " +
                   listed);
    }
  }
  options.focus_rules = focus_;
  if (!judge_.empty()) {
    if (!shard_.empty()) {
      return usage(
          "--shard splits a search; --judge judges one file with the --seed its "
          "reproduce line names");
    }
    return judge_file(options);
  }
  search_plan plan;
  plan.target = chosen->name;
  if (!shard_.empty()) {
    const auto shard = parse_shard(shard_);
    if (!shard)
      return usage("--shard must be I/N with 1 <= I <= N, e.g. 2/4; got '" + shard_ + "'");
    plan.shard = {shard->first, shard->second};
    plan.sharded = true;
  }
  plan.programs = explore::shard_programs(programs_, plan.shard);
  if (plan.programs == 0) {
    return usage("--shard " + shard_ + ": --programs " + std::to_string(programs_) +
                 " leaves this shard no program (each of " + std::to_string(plan.shard.count) +
                 " shards needs one at least)");
  }
  options.programs = plan.programs;
  options.seed = explore::campaign_seed(seed_, plan.shard, 0);
  const std::string progress = quiet_                  ? "none"
                               : progress_ != "auto"   ? progress_
                               : isatty(STDERR_FILENO) ? "tty"
                                                       : "lines";
  // Why one search against a --target: its model stand-in (the one host:port it calls) is
  // shared, and jobs are processes of their own. On a real clock that one search runs
  // --jobs programs at once instead (each run's model requests carry a tag of their own,
  // which the stand-in routes by); a virtual clock is one, moved by one program at a time.
  const auto* profile = choice.profile();
  const int jobs = profile ? 1 : jobs_;
  plan.jobs = jobs;
  if (profile && !profile->virtual_clock) {
    const int at_once = app_->count("--jobs") > 0 ? jobs_ : default_programs_at_once;
    options.programs_at_once = at_once;
    plan.programs_at_once = at_once;
  } else if (jobs_ > most_jobs) {
    return usage("--jobs " + std::to_string(jobs_) + ": at most " + std::to_string(most_jobs) +
                 " searches run as processes; more (up to " +
                 std::to_string(most_programs_at_once) +
                 ") only as programs at once against a --target on a real clock");
  } else if (jobs_ > 1 && profile) {
    std::cerr << "toolwire explore: --jobs " << jobs_
              << " runs one program at a time against --target on a virtual clock: the "
                 "programs would move its one clock\n";
  }
  std::cout << "explore: " << chosen->name << ", "
            << (plan.sharded
                    ? shard_text(plan) + ", up to " + std::to_string(plan.programs) +
                          " of the campaign's " + std::to_string(programs_)
                    : "seed " + std::to_string(seed_) + ", up to " + std::to_string(programs_))
            << " programs" << (options.time_budget ? " within " + time_budget_ : "")
            << (jobs > 1 ? ", " + std::to_string(jobs) + " jobs" : "")
            << (plan.programs_at_once > 1
                    ? ", " + std::to_string(plan.programs_at_once) + " programs at once"
                    : "")
            << "\n"
            << std::flush;
  // Said before the search, not beside a divergence: a divergence of a deadline's timing
  // would otherwise read as the target's, and a search may run for hours before one.
  if (!chosen->timing_caveat.empty()) {
    std::cerr << "toolwire explore: note: " << chosen->timing_caveat << "\n";
  }
  if (jobs > 1) return run_jobs(options, progress, plan);
  double last_shrink_line = -1;
  options.progress = [&](const explore::explore_progress& p) {
    show_progress(p, progress, plan.programs, last_shrink_line);
  };
  const auto result = explore::explore(options);
  if (progress == "tty") std::cerr << "\r\033[K";
  return report(result, options.seed, plan);
}

int explore_command::judge_file(const explore::explore_options& options) const {
  auto program = scenarios::load_file(judge_);
  if (!program) {
    std::cerr << "toolwire explore: " << program.error().message << "\n";
    return 2;
  }
  const auto judged = explore::judge_program(*program, seed_, options);
  if (judged.error) {
    std::cerr << "toolwire explore: the target cannot be used: " << judged.error->message << "\n";
    return 2;
  }
  if (judged.still_racing) {
    std::cerr << "toolwire explore: " << judge_
              << " was not run: " << still_racing_why("the program") << "\n";
    return 2;
  }
  std::error_code ec;
  std::filesystem::create_directories(out_, ec);
  const auto stem = out_ + "/" + std::filesystem::path(judge_).stem().string() + ".judged";
  const auto traces = write_compared_traces(stem, judged.target_trace, judged.oracle_trace);
  if (!traces) return 2;
  if (judged.problems.empty()) {
    std::cout << "explore: " << judge_ << " (seed " << seed_
              << "): no divergence from the reference\n"
              << traces_line(*traces);
    return 0;
  }
  std::cout << "explore: " << judge_ << " (seed " << seed_ << ") diverges:\n";
  for (const auto& p : judged.problems)
    std::cout << "  " << p << "\n";
  std::cout << "  rules involved: " << rules_text(judged.spec_ids) << "\n" << traces_line(*traces);
  return 1;
}

void explore_command::show_progress(const explore::explore_progress& p, const std::string& progress,
                                    int programs, double& last_shrink_line) const {
  if (p.shrinking) {
    const std::string so_far = std::to_string(p.shrink_runs) + " smaller program(s) judged, " +
                               std::to_string(p.shrink_steps) + " still diverged, " +
                               seconds_text(p.seconds);
    if (progress == "tty") {
      std::cerr << "\r\033[Kshrinking the divergence: " << so_far << std::flush;
    } else if (progress == "lines" && last_shrink_line < 0) {
      last_shrink_line = p.seconds;
      std::cerr << "explore: a program diverged; shrinking it (up to " << shrink_budget_
                << "; --no-shrink writes it as found)" << std::endl;
    } else if (progress == "lines" && p.seconds - last_shrink_line >= 10) {
      last_shrink_line = p.seconds;
      std::cerr << "explore: shrinking: " << so_far << std::endl;
    }
    return;
  }
  if (progress == "tty" && p.programs % 10 == 0) {
    std::cerr << "\r\033[K" << p.programs << "/" << programs << " programs, " << p.requests
              << " requests, " << p.divergences << " divergence(s), " << seconds_text(p.seconds)
              << std::flush;
  } else if (progress == "lines" && p.programs % 100 == 0) {
    std::cerr << "explore: " << p.programs << "/" << programs << " programs, " << p.requests
              << " requests, " << seconds_text(p.seconds) << std::endl;
  }
}

namespace {

//! "explore: the reference reached 30 of 34 life-cycle points in these programs; never:
//! task interrupted --interrupt_deadline_passed--> failed (TASK-7), ...": what a clean
//! result looked at. `reached` is index for index with life_cycle_points().
std::vector<std::string> never_reached(const std::vector<bool>& reached) {
  const auto& points = reference_server::life_cycle_points();
  std::vector<std::string> never;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (i >= reached.size() || !reached[i]) never.push_back(points[i].describe());
  }
  return never;
}

void print_coverage(const std::vector<bool>& reached, bool met) {
  const auto& points = reference_server::life_cycle_points();
  const auto never = never_reached(reached);
  std::cout << "explore: the reference reached " << points.size() - never.size() << " of "
            << points.size() << " life-cycle points in these programs"
            << (met ? " (--until-coverage ended the search)" : "");
  for (std::size_t i = 0; i < never.size(); ++i)
    std::cout << (i == 0 ? "; never: " : ", ") << never[i];
  std::cout << "\n";
}

//! The figures of a search, as --json writes them (one job's, or the jobs' added up).
protocol::json figures_json(int programs, std::uint64_t requests, double seconds,
                            const std::vector<bool>& reached) {
  const auto never = never_reached(reached);
  const auto total = reference_server::life_cycle_points().size();
  return {{"programs", programs},
          {"requests", requests},
          {"seconds", seconds},
          {"programs_per_second", programs / std::max(seconds, 1e-9)},
          {"coverage", {{"reached", total - never.size()}, {"total", total}, {"never", never}}}};
}

}  // namespace

bool explore_command::write_json(const protocol::json& summary) const {
  if (json_.empty()) return true;
  std::ofstream out(json_);
  out << summary.dump(2) << "\n";
  if (!out) std::cerr << "toolwire explore: cannot write " << json_ << "\n";
  return static_cast<bool>(out);
}

void explore_command::print_focus(int reaching, int programs, protocol::json& summary) const {
  if (focus_.empty()) return;
  std::string rules;
  for (const auto& rule : focus_)
    rules += (rules.empty() ? "" : ", ") + rule;
  std::cout << "explore: " << reaching << " of " << programs << " programs reached a move citing "
            << rules << " (--focus)\n";
  summary["focus"] = {{"rules", focus_}, {"programs_reaching", reaching}};
}

void explore_command::print_retried(const explore::explore_result& result) const {
  if (result.retried > 0) {
    std::cout << "explore: " << result.retried
              << " divergence(s) did not show again when their program ran again at once "
                 "(the timing of the wire or of a deadline race, or an intermittent target "
                 "bug) and were not counted; the first, in program "
              << result.first_retried_program << ":\n";
    for (const auto& line : result.first_retried)
      std::cout << "    " << line << "\n";
  }
  if (result.left_out_racing > 0) {
    std::cout << "explore: " << result.left_out_racing
              << " program(s) left out unjudged: " << still_racing_why("each")
              << "; the first was program " << result.first_left_out_program << "\n";
  }
  if (result.unanswered_retried > 0) {
    std::cout << "explore: " << result.unanswered_retried
              << " program(s) ran again because the target did not answer a request in their "
                 "first run (not judged there); the first, in program "
              << result.first_unanswered_program << ": " << result.first_unanswered << "\n";
  }
}

std::string explore_command::shard_text(const search_plan& plan) const {
  if (!plan.sharded) return "";
  std::string text = "shard " + std::to_string(plan.shard.index) + "/" +
                     std::to_string(plan.shard.count) + ", seed" + (plan.jobs > 1 ? "s " : " ");
  for (int job = 0; job < plan.jobs; ++job)
    text += (job == 0 ? "" : ", ") + std::to_string(explore::campaign_seed(seed_, plan.shard, job));
  return text;
}

void explore_command::describe_plan(const search_plan& plan, protocol::json& summary) const {
  summary["toolwire_explore"] = 1;
  summary["target"] = plan.target;
  summary["seed"] = explore::campaign_seed(seed_, plan.shard, 0);
  auto seeds = protocol::json::array();
  for (int job = 0; job < plan.jobs; ++job)
    seeds.push_back(explore::campaign_seed(seed_, plan.shard, job));
  summary["seeds"] = seeds;
  summary["programs_at_once"] = plan.programs_at_once;
  // Why the campaign's flags: `toolwire report merge` refuses shards of different campaigns.
  if (plan.sharded) {
    summary["shard"] = {{"index", plan.shard.index},
                        {"count", plan.shard.count},
                        {"base_seed", seed_},
                        {"campaign_programs", programs_},
                        {"programs_budget", plan.programs},
                        {"time_budget", time_budget_}};
  }
}

int explore_command::report(const explore::explore_result& result, std::uint64_t seed,
                            const search_plan& plan) const {
  protocol::json summary =
      figures_json(result.programs_run, result.requests, result.seconds, result.reached);
  describe_plan(plan, summary);
  summary["seed"] = seed;
  summary["requests_per_program"] = {{"median", result.requests_median},
                                     {"p95", result.requests_p95}};
  summary["out_of_time"] = result.out_of_time;
  summary["until_coverage_met"] = result.coverage_met;
  summary["retried"] = {{"divergences", result.retried},
                        {"first", result.first_retried},
                        {"first_program", result.first_retried_program}};
  summary["left_out_racing"] = {{"programs", result.left_out_racing},
                                {"first_program", result.first_left_out_program}};
  summary["unanswered_retried"] = {{"programs", result.unanswered_retried},
                                   {"first", result.first_unanswered},
                                   {"first_program", result.first_unanswered_program}};
  if (result.error) {
    std::cerr << "toolwire explore: the target cannot be used: " << result.error->message << "\n";
    if (plan.programs_at_once > 1) {
      std::cerr << "toolwire explore: " << plan.programs_at_once
                << " programs ran at once against it; a lower --jobs asks less of it\n";
    }
    summary["outcome"] = "error";
    summary["error"] = result.error->message;
    write_json(summary);
    return 2;
  }
  // "30 programs, 460 requests (per program: median 12, p95 40), 9.2 s (3 programs/s)";
  // what was found leads the line.
  const std::string line =
      std::to_string(result.programs_run) + " programs, " + std::to_string(result.requests) +
      " requests (per program: median " + std::to_string(result.requests_median) + ", p95 " +
      std::to_string(result.requests_p95) + "), " + seconds_text(result.seconds) + " (" +
      per_second(result.programs_run, result.seconds) + " programs/s)";
  print_retried(result);
  if (!result.failure) {
    if (result.programs_run == 0) {
      std::cerr << "toolwire explore: nothing was checked: no program ran\n";
      summary["outcome"] = "nothing_checked";
      write_json(summary);
      return 2;
    }
    print_coverage(result.reached, result.coverage_met);
    print_focus(result.focused_programs, result.programs_run, summary);
    std::cout << "explore: no divergence in " << line;
    if (result.out_of_time) std::cout << "; the time budget ended the search";
    if (plan.sharded) std::cout << " (" << shard_text(plan) << ")";
    std::cout << "\n";
    summary["outcome"] = "no_divergence";
    return write_json(summary) ? 0 : 2;
  }
  const auto& failure = *result.failure;
  std::error_code ec;
  std::filesystem::create_directories(out_, ec);
  const std::string path = out_ + "/explore-seed" + std::to_string(seed) + ".yaml";
  const std::string flags = target_.as_flags();
  std::ofstream file(path);
  file << file_header(failure, flags) << scenarios::to_yaml(failure.program);
  if (!file) {
    std::cerr << "toolwire explore: cannot write " << path << "\n";
    return 2;
  }
  // Beside it, what was compared: the diverging run on the target and the oracle's run.
  const auto traces = write_compared_traces(out_ + "/explore-seed" + std::to_string(seed),
                                            failure.target_trace, failure.oracle_trace);
  if (!traces) return 2;
  std::cout << "explore: program " << result.programs_run << " diverged; shrunk in "
            << failure.shrink_steps << " step(s) (" << failure.shrink_runs
            << " smaller program(s) judged) to " << failure.program.clients.size() << " client(s), "
            << failure.program.task_callers.size() << " task caller(s) and "
            << failure.program.steps.size() << " step(s)\n";
  if (failure.shrink_out_of_time) {
    std::cout << "  shrinking stopped at --shrink-budget " << shrink_budget_
              << ": this is the smallest program that diverged by then (a longer budget may "
                 "find a smaller one)\n";
  }
  for (const auto& p : failure.problems)
    std::cout << "  " << p << "\n";
  std::cout << "  rules involved: " << rules_text(failure.spec_ids) << "\n"
            << "  triage: " << triage_text(failure) << "\n"
            << "  the written scenario " << (failure.fails_on_target ? "fails" : "DOES NOT fail")
            << " on the target and " << (failure.passes_on_oracle ? "passes" : "DOES NOT pass")
            << " on the reference\n"
            << "written: " << path << "\n"
            << traces_line(*traces) << "reproduce: toolwire simulate " << path << " --seed "
            << failure.seed << flags << "\n"
            << "judge again: toolwire explore --judge " << path << " --seed " << failure.seed
            << flags << "\n";
  print_coverage(result.reached, false);
  std::cout << "explore: 1 divergence in " << line
            << (plan.sharded ? " (" + shard_text(plan) + ")" : "") << std::endl;
  summary["outcome"] = "divergence";
  summary["divergence"] = {{"program", result.programs_run},
                           {"problems", failure.problems},
                           {"rules", failure.spec_ids},
                           {"shrink_runs", failure.shrink_runs},
                           {"shrink_steps", failure.shrink_steps},
                           {"shrink_out_of_time", failure.shrink_out_of_time},
                           {"triage",
                            {{"label", failure.label()},
                             {"runs", failure.triage_runs},
                             {"failures", failure.triage_failures}}},
                           {"written", path},
                           {"traces", *traces},
                           {"fails_on_target", failure.fails_on_target},
                           {"passes_on_oracle", failure.passes_on_oracle},
                           {"seed", failure.seed},
                           {"reproduce", "toolwire simulate " + path + " --seed " +
                                             std::to_string(failure.seed) + flags}};
  return write_json(summary) ? 1 : 2;
}

namespace {

//! What the job processes of one search share (an anonymous shared mapping).
struct shared_search {
  static constexpr int max_jobs = most_jobs;
  std::atomic<int> claimed_by{-1};  // the job that found the divergence
  std::atomic<int> programs[max_jobs];
  std::atomic<std::uint64_t> requests[max_jobs];
  //! The life-cycle points any job's reference reached (coverage), index for index.
  static constexpr std::size_t max_points = 256;
  std::atomic<bool> reached[max_points];
  std::atomic<int> focused[max_jobs];  // --focus: each job's programs reaching a focused rule
  //! The claiming job's shrinking (only it shrinks): explore_progress's fields.
  std::atomic<bool> shrinking{false};
  std::atomic<int> shrink_runs{0}, shrink_steps{0};

  //! The jobs' programs and requests so far, added up, and the time since `started`.
  explore::explore_progress total(int jobs, std::chrono::steady_clock::time_point started) const {
    explore::explore_progress sum;
    for (int job = 0; job < jobs; ++job) {
      sum.programs += programs[job];
      sum.requests += requests[job];
    }
    sum.divergences = claimed_by >= 0 ? 1 : 0;
    sum.shrinking = shrinking;
    sum.shrink_runs = shrink_runs;
    sum.shrink_steps = shrink_steps;
    sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return sum;
  }
};

}  // namespace

// Why processes: RapidCheck keeps its generation state in process-wide globals, so two
// threads cannot generate at once; each job is a forked process with its own RapidCheck,
// its own target (the bundled server: its own server) and seed --seed + job. The first
// job to find a divergence claims it and reports it; the others stop.
int explore_command::run_jobs(explore::explore_options options, const std::string& progress,
                              const search_plan& plan) const {
  void* memory = mmap(nullptr, sizeof(shared_search), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    std::cerr << "toolwire explore: cannot share memory between jobs\n";
    return 2;
  }
  auto* shared = new (memory) shared_search();
  // A job that finds a divergence or an error writes --json itself (it alone knows it);
  // the search then adds the other jobs' figures. An old file would pass for its.
  if (!json_.empty()) std::filesystem::remove(json_);
  const auto started = std::chrono::steady_clock::now();
  std::vector<pid_t> children;
  const int share = (plan.programs + jobs_ - 1) / jobs_;
  for (int job = 0; job < jobs_; ++job) {
    const pid_t pid = fork();
    if (pid < 0) {
      std::cerr << "toolwire explore: cannot start job " << job + 1 << "\n";
      break;
    }
    if (pid > 0) {
      children.push_back(pid);
      continue;
    }
    options.seed = explore::campaign_seed(seed_, plan.shard, job);
    options.programs = std::max(1, std::min(share, plan.programs - job * share));
    options.progress = [shared, job](const explore::explore_progress& p) {
      shared->programs[job] = p.programs;
      shared->requests[job] = p.requests;
      if (p.shrinking) {
        shared->shrink_runs = p.shrink_runs;
        shared->shrink_steps = p.shrink_steps;
        shared->shrinking = true;
      }
    };
    options.stopped_elsewhere = [shared] { return shared->claimed_by >= 0; };
    options.claim_divergence = [shared, job] {
      int none = -1;
      return shared->claimed_by.compare_exchange_strong(none, job);
    };
    const auto result = explore::explore(options);
    shared->focused[job] = result.focused_programs;
    for (std::size_t i = 0; i < result.reached.size() && i < shared_search::max_points; ++i) {
      if (result.reached[i]) shared->reached[i] = true;
    }
    if (result.failure || result.error) std::_Exit(report(result, options.seed, plan));
    print_retried(result);
    std::cout << std::flush;
    std::_Exit(0);
  }
  int worst = 0;
  int broken = 0;  // jobs that died or failed to run: their share was not searched
  std::size_t running = children.size();
  int last_hundreds = 0;
  double last_shrink_line = -1;
  while (running > 0) {
    int status = 0;
    const pid_t done = waitpid(-1, &status, WNOHANG);
    if (done > 0) {
      --running;
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 2;
      if (code != 0 && code != 1) ++broken;
      worst = code == 1 || worst == 1 ? 1 : std::max(worst, code);
      continue;
    }
    auto now = shared->total(jobs_, started);
    if (now.shrinking) {
      show_progress(now, progress, plan.programs, last_shrink_line);
    } else if (progress == "tty") {
      now.programs -= now.programs % 10;
      show_progress(now, progress, plan.programs, last_shrink_line);
    } else if (progress == "lines" && now.programs / 100 > last_hundreds) {
      last_hundreds = now.programs / 100;
      now.programs = last_hundreds * 100;
      show_progress(now, progress, plan.programs, last_shrink_line);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (progress == "tty") std::cerr << "\r\033[K";
  const auto total = shared->total(jobs_, started);
  const int programs = total.programs;
  const std::uint64_t requests = total.requests;
  const double seconds = total.seconds;
  std::vector<bool> reached(shared_search::max_points);
  for (std::size_t i = 0; i < reached.size(); ++i)
    reached[i] = shared->reached[i];
  int focused = 0;
  for (int job = 0; job < jobs_; ++job)
    focused += shared->focused[job];
  munmap(memory, sizeof(shared_search));
  if (worst == 0 && programs == 0) {
    std::cerr << "toolwire explore: nothing was checked: no program ran\n";
    return 2;
  }
  // Why apart: a job that died searched only part of its share, so "no divergence"
  // would claim a search that did not happen.
  const std::string found = worst == 1   ? "1 divergence"
                            : broken > 0 ? std::to_string(broken) + " job(s) failed"
                                         : "no divergence";
  print_coverage(reached, false);
  protocol::json focus_summary = protocol::json::object();
  print_focus(focused, programs, focus_summary);
  std::cout << "explore: " << jobs_ << " jobs: " << programs << " programs, " << requests
            << " requests, " << found << ", " << seconds_text(seconds) << " ("
            << per_second(programs, seconds) << " programs/s)"
            << (plan.sharded ? "; " + shard_text(plan) : "") << "\n";
  if (worst == 0) std::cout << "explore: no divergence in " << programs << " programs\n";
  if (json_.empty()) return worst;
  protocol::json summary = protocol::json::object();
  if (std::ifstream written{json_}) {
    summary = protocol::json::parse(written, nullptr, /*allow_exceptions=*/false);
    if (!summary.is_object()) summary = protocol::json::object();
  }
  summary.update(figures_json(programs, requests, seconds, reached));
  describe_plan(plan, summary);
  summary["jobs"] = jobs_;
  summary.update(focus_summary);
  // Why left out: these are one job's own figures (the jobs do not share them), and the
  // summary's others are the search's.
  for (const char* one_jobs :
       {"requests_per_program", "retried", "unanswered_retried", "left_out_racing"})
    summary.erase(one_jobs);
  if (!summary.contains("outcome")) {
    summary["outcome"] = worst == 0 ? "no_divergence" : broken > 0 ? "jobs_failed" : "error";
  }
  return write_json(summary) ? worst : 2;
}

}  // namespace toolwire::cli
