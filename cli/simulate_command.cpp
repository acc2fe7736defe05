// `toolwire simulate` and `toolwire replay`.
#include "simulate_command.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "scenario_source.hpp"
#include "suggest.hpp"
#include "toolwire/actors/expectations.hpp"
#include "toolwire/actors/invariants.hpp"
#include "toolwire/actors/simulator.hpp"
#include "toolwire/reference_server/faults.hpp"

namespace toolwire::cli {

using protocol::json;

namespace {

struct seed_range {
  std::uint64_t first = 1;
  std::uint64_t last = 1;
};

std::optional<seed_range> parse_seeds(const std::string& text) {
  const auto dots = text.find("..");
  if (dots == std::string::npos) return std::nullopt;
  try {
    std::size_t used = 0;
    const std::string a = text.substr(0, dots), b = text.substr(dots + 2);
    seed_range range{std::stoull(a, &used), 0};
    if (used != a.size()) return std::nullopt;
    range.last = std::stoull(b, &used);
    if (used != b.size() || range.last < range.first || a[0] == '-' || b[0] == '-') {
      return std::nullopt;
    }
    return range;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string trace_path_for(const std::string& pattern, std::uint64_t seed) {
  std::string path = pattern;
  const auto at = path.find("{seed}");
  if (at != std::string::npos) path.replace(at, 6, std::to_string(seed));
  return path;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

//! Adds the faults to the scenario and records them in the trace header (for replay).
protocol::outcome<reference::fault_set> parse_faults(const std::vector<std::string>& names) {
  reference::fault_set faults;
  for (const auto& name : names) {
    auto f = reference::parse_fault(name);
    if (!f) {
      return protocol::invalid_request(unknown_fault_message(name));
    }
    faults.insert(*f);
  }
  return faults;
}

json fault_names(const reference::fault_set& faults) {
  json names = json::array();
  for (auto f : faults)
    names.push_back(std::string(reference::describe(f).name));
  return names;
}

protocol::outcome<actors::run_result> run_seed(const located_scenario& located,
                                               std::uint64_t seed) {
  actors::run_options options;
  options.seed = seed;
  options.source = located.source;
  auto result = actors::simulate(located.plan, options);
  if (!result) return result;
  json header = result->trace.header();
  header["faults"] = fault_names(located.plan.faults);
  result->trace.set_header(header);
  return result;
}

std::string seconds(protocol::time_ms ms) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f s", static_cast<double>(ms) / 1000.0);
  return buffer;
}

}  // namespace

simulate_command::simulate_command(CLI::App& parent) {
  app_ = parent.add_subcommand(
      "simulate",
      "Run a scenario on the deterministic simulator (in-process reference core, virtual "
      "time) for one seed or a range of seeds, and check its expectations and the trace "
      "invariants.");
  app_->footer(R"(
Examples:
  toolwire simulate --list
  toolwire simulate builtin:parallel_calls_two_clients --seeds 1..200 --check-determinism
  toolwire simulate scenarios/library/ack_just_before_deadline.yaml --seed 7 --trace run.jsonl

Exit codes: 0 every seed held its expectations and invariants; 1 one did not; 2 bad usage
or a scenario that does not load.
Read: docs/simulator.md, docs/scenario-language.md, docs/scenario-library.md)");
  app_->add_option("scenario", scenario_,
                   "a scenario file (FILE.yaml, see docs/scenario-language.md) or builtin:NAME "
                   "(see --list)");
  app_->add_option("--seed", seed_, "the seed that picks the interleaving")->default_val(1);
  app_->add_option("--seeds", seeds_, "a range of seeds A..B (inclusive)");
  app_->add_option("--trace", trace_,
                   "write the trace (JSON Lines) here; with --seeds, '{seed}' in the name is "
                   "replaced by each seed");
  app_->add_option("--fault", faults_, "run against a reference core with this fault (repeatable)");
  app_->add_flag("--check-determinism", check_determinism_,
                 "run every seed twice and compare the trace hashes");
  app_->add_flag("--list", list_, "list the built-in scenarios and exit");
}

int simulate_command::run() const {
  if (list_) {
    std::cout << builtin_table();
    return 0;
  }
  if (scenario_.empty()) {
    std::cerr << "toolwire simulate: a scenario is required (toolwire simulate --list)\n";
    return 2;
  }
  auto located = locate_scenario(scenario_);
  if (!located) {
    std::cerr << "toolwire simulate: " << located.error().message << "\n";
    return 2;
  }
  auto faults = parse_faults(faults_);
  if (!faults) {
    std::cerr << "toolwire simulate: " << faults.error().message << "\n";
    return 2;
  }
  located->plan.faults.insert(faults->begin(), faults->end());
  seed_range range{seed_, seed_};
  if (!seeds_.empty()) {
    auto parsed = parse_seeds(seeds_);
    if (!parsed) {
      std::cerr << "toolwire simulate: --seeds must be A..B with A <= B, e.g. 1..200\n";
      return 2;
    }
    range = *parsed;
  }
  const bool many = range.last > range.first;
  if (many && !trace_.empty() && trace_.find("{seed}") == std::string::npos) {
    std::cerr << "toolwire simulate: with --seeds, --trace needs '{seed}' in the file name\n";
    return 2;
  }

  const bool progress = many && isatty(STDERR_FILENO);
  std::set<std::string> distinct;
  std::uint64_t failed = 0, runs = 0;
  for (std::uint64_t seed = range.first;; ++seed) {
    auto result = run_seed(*located, seed);
    if (!result) {
      std::cerr << "toolwire simulate: " << result.error().message << "\n";
      return 2;
    }
    ++runs;
    const std::string hash = result->trace.hash();
    distinct.insert(result->trace.records_hash());  // the header holds the seed
    const auto violations = actors::check_invariants(result->trace);
    const auto expectations = actors::check_expectations(located->plan, result->trace);
    bool bad = !violations.empty() || !expectations.passed() || result->hit_step_limit;
    std::string verdict =
        violations.empty() ? "ok" : std::to_string(violations.size()) + " violation(s)";
    if (!expectations.passed()) {
      // Why apart: a step that could not run is not an expectation, and "1 of 0
      // expectation(s) failed" read as a contradiction.
      if (expectations.failures() > 0 || expectations.step_errors.empty()) {
        verdict += ", " + std::to_string(expectations.failures()) + " of " +
                   std::to_string(expectations.results.size()) + " expectation(s) failed";
      }
      if (!expectations.step_errors.empty()) {
        verdict +=
            ", " + std::to_string(expectations.step_errors.size()) + " step(s) could not run";
      }
    } else if (!expectations.results.empty()) {
      verdict += ", " + std::to_string(expectations.results.size()) + " expectation(s) held";
    }
    if (check_determinism_) {
      auto again = run_seed(*located, seed);
      if (again->trace.hash() != hash) {
        bad = true;
        verdict += ", NONDETERMINISTIC (second run hash " + again->trace.hash() + ")";
      }
    }
    if (result->hit_step_limit) verdict += ", stopped at the step limit";
    if (bad || !many) {
      if (progress) std::cerr << "\r\033[K";
      std::cout << "seed " << seed << ": " << result->trace.records().size() << " records, "
                << result->choices << " choices, " << seconds(result->simulated_ms)
                << " simulated, hash " << hash << ", " << verdict << "\n";
      for (const auto& v : violations)
        std::cout << "  " << actors::describe(v) << "\n";
      for (const auto& r : expectations.results) {
        if (!r.passed) std::cout << "  " << actors::describe(r, located->plan) << "\n";
      }
      for (const auto& e : expectations.step_errors)
        std::cout << "  " << e << "\n";
    }
    if (!trace_.empty()) {
      const std::string path = trace_path_for(trace_, seed);
      if (!write_file(path, result->trace.to_jsonl())) {
        std::cerr << "toolwire simulate: cannot write " << path << "\n";
        return 2;
      }
    }
    if (bad) {
      ++failed;
      std::cout << "  reproduce: toolwire simulate " << located->source << " --seed " << seed;
      for (const auto& f : faults_)
        std::cout << " --fault " << f;
      std::cout << " --trace seed-" << seed << ".jsonl\n";
    }
    if (progress && runs % 10 == 0) {
      std::cerr << "\r\033[K" << runs << "/" << (range.last - range.first + 1) << " seeds"
                << std::flush;
    }
    if (seed == range.last) break;
  }
  if (progress) std::cerr << "\r\033[K";
  if (many || check_determinism_) {
    std::cout << located->source << ": " << runs << " seed(s), " << distinct.size()
              << " distinct trace(s), " << failed << " failed"
              << (check_determinism_ ? ", determinism checked" : "") << "\n";
  }
  return failed == 0 ? 0 : 1;
}

replay_command::replay_command(CLI::App& parent) {
  app_ = parent.add_subcommand(
      "replay",
      "Re-run the scenario and seed recorded in a trace and report either 'identical' or the "
      "first record that diverges, with both versions.");
  app_->footer(R"(
Examples:
  toolwire simulate builtin:tab_closes_mid_call --seed 7 --trace run.jsonl
  toolwire replay run.jsonl

Exit codes: 0 identical; 1 the run diverged (the first differing record is shown); 2 a
trace or scenario that cannot be read.
Read: docs/simulator.md)");
  app_->add_option("trace", trace_, "a trace written by toolwire simulate --trace")->required();
}

int replay_command::run() const {
  std::ifstream in(trace_, std::ios::binary);
  if (!in) {
    std::cerr << "toolwire replay: cannot read " << trace_ << "\n";
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  auto recorded = actors::trace::from_jsonl(text.str(), trace_);
  if (!recorded) {
    std::cerr << "toolwire replay: " << recorded.error().message << "\n";
    return 2;
  }
  const json& header = recorded->header();
  if (!header.contains("source") || !header["source"].is_string() || !header.contains("seed") ||
      !header["seed"].is_number_unsigned()) {
    std::cerr << "toolwire replay: " << trace_
              << ":1: the header needs \"source\" (string) and \"seed\" (non-negative integer)\n";
    return 2;
  }
  auto located = locate_scenario(header["source"].get<std::string>());
  if (!located) {
    std::cerr << "toolwire replay: " << located.error().message << "\n";
    return 2;
  }
  std::vector<std::string> names;
  for (const auto& f : header.value("faults", json::array()))
    names.push_back(f.get<std::string>());
  auto faults = parse_faults(names);
  if (!faults) {
    std::cerr << "toolwire replay: " << trace_ << ":1: " << faults.error().message << "\n";
    return 2;
  }
  located->plan.faults = *faults;
  auto rerun = run_seed(*located, header["seed"].get<std::uint64_t>());
  if (!rerun) {
    std::cerr << "toolwire replay: " << rerun.error().message << "\n";
    return 2;
  }
  const auto& a = recorded->records();
  const auto& b = rerun->trace.records();
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i < a.size() && i < b.size() && a[i] == b[i]) continue;
    // Line numbers count the header as line 1.
    std::cout << "diverged at record " << i << " (" << trace_ << ":" << i + 2 << ")\n"
              << "  recorded: " << (i < a.size() ? actors::trace::line_of(a[i]) : "(end of trace)")
              << "\n  replayed: "
              << (i < b.size() ? actors::trace::line_of(b[i]) : "(end of trace)") << "\n";
    return 1;
  }
  std::cout << "identical: " << a.size() << " records, hash " << rerun->trace.hash() << "\n";
  return 0;
}

}  // namespace toolwire::cli
