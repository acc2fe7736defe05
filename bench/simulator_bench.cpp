// Benchmark: how fast the deterministic simulator explores seeds and covers simulated time.
//
// Figure 1: scenario-seed runs per second on one thread for a small "10-step" scenario
// (ten protocol requests: a session, two clients that each open a stream and register,
// one message whose turn makes two parallel calls, two acks and two results; the director
// also opens its own event stream, an 11th request every run makes), with the
// trace recorded and without (run_options.record = false). Each run is a whole
// `actors::simulate` call: actor system, target, actors, the run and the settle-out.
//
// Figure 2: simulated seconds per wall second (and scheduler steps per second) for a TTL-
// and deadline-heavy hour: 50 browser tabs (ttl 60 s) pinging every 20 s, plus turns that
// call two tabs in parallel every ten minutes.
//
// Before timing, one recorded run of each scenario is checked (invariants clean, requests
// answered as the scenario means), so the figures measure runs that did the work.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <time.h>

#include "bench_args.hpp"
#include "toolwire/actors/invariants.hpp"
#include "toolwire/actors/simulator.hpp"
#include "toolwire/protocol/events.hpp"
#include "toolwire/scenarios/builders.hpp"
#include "toolwire/scenarios/scenario.hpp"

namespace bench = toolwire::bench;

namespace {

namespace actors = toolwire::actors;
namespace scenarios = toolwire::scenarios;
using actors::json;
using actors::time_ms;
using steady = std::chrono::steady_clock;

constexpr double runs_goal = 2'000;         // runs per second per core
constexpr double simulated_goal = 100'000;  // simulated seconds per wall second
constexpr std::size_t small_requests = 10;  // what "10-step" counts
constexpr int hour_tabs = 50;
constexpr time_ms hour_ms = 3'600'000;

struct options {
  std::uint64_t seeds = 5'000;   // runs of the 10-step scenario, per trace setting
  std::uint64_t hour_runs = 10;  // runs (seeds) of the simulated hour, per trace setting
};

void usage(std::ostream& out) {
  out << "usage: bench_simulator [--seeds N] [--hour-runs N] [--quick]\n"
         "  --seeds N      seeds of the 10-step scenario per trace setting (default 5000)\n"
         "  --hour-runs N  seeds of the 50-tab simulated hour per trace setting (default 10)\n"
         "  --quick        500 seeds and 2 hour runs (a smoke run, noisier figures)\n";
}

options parse_options(int argc, char** argv) {
  options o;
  bool seeds_set = false;
  bool hour_runs_set = false;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] { return bench::flag_value(argc, argv, i, "bench_simulator"); };
    if (arg == "--seeds") {
      o.seeds = bench::positive_arg("bench_simulator", arg, value());
      seeds_set = true;
    } else if (arg == "--hour-runs") {
      o.hour_runs = bench::positive_arg("bench_simulator", arg, value());
      hour_runs_set = true;
    } else if (arg == "--quick") {
      quick = true;
    } else if (arg == "--help" || arg == "-h") {
      usage(std::cout);
      std::exit(0);
    } else {
      std::cerr << "bench_simulator: unknown option " << arg << "\n";
      usage(std::cerr);
      std::exit(2);
    }
  }
  if (quick) {
    if (!seeds_set) o.seeds = 500;
    if (!hour_runs_set) o.hour_runs = 2;
  }
  return o;
}

// -- the scenarios -------------------------------------------------------------------------

toolwire::protocol::tool_spec tool(std::string name) {
  return {std::move(name), "a tool of the simulated app", json{{"type", "object"}}};
}

scenarios::client_spec client(std::string actor, std::string requested_name,
                              std::string tool_name) {
  scenarios::client_spec spec;
  spec.actor = std::move(actor);
  spec.requested_name = std::move(requested_name);
  spec.tools = {tool(std::move(tool_name))};
  return spec;
}

json call_step(const std::vector<std::string>& names) {
  json calls = json::array();
  for (const auto& name : names)
    calls.push_back({{"name", name}, {"arguments", json::object()}});
  return {{"tool_calls", calls}};
}

json text_step(const std::string& text) {
  return {{"content", text}};
}

//! Ten requests: POST session; per client GET events + POST register; POST message;
//! per call POST ack + POST result. The model answers two steps (the calls, then text).
scenarios::scenario ten_step_scenario() {
  scenarios::scenario s;
  s.name = "bench_ten_step";
  s.purpose = "Two clients, one turn with two parallel calls, acks and results.";
  s.clients = {scenarios::backend_worker(client("worker", "db", "query")),
               scenarios::backend_worker(client("tab", "web", "read_form"))};
  s.steps = {scenarios::build::message_at(100, "query and read")};
  s.model_script = {
      {"rules", json::array({{{"match", ""},
                              {"steps", json::array({call_step({"db__query", "web__read_form"}),
                                                     text_step("both answered")})}}})}};
  s.duration = 1'000;
  return s;
}

