// Running cases and judging them.
#include "toolwire/conformance/runner.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "bundled_reference.hpp"
#include "toolwire/actors/expectations.hpp"
#include "toolwire/actors/invariants.hpp"
#include "toolwire/actors/simulator.hpp"
#include "toolwire/conformance/remote_host.hpp"
#include "toolwire/protocol/spec_rules.hpp"

namespace toolwire::conformance {

namespace {

using clock_type = std::chrono::steady_clock;

//! "  REG-5 [S] <summary>" for each rule, to put the SPEC's words next to the evidence.
std::string spec_text(const std::vector<std::string>& ids) {
  std::string text;
  for (const auto& id : ids) {
    const auto* rule = protocol::find_spec_rule(id);
    if (rule == nullptr) continue;
    text += "\n      " + id + " [" + std::string(1, rule->tag) + "] " + std::string(rule->summary);
  }
  return text;
}

std::vector<std::string> evidence_of(const catalog_case& c, const actors::trace& run) {
  std::vector<std::string> evidence;
  const auto report = actors::check_expectations(c.plan, run);
  for (const auto& r : report.results) {
    if (!r.passed) evidence.push_back(actors::describe(r, c.plan) + spec_text(r.expected.spec_ids));
  }
  for (const auto& e : report.step_errors)
    evidence.push_back(e);
  for (const auto& v : actors::check_invariants(run)) {
    evidence.push_back("invariant " + actors::describe(v) + spec_text({v.spec_id}));
  }
  for (const auto& r : run.records()) {
    if (r.kind == "transport_error") evidence.push_back("transport: " + r.data.dump());
  }
  return evidence;
}

protocol::json records_of(const actors::trace& run) {
  protocol::json records = protocol::json::array();
  for (const auto& r : run.records()) {
    records.push_back({{"at", r.at}, {"actor", r.actor}, {"kind", r.kind}, {"data", r.data}});
  }
  return records;
}

std::string reproduce_command(const catalog_case& c, const target_choice& target,
                              std::uint64_t seed) {
  std::string command = "toolwire check --filter '" + c.id + "' --seed " + std::to_string(seed);
  if (target.in_process) command += " --in-process";
  if (!target.profile_path.empty()) command += " --target " + target.profile_path;
  for (auto f : target.faults)
    command += " --fault " + std::string(reference::describe(f).name);
  for (auto v : target.variations)
    command += " --variation " + std::string(reference::variations::describe(v).name);
  return command;
}

case_result base_result(const catalog_case& c, const target_choice& target, std::uint64_t seed) {
  case_result result;
  result.id = c.id;
  result.file = c.file;
  result.spec_ids = c.plan.spec_ids;
  result.tag = strongest_tag(c.plan.spec_ids);
  result.purpose = c.plan.purpose;
  result.seed = seed;
  result.reproduce = reproduce_command(c, target, seed);
  return result;
}

void judge(case_result& result, const catalog_case& c, const actors::trace& run) {
  result.evidence = evidence_of(c, run);
  result.trace = records_of(run);
  if (result.evidence.empty()) {
    result.verdict = verdict::pass;
  } else {
    result.verdict = c.grade == grade::required ? verdict::fail : verdict::warn;
  }
}

}  // namespace

bool uses_clock_routes(const actors::scenario& plan) {
  return std::any_of(plan.steps.begin(), plan.steps.end(), [](const actors::scripted_step& s) {
    return s.args.value("path", "").find("/_test/clock") != std::string::npos;
  });
}

namespace {

case_result run_in_process(const catalog_case& c, const target_choice& target, std::uint64_t seed) {
  auto result = base_result(c, target, seed);
  if (uses_clock_routes(c.plan)) {
    // In-process time passes by waiting (exactly, so timing cases run); there are no
    // clock routes to test.
    result.verdict = verdict::not_applicable;
    result.not_applicable_because = "the in-process target has no virtual-clock routes (SPEC 7)";
    return result;
  }
  auto plan = c.plan;
  plan.faults.insert(target.faults.begin(), target.faults.end());
  actors::run_options options;
  options.seed = seed;
  options.source = c.file;
  auto run = actors::simulate(plan, options);
  if (!run) {
    result.verdict = verdict::fail;
    result.evidence = {"the case could not run: " + run.error().message};
    return result;
  }
  judge(result, c, run->trace);
  return result;
}

case_result run_remote(const catalog_case& c, const target_profile& profile,
                       const target_choice& target, std::uint64_t seed) {
  auto result = base_result(c, target, seed);
  if (auto reason = not_applicable_reason(c, profile); !reason.empty()) {
    result.verdict = verdict::not_applicable;
    result.not_applicable_because = reason;
    return result;
  }
  const std::string tag = "[tw:" + c.id + "] ";
  auto host = remote_host::start(profile, tag);
  if (!host) {
    result.verdict = verdict::fail;
    result.evidence = {"the case could not reach the target: " + host.error().message};
    return result;
  }
  actors::run_options options;
  options.seed = seed;
  options.source = c.file;
  options.host = host->get();
  options.message_tag = tag;
  auto run = actors::simulate(c.plan, options);
  if (!run) {
    result.verdict = verdict::fail;
    result.evidence = {"the case could not run: " + run.error().message};
    return result;
  }
  judge(result, c, run->trace);
  return result;
}

//! The profile a case runs against: the given one, or the bundled server's for the
//! case's timeouts.
protocol::outcome<target_profile> profile_for(const catalog_case& c, const target_choice& target,
                                              detail::bundled_reference* bundled) {
  if (bundled == nullptr) return *target.profile;
  const auto& plan = c.plan;
  return bundled->profile_for(
      {plan.ack_timeout_ms, plan.result_timeout_ms, plan.interrupt_timeout_ms});
}

}  // namespace

std::string to_string(verdict v) {
  switch (v) {
    case verdict::pass:
      return "pass";
    case verdict::fail:
      return "fail";
    case verdict::warn:
      return "warn";
    case verdict::not_applicable:
      return "not applicable";
  }
  return "?";
}

std::string not_applicable_reason(const catalog_case& c, const target_profile& profile) {
  for (const auto& need : c.plan.needs) {
    if (!profile.meets(need)) return "the target lacks " + need;
  }
  for (const auto& id : c.plan.spec_ids) {
    if (profile.overrides.is_object() && profile.overrides.contains(id)) {
      return "the target replaces [P] rule " + id;
    }
  }
  if (c.plan.ack_timeout_ms != profile.ack_timeout_ms ||
      c.plan.result_timeout_ms != profile.result_timeout_ms ||
      c.plan.interrupt_timeout_ms != profile.interrupt_timeout_ms) {
    return "the case is timed for ack/result/interrupt timeouts of " +
           std::to_string(c.plan.ack_timeout_ms) + "/" + std::to_string(c.plan.result_timeout_ms) +
           "/" + std::to_string(c.plan.interrupt_timeout_ms) + " ms; the target's are " +
           std::to_string(profile.ack_timeout_ms) + "/" +
           std::to_string(profile.result_timeout_ms) + "/" +
           std::to_string(profile.interrupt_timeout_ms) + " ms";
  }
  return "";
}

protocol::outcome<std::vector<case_result>> run_cases(const std::vector<catalog_case>& cases,
                                                      const target_choice& target,
                                                      const run_settings& settings) {
  std::vector<case_result> results(cases.size());
  std::mutex progress_mutex;
  std::size_t done = 0;
  auto finish = [&](std::size_t i, case_result result, clock_type::time_point started) {
    result.seconds = std::chrono::duration<double>(clock_type::now() - started).count();
    std::lock_guard lock(progress_mutex);
    results[i] = std::move(result);
    ++done;
    if (settings.progress) settings.progress(results[i], done, cases.size());
  };

  // Workers take the next case until none is left. In-process every case has its own
  // core. The bundled server is started once per worker, so each worker's cases have a
  // virtual clock of their own. A remote target's clock is shared by all its sessions,
  // and a case that moves it would shift every other case's deadlines, so remote cases
  // run one at a time.
  const bool own_targets = target.in_process || !target.profile;
  const int workers = own_targets ? std::max(1, settings.jobs) : 1;
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::optional<protocol::api_error> setup_error;
  auto worker = [&] {
    std::unique_ptr<detail::bundled_reference> bundled;
    if (!target.in_process && !target.profile) {
      bundled = std::make_unique<detail::bundled_reference>(target.faults, target.variations);
    }
    for (std::size_t i = next++; i < cases.size(); i = next++) {
      const auto started = clock_type::now();
      if (target.in_process) {
        finish(i, run_in_process(cases[i], target, settings.seed), started);
        continue;
      }
      auto profile = profile_for(cases[i], target, bundled.get());
      if (!profile) {
        std::lock_guard lock(error_mutex);
        setup_error = profile.error();
        next = cases.size();  // nothing more can run
        return;
      }
      finish(i, run_remote(cases[i], *profile, target, settings.seed), started);
    }
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < workers; ++j)
    threads.emplace_back(worker);
  worker();
  for (auto& t : threads)
    t.join();
  if (setup_error) return *setup_error;
  return results;
}

}  // namespace toolwire::conformance
