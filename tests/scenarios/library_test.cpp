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
#include "toolwire/reference_server/core.hpp"
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

namespace {

//! Which life-cycle points (reference_server::life_cycle_points) `plan` reaches in-process.
std::vector<bool> reached_by(const scenario& plan) {
  toolwire::actors::run_options options;
  options.seed = 1;
  auto result = toolwire::actors::simulate(plan, options);
  REQUIRE(result);
  return result->life_cycle_reached;
}

bool reaches(const std::vector<bool>& reached, const std::string& point) {
  const auto& points = toolwire::reference_server::life_cycle_points();
  for (std::size_t i = 0; i < points.size() && i < reached.size(); ++i) {
    if (points[i].describe() == point) return reached[i];
  }
  FAIL("no life-cycle point " << point);
  return false;
}

}  // namespace

TEST_CASE("A run reports the life-cycle points its reference core reached", "[library][coverage]") {
  const auto timeout = reached_by(load(library_dir + "/task_interrupt_timeout.yaml"));
  CHECK(reaches(timeout, "task interrupted --interrupt_deadline_passed--> failed (TASK-7)"));
  CHECK_FALSE(reaches(timeout, "client live --deleted--> left (LIFE-1)"));
  const auto double_result = reached_by(load(library_dir + "/double_result.yaml"));
  CHECK(reaches(double_result, "call completed --result_posted--> refused (CALL-6)"));
  CHECK_FALSE(
      reaches(double_result, "task interrupted --interrupt_deadline_passed--> failed (TASK-7)"));
}

TEST_CASE("The library reaches every life-cycle point but those it names", "[library][coverage]") {
  const auto& points = toolwire::reference_server::life_cycle_points();
  std::vector<bool> reached(points.size());
  for (const auto& file : library_files()) {
    const auto one = reached_by(load(file));
    REQUIRE(one.size() == points.size());
    for (std::size_t i = 0; i < one.size(); ++i)
      reached[i] = reached[i] || one[i];
  }
  // What no library scenario plays (the catalog's cases do: a model that fails, a turn or
  // task past max_model_steps; and a client gone before it acked a call). A scenario added
  // for one of these removes it here.
  const std::vector<std::string> not_in_library = {
      "call dispatched --client_gone--> failed (LIFE-5)",
      "task processing --model_failed--> failed (MODEL-4)",
      "task processing --step_limit_reached--> failed (TASK-3)",
      "turn started --step_limit_reached--> failed (SES-4)",
      "turn settled --step_limit_reached--> failed (SES-4)",
      "turn awaiting_model --model_failed--> failed (MODEL-4)",
  };
  std::vector<std::string> never;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!reached[i]) never.push_back(points[i].describe());
  }
  CHECK(never == not_in_library);
}