//! 50 tabs joining over the first ten seconds (so their TTL deadlines fall apart), each
//! pinging every 20 s with a 60 s TTL for an hour; a turn every ten minutes calls two tabs.
scenarios::scenario ttl_hour_scenario() {
  scenarios::scenario s;
  s.name = "bench_ttl_hour";
  s.purpose = "50 browser tabs pinging for an hour, with a turn every ten minutes.";
  for (int i = 0; i < hour_tabs; ++i) {
    const std::string name = "tab" + std::to_string(i);
    auto tab = scenarios::browser_tab(client(name, name, "read_form"), 60, 20'000);
    tab.join_at = i * 197;
    s.clients.push_back(std::move(tab));
  }
  json steps = json::array();
  for (int turn = 0; turn < 6; ++turn) {
    s.steps.push_back(scenarios::build::message_at(300'000 + turn * 600'000, "turn"));
    const int a = (turn * 7) % hour_tabs;
    const int b = (turn * 7 + 25) % hour_tabs;
    steps.push_back(call_step(
        {"tab" + std::to_string(a) + "__read_form", "tab" + std::to_string(b) + "__read_form"}));
    steps.push_back(text_step("answered"));
  }
  s.model_script = {{"rules", json::array({{{"match", ""}, {"steps", steps}}})}};
  s.duration = hour_ms;
  return s;
}

// -- checks --------------------------------------------------------------------------------

struct run_summary {
  std::size_t requests = 0;          // the scenario's requests, without the director's stream
  std::size_t observer_streams = 0;  // the director's own GET .../events
  std::size_t failed_responses = 0;  // status >= 400
  std::size_t model_replies = 0;
  std::size_t model_failures = 0;
  std::size_t pings = 0;
  std::size_t expired = 0;  // client_unregistered events before the scenario's end
  std::size_t violations = 0;
};

run_summary summarize(const actors::trace& trace, time_ms end) {
  run_summary summary;
  for (const auto& record : trace.records()) {
    if (record.kind == "request") {
      const std::string path = record.data.value("path", "");
      // Why apart: since the director learned scripted steps (b7455b4) it opens its own
      // event stream on every run, to learn the order of dispatch. That request is the
      // harness's, not the scenario's, and every run makes it.
      if (record.actor == "director" && record.data.value("method", "") == "GET" &&
          path.ends_with("/events")) {
        ++summary.observer_streams;
        continue;
      }
      ++summary.requests;
      if (path.size() >= 5 && path.compare(path.size() - 5, 5, "/ping") == 0) ++summary.pings;
    } else if (record.kind == "response") {
      if (record.data.value("status", 0) >= 400) ++summary.failed_responses;
    } else if (record.kind == "model_reply") {
      ++summary.model_replies;
      if (record.data["reply"].contains("failure")) ++summary.model_failures;
    } else if (record.kind == "event" && record.at < end &&
               toolwire::protocol::parse_event_type(record.data.value("type", "")) ==
                   toolwire::protocol::event_type::client_unregistered) {
      ++summary.expired;
    }
  }
  summary.violations = actors::check_invariants(trace).size();
  return summary;
}

actors::run_result run_or_die(const scenarios::scenario& plan, std::uint64_t seed, bool record) {
  actors::run_options run;
  run.seed = seed;
  run.record = record;
  run.source = "bench";
  auto result = actors::simulate(plan, run);
  if (!result) {
    std::cerr << "bench_simulator: " << plan.name << ": " << result.error().message << "\n";
    std::exit(1);
  }
  if (result->hit_step_limit) {
    std::cerr << "bench_simulator: " << plan.name << " seed " << seed << " hit the step limit\n";
    std::exit(1);
  }
  return std::move(*result);
}

void require(bool ok, const std::string& what) {
  if (ok) return;
  std::cerr << "bench_simulator: scenario check failed: " << what << "\n";
  std::exit(1);
}

void check_ten_step(const scenarios::scenario& plan) {
  const auto result = run_or_die(plan, 1, true);
  const auto summary = summarize(result.trace, plan.duration);
  require(summary.requests == small_requests,
          "10-step scenario made " + std::to_string(summary.requests) + " requests, expected 10");
  require(summary.observer_streams == 1, "the director opened " +
                                             std::to_string(summary.observer_streams) +
                                             " event streams, expected 1");
  require(summary.failed_responses == 0, "10-step scenario had failed responses");
  require(summary.model_replies == 2 && summary.model_failures == 0,
          "10-step scenario's model did not answer two steps");
  require(summary.violations == 0, "10-step scenario violates invariants");
}

void check_ttl_hour(const scenarios::scenario& plan) {
  const auto result = run_or_die(plan, 1, true);
  const auto summary = summarize(result.trace, plan.duration);
  // Each tab pings 179 or 180 times in the hour, depending on when it joined.
  require(summary.pings >= static_cast<std::size_t>(hour_tabs) * 179,
          "TTL hour made only " + std::to_string(summary.pings) + " pings");
  require(summary.expired == 0, "a tab expired while it was pinging");
  require(summary.model_replies == 12 && summary.model_failures == 0,
          "TTL hour's model did not answer six turns of two steps");
  require(summary.violations == 0, "TTL hour violates invariants");
}

// -- measurement ---------------------------------------------------------------------------

//! CPU time of this thread: on a shared machine it shows what the run cost, waits excluded.
double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

struct totals {
  double wall_s = 0;
  double cpu_s = 0;
  std::uint64_t runs = 0;
  std::uint64_t steps = 0;
  time_ms simulated_ms = 0;
  std::size_t trace_records = 0;
};

//! Runs seeds 1..runs after a short untimed warm-up (seeds above the timed ones).
totals measure(const scenarios::scenario& plan, std::uint64_t runs, bool record) {
  const std::uint64_t warm_up = std::min<std::uint64_t>(runs / 10 + 1, 50);
  for (std::uint64_t i = 1; i <= warm_up; ++i) {
    run_or_die(plan, runs + i, record);
  }
  totals t;
  const double cpu_start = thread_cpu_seconds();
  const auto start = steady::now();
  for (std::uint64_t seed = 1; seed <= runs; ++seed) {
    const auto result = run_or_die(plan, seed, record);
    t.steps += result.steps;
    t.simulated_ms += result.simulated_ms;
    t.trace_records += result.trace.records().size();
  }
  t.wall_s = std::chrono::duration<double>(steady::now() - start).count();
  t.cpu_s = thread_cpu_seconds() - cpu_start;
  t.runs = runs;
  return t;
}

void print_figure(const std::string& label, double value, const std::string& goal) {
  std::printf("%s: %.0f%s\n", label.c_str(), value, goal.c_str());
}

std::string goal_of(double goal) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, " (goal >= %.0f)", goal);
  return buffer;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse_options(argc, argv);
  const auto ten_step = ten_step_scenario();
  const auto ttl_hour = ttl_hour_scenario();
  check_ten_step(ten_step);
  check_ttl_hour(ttl_hour);

  std::printf("bench_simulator: one thread; each run is one actors::simulate(scenario, seed)\n");
  std::printf(
      "10-step scenario: 10 protocol requests (1 session, 2 clients x (stream + register),\n"
      "  1 message, 2 acks, 2 results) and 2 model steps, plus the director's own stream;\n"
      "  %llu seeds per trace setting\n",
      static_cast<unsigned long long>(o.seeds));
  for (const bool record : {true, false}) {
    const auto t = measure(ten_step, o.seeds, record);
    const std::string setting = record ? "trace on" : "trace off";
    print_figure("runs/s (10-step scenario, " + setting + ")", t.runs / t.wall_s,
                 goal_of(runs_goal));
    std::printf(
        "  %.1f us/run, %.1f scheduler steps/run, %.1f trace records/run; "
        "%.0f runs per CPU second\n",
        1e6 * t.wall_s / t.runs, static_cast<double>(t.steps) / t.runs,
        static_cast<double>(t.trace_records) / t.runs, t.runs / t.cpu_s);
  }

  std::printf(
      "TTL hour: %d browser tabs (ttl 60 s, ping every 20 s) for %lld s, 6 turns of 2 calls,\n"
      "  then the settle-out; %llu seeds per trace setting\n",
      hour_tabs, static_cast<long long>(hour_ms / 1000),
      static_cast<unsigned long long>(o.hour_runs));
  for (const bool record : {false, true}) {
    const auto t = measure(ttl_hour, o.hour_runs, record);
    const std::string setting = record ? "trace on" : "trace off";
    // The headline counts the scenario's hour only; the settle-out after it (the last
    // expiries, then nothing) is shown separately and not credited.
    const double scenario_s = static_cast<double>(ttl_hour.duration) / 1000.0 * t.runs;
    const double covered_s = static_cast<double>(t.simulated_ms) / 1000.0;
    print_figure("simulated s per wall s (TTL hour, " + setting + ")", scenario_s / t.wall_s,
                 goal_of(simulated_goal));
    print_figure("steps/s (TTL hour, " + setting + ")", static_cast<double>(t.steps) / t.wall_s,
                 " (messages processed)");
    std::printf(
        "  %.1f ms/run, %.0f scheduler steps/run, %.0f s of virtual time covered/run; "
        "%.0f simulated s per CPU second\n",
        1e3 * t.wall_s / t.runs, static_cast<double>(t.steps) / t.runs, covered_s / t.runs,
        scenario_s / t.cpu_s);
  }
  return 0;
}
