// The scripted scenario library (scenarios/library/): every file loads, names what it is
// about, passes on the clean reference core under many seeds, and is broken by at least
// one of the reference server's injectable faults — a scenario no defect can fail would
// check nothing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "toolwire/actors/expectations.hpp"
#include "toolwire/actors/invariants.hpp"
#include "toolwire/actors/simulator.hpp"
#include "toolwire/reference_server/faults.hpp"
#include "toolwire/scenarios/loader.hpp"

namespace {

namespace fs = std::filesystem;
using toolwire::scenarios::scenario;

const std::string library_dir = std::string(TOOLWIRE_SCENARIOS_DIR) + "/library";

//! The library's scenario files, sorted so that failures always come in the same order.
std::vector<std::string> library_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(library_dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string file_name(const std::string& path) {
  return fs::path(path).filename().string();
}

scenario load(const std::string& path) {
  auto loaded = toolwire::scenarios::load_file(path);
  INFO(path << ": " << (loaded ? std::string() : loaded.error().message));
  REQUIRE(loaded);
  return *loaded;
}

//! Runs `plan` with `seed` and checks the invariants and the expectations, as
//! `toolwire simulate` does. Empty when the run passed; otherwise what went wrong.
std::vector<std::string> problems_of_run(const scenario& plan, std::uint64_t seed,
                                         const std::string& source) {
  toolwire::actors::run_options options;
  options.seed = seed;
  options.source = source;
  auto result = toolwire::actors::simulate(plan, options);
  if (!result) return {"the scenario could not run: " + result.error().message};
  std::vector<std::string> problems;
  if (result->hit_step_limit) problems.push_back("the run stopped at the step limit");
  for (const auto& v : toolwire::actors::check_invariants(result->trace)) {
    problems.push_back(toolwire::actors::describe(v));
  }
  const auto report = toolwire::actors::check_expectations(plan, result->trace);
  for (const auto& r : report.results) {
    if (!r.passed) problems.push_back(toolwire::actors::describe(r, plan));
  }
  for (const auto& e : report.step_errors)
    problems.push_back(e);
  return problems;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines)
    text += "\n  " + line;
  return text;
}

}  // namespace

TEST_CASE("the scenario library holds at least 25 files, each with a purpose and SPEC IDs",
          "[scenarios][library]") {
  const auto files = library_files();
  CHECK(files.size() >= 25);
  for (const auto& path : files) {
    INFO(file_name(path));
    const scenario plan = load(path);
    CHECK_FALSE(plan.purpose.empty());
    CHECK_FALSE(plan.spec_ids.empty());
    CHECK_FALSE(plan.steps.empty());
    // Every expectation cites a SPEC ID (the loader insists); a library scenario has some.
    const bool expects = std::any_of(plan.steps.begin(), plan.steps.end(),
                                     [](const auto& step) { return !step.expect.empty(); });
    CHECK(expects);
  }
}

TEST_CASE("every library scenario passes on the reference core under seeds 1..100",
          "[scenarios][library]") {
  for (const auto& path : library_files()) {
    const scenario plan = load(path);
    std::uint64_t failed_seeds = 0;
    std::string first_failure;
    for (std::uint64_t seed = 1; seed <= 100; ++seed) {
      const auto problems = problems_of_run(plan, seed, path);
      if (problems.empty()) continue;
      if (failed_seeds++ == 0) {
        first_failure = "seed " + std::to_string(seed) + ":" + joined(problems) +
                        "\n  reproduce: toolwire simulate " + path + " --seed " +
                        std::to_string(seed);
      }
    }
    INFO(file_name(path) << ": " << failed_seeds << " of 100 seeds failed; first "
                         << first_failure);
    CHECK(failed_seeds == 0);
  }
}

TEST_CASE("every library scenario fails against at least one reference fault (seed 1)",
          "[scenarios][library][faults]") {
  for (const auto& path : library_files()) {
    const scenario clean = load(path);
    std::vector<std::string> breaking;
    for (const auto& info : toolwire::reference_server::all_faults()) {
      scenario planted = clean;
      planted.faults = {info.id};
      if (!problems_of_run(planted, 1, path).empty()) breaking.emplace_back(info.name);
    }
    INFO(file_name(path) << " passes against every fault of toolwire serve --list-faults");
    CHECK_FALSE(breaking.empty());
  }
}
