// Simulator determinism: library scenarios with one kind of trouble each replay byte for
// byte; seeds explore interleavings.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>

#include "actors/actor_test_support.hpp"

using namespace toolwire::actor_test;

namespace {

// 200 seeds for each of the 8 scenarios, each run twice: 3,200 runs. Measured on the shared
// 2-core test machine: about a fifth more CPU than the 7 C++ scenarios they replaced (-O2:
// 4.4 s against 3.6 s; the unoptimised build took 14-18 s for those).
constexpr std::uint64_t seeds_per_scenario = 200;

//! What a user of the scenario sees in the end: how each turn ended (its output or
//! reason) and the last status each task caller read.
std::string outcome_of(const trace& run) {
  json outcome = json::array();
  for (const auto& r : records(run, "target", "event")) {
    const std::string type = r.data.value("type", "");
    if (type == "turn_completed" || type == "turn_failed") outcome.push_back(r.data["data"]);
  }
  std::map<std::string, std::string> last_status;  // task path -> status
  for (const auto& r : records(run, "", "response")) {
    const std::string path = r.data.value("path", "");
    if (r.data.value("method", "") == "GET" && path.rfind("/api/tasks/", 0) == 0) {
      last_status[path] = r.data["body"].value("status", "");
    }
  }
  outcome.push_back(last_status);
  return outcome.dump();
}

}  // namespace

TEST_CASE("Library scenarios replay identically and seeds explore interleavings",
          "[actors][determinism]") {
  const std::string name = GENERATE(from_range(trouble_scenarios));
  CAPTURE(name);
  const auto plan = library_scenario(name);

  std::set<std::string> distinct;                   // record hashes over all seeds
  std::set<std::string> outcomes;                   // outcome_of over all seeds
  std::map<std::uint64_t, std::string> mismatched;  // seed -> "hash vs hash"
  std::map<std::uint64_t, std::string> violated;    // seed -> invariant violations
  for (std::uint64_t seed = 0; seed < seeds_per_scenario; ++seed) {
    const auto first = run(plan, seed);
    const auto second = run(plan, seed);
    const std::string first_hash = first.trace.hash();
    const std::string second_hash = second.trace.hash();
    if (first_hash != second_hash) mismatched[seed] = first_hash + " vs " + second_hash;
    const auto violations = toolwire::actors::check_invariants(first.trace);
    if (!violations.empty()) violated[seed] = describe_all(violations);
    distinct.insert(records_hash(first.trace));
    outcomes.insert(outcome_of(first.trace));
  }

  // No SECTIONs: Catch would re-run the 400 simulations once per section.
  {
    INFO("same seed, same trace, byte for byte; seeds whose two runs differ: "
         << json(mismatched).dump());
    CHECK(mismatched.empty());
  }
  {
    INFO("the reference core breaks no invariant under any interleaving; violations: "
         << json(violated).dump());
    CHECK(violated.empty());
  }
  {
    // Every one has concurrent actors (director, clients or callers, target, model).
    // Measured: 16 (task_three_rounds) to 200 (two_clients_one_vanishes) of 200.
    INFO("different seeds reach different interleavings; distinct traces: " << distinct.size());
    CHECK(distinct.size() >= 2);
  }
  {
    INFO("interleavings differ, the outcome does not: " << json(outcomes).dump());
    CHECK(outcomes.size() == 1);
  }
}

TEST_CASE("A trace's header is enough to replay the run", "[actors][determinism]") {
  const std::string name = GENERATE(from_range(trouble_scenarios));
  CAPTURE(name);
  const auto plan = library_scenario(name);
  const auto original = run(plan, 4242);
  const json& header = original.trace.header();
  CHECK(header["scenario"] == name);
  CHECK(header["seed"] == 4242);
  CHECK(header["source"] == "test:" + name);

  const auto replay_plan = library_scenario(header["scenario"].get<std::string>());
  const auto replayed = run(replay_plan, header["seed"].get<std::uint64_t>());
  CHECK(replayed.trace.hash() == original.trace.hash());
}

TEST_CASE("A run without recording takes the same steps as a recorded one",
          "[actors][determinism]") {
  // Benchmarks run unrecorded: they must measure the very interleaving a trace shows.
  const std::string name = GENERATE(from_range(trouble_scenarios));
  CAPTURE(name);
  const auto plan = library_scenario(name);
  for (std::uint64_t seed : {0, 1, 17}) {
    CAPTURE(seed);
    const auto recorded = run(plan, seed);
    toolwire::actors::run_options options;
    options.seed = seed;
    options.record = false;
    const auto bare = toolwire::actors::simulate(plan, options);
    REQUIRE(bare);
    CHECK(bare->trace.records().empty());
    CHECK(bare->steps == recorded.steps);
    CHECK(bare->choices == recorded.choices);
    CHECK(bare->simulated_ms == recorded.simulated_ms);
  }
}

TEST_CASE("A malformed model script is an error naming the scenario, not a run",
          "[actors][determinism]") {
  scenario s;
  s.name = "bad_script";
  s.model_script = {
      {"rules", json::array({{{"match", ""}, {"steps", json::array({json::object()})}}})}};
  toolwire::actors::run_options options;
  const auto result = toolwire::actors::simulate(s, options);
  REQUIRE_FALSE(result);
  CHECK_THAT(result.error().message, Catch::Matchers::StartsWith("bad_script model script"));
}
