// `toolwire explore`.
#include "explore_command.hpp"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "suggest.hpp"
#include "toolwire/scenarios/explore.hpp"
#include "toolwire/scenarios/loader.hpp"

namespace toolwire::cli {

namespace {

std::string file_header(const scenarios::explore_failure& failure,
                        const std::vector<std::string>& faults) {
  std::string text = "# Found by toolwire explore and shrunk";
  std::string flags;
  for (const auto& f : faults)
    flags += " --fault " + f;
  text += flags.empty() ? ".\n" : " against" + flags + ".\n";
  text += "# What went wrong:\n";
  for (const auto& p : failure.problems)
    text += "#   " + p + "\n";
  text += "# Reproduce: toolwire simulate THIS_FILE --seed " + std::to_string(failure.seed) +
          flags + "\n";
  return text;
}

}  // namespace

explore_command::explore_command(CLI::App& parent) {
  app_ = parent.add_subcommand(
      "explore",
      "Generate random scenario programs (clients with random behaviours, actions at random "
      "times, model decisions), run each on the simulator and check it with the trace "
      "invariants and, against a --fault, with the clean reference core as the oracle. The "
      "first failure is shrunk and written to --out as a scenario file that reproduces it.");
  app_->footer(R"(
Examples:
  toolwire explore --programs 10000 --seed 1
  toolwire explore --fault double_result_accepted --out toolwire-reports/explore

Exit codes: 0 no program failed; 1 one failed (shrunk and written to --out, with the
command that reproduces it); 2 bad usage.
Read: docs/simulator.md, docs/scenario-language.md)");
  app_->add_option("--programs", programs_, "how many programs to generate")
      ->default_val(1'000)
      ->check(CLI::Range(1, 10'000'000));
  app_->add_option("--seed", seed_, "the seed of the generator and of every run")->default_val(1);
  app_->add_option("--out", out_, "where a shrunk failure is written")
      ->default_val("toolwire-reports/explore");
  app_->add_option("--fault", faults_,
                   "explore a reference core with this fault (repeatable; toolwire serve "
                   "--list-faults lists them)");
  app_->add_flag("--no-shrink", no_shrink_, "write the first failing program as found");
}

int explore_command::run() const {
  scenarios::explore_options options;
  options.programs = programs_;
  options.seed = seed_;
  options.shrink = !no_shrink_;
  for (const auto& name : faults_) {
    auto f = reference::parse_fault(name);
    if (!f) {
      std::cerr << "toolwire explore: " << unknown_fault_message(name) << "\n";
      return 2;
    }
    options.faults.insert(*f);
  }
  const bool tty = isatty(STDERR_FILENO);
  options.progress = [&](int done) {
    if (tty && done % 100 == 0) std::cerr << "\r\033[K" << done << " programs" << std::flush;
  };
  const auto started = std::chrono::steady_clock::now();
  const auto result = scenarios::explore(options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (tty) std::cerr << "\r\033[K";
  if (!result.failure) {
    std::cout << "explore: " << result.programs_run << " programs, no failure ("
              << static_cast<int>(result.programs_run / std::max(seconds, 1e-9))
              << " programs/s)\n";
    return 0;
  }
  const auto& failure = *result.failure;
  std::filesystem::create_directories(out_);
  const std::string path = out_ + "/explore-seed" + std::to_string(seed_) + ".yaml";
  std::ofstream(path) << file_header(failure, faults_) << scenarios::to_yaml(failure.program);
  std::cout << "explore: program " << result.programs_run << " failed; shrunk in "
            << failure.shrink_runs << " runs to " << failure.program.clients.size()
            << " client(s) and " << failure.program.steps.size() << " step(s) ("
            << static_cast<int>(seconds * 1000) << " ms in all)\n";
  for (const auto& p : failure.problems)
    std::cout << "  " << p << "\n";
  std::cout << "written: " << path << "\nreproduce: toolwire simulate " << path << " --seed "
            << failure.seed;
  for (const auto& f : faults_)
    std::cout << " --fault " << f;
  std::cout << "\n";
  return 1;
}

}  // namespace toolwire::cli
