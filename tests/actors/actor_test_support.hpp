// Shared helpers of the simulator tests: small scenarios, library scenarios, runs, and
// queries over traces.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "toolwire/actors/invariants.hpp"
#include "toolwire/actors/simulator.hpp"
#include "toolwire/actors/trace.hpp"
#include "toolwire/scenarios/builders.hpp"
#include "toolwire/scenarios/loader.hpp"
#include "toolwire/scenarios/scenario.hpp"

namespace toolwire::actor_test {

using actors::trace;
using actors::trace_record;
using protocol::json;
using protocol::time_ms;
using scenarios::client_spec;
using scenarios::scenario;

//! Target time at virtual 0 (run_context's default epoch): `expires_at_ms` is relative to it.
inline constexpr time_ms epoch_ms = 1'700'000'000'000;

using namespace scenarios::build;

//! scenarios/library/NAME.yaml, loaded as `toolwire simulate library:NAME` loads it; the
//! test fails with the loader's message when it does not load.
inline scenario library_scenario(const std::string& name) {
  const std::string path = std::string(TOOLWIRE_SCENARIOS_DIR) + "/library/" + name + ".yaml";
  auto loaded = scenarios::load_file(path);
  if (!loaded) FAIL("library_scenario(" << name << "): " << loaded.error().message);
  return std::move(*loaded);
}

//! Library scenarios with one kind of trouble each, for the tests that sweep seeds or
//! check every run: a tab that vanishes mid-call, parallel calls to two clients of which
//! one vanishes, colliding registrations, a navigating tab, a client that never acks, one
//! that answers twice, a client that leaves by DELETE mid-call, a task of three rounds.
inline const std::vector<std::string> trouble_scenarios = {
    "tab_closes_mid_call",    "two_clients_one_vanishes", "same_instant_registrations",
    "navigating_tab_screens", "no_ack_timeout",           "duplicating_client",
    "tab_deleted_mid_call",   "task_three_rounds"};

//! Runs `plan` with `seed`; the run must succeed and stay within its step bound.
inline actors::run_result run(const scenario& plan, std::uint64_t seed = 1) {
  actors::run_options options;
  options.seed = seed;
  options.source = "test:" + plan.name;
  auto result = actors::simulate(plan, options);
  if (!result) FAIL("simulate(" << plan.name << ") failed: " << result.error().message);
  REQUIRE_FALSE(result->hit_step_limit);
  return std::move(*result);
}

//! Every violation, one per line, for INFO.
inline std::string describe_all(const std::vector<actors::violation>& violations) {
  std::string text;
  for (const auto& v : violations)
    text += actors::describe(v) + "\n";
  return text;
}

//! Records of `actor` (any actor when empty) and `kind`, in trace order.
inline std::vector<trace_record> records(const trace& run, const std::string& actor,
                                         const std::string& kind) {
  std::vector<trace_record> found;
  for (const auto& r : run.records()) {
    if ((actor.empty() || r.actor == actor) && r.kind == kind) found.push_back(r);
  }
  return found;
}

//! The target's session events of one type, in emission order.
inline std::vector<trace_record> events(const trace& run, const std::string& type) {
  std::vector<trace_record> found;
  for (const auto& r : records(run, "target", "event")) {
    if (r.data.value("type", "") == type) found.push_back(r);
  }
  return found;
}

//! The target's model steps of turns (owner "turn") or tasks (owner "task").
inline std::vector<trace_record> model_steps(const trace& run, const std::string& owner = "turn") {
  std::vector<trace_record> found;
  for (const auto& r : records(run, "target", "model_step")) {
    if (r.data.value("owner", "") == owner) found.push_back(r);
  }
  return found;
}

inline bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

//! `kind` records ("request" or "response") of `actor` whose method matches and whose path
//! ends with `path_suffix`.
inline std::vector<trace_record> exchanges(const trace& run, const std::string& actor,
                                           const std::string& kind, const std::string& method,
                                           const std::string& path_suffix) {
  std::vector<trace_record> found;
  for (const auto& r : records(run, actor, kind)) {
    if (r.data.value("method", "") == method && ends_with(r.data.value("path", ""), path_suffix)) {
      found.push_back(r);
    }
  }
  return found;
}

//! The client id the target assigned to `actor` (from its 201 registration response).
inline std::string client_id_of(const trace& run, const std::string& actor) {
  for (const auto& r : exchanges(run, actor, "response", "POST", "/clients")) {
    if (r.data.value("status", 0) == 201) return r.data["body"].value("client_id", "");
  }
  FAIL("no 201 registration response for " << actor);
  return "";
}

//! Offered tool names of a model step, sorted.
inline std::vector<std::string> offered(const trace_record& step) {
  std::vector<std::string> names;
  for (const auto& name : step.data["offered"])
    names.push_back(name.get<std::string>());
  std::sort(names.begin(), names.end());
  return names;
}

//! The trace's records alone, without the header that names the seed: what a user
//! compares to tell two interleavings apart.
inline std::string records_hash(const trace& run) {
  std::string text;
  for (const auto& r : run.records())
    text += trace::line_of(r) + "\n";
  return actors::fnv1a_hex(text);
}

}  // namespace toolwire::actor_test
