// The conformance catalog: every case passes on the reference core, every SPEC rule is
// cited, and every case is proven by its breaks_with: faults (conformance/fault_proof.hpp).
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "conformance/fault_proof.hpp"
#include "toolwire/conformance/baseline.hpp"
#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/runner.hpp"
#include "toolwire/protocol/spec_rules.hpp"
#include "toolwire/reports/reports.hpp"

namespace conformance = toolwire::conformance;
namespace reference_server = toolwire::reference_server;

namespace {

const std::vector<conformance::catalog_case>& catalog() {
  static const auto cases = [] {
    auto loaded = conformance::load_catalog(conformance::default_catalog_dir());
    if (!loaded) FAIL(loaded.error().message);
    return *loaded;
  }();
  return cases;
}

std::vector<conformance::case_result> run(const std::vector<conformance::catalog_case>& cases,
                                          reference_server::fault_set faults = {}) {
  conformance::target_choice target;
  target.kind.emplace<conformance::in_process_core>().faults = std::move(faults);
  conformance::run_settings settings;
  settings.jobs = 2;
  auto results = conformance::run_cases(cases, target, settings);
  REQUIRE(results);
  return *results;
}

}  // namespace

TEST_CASE("the catalog has at least 150 cases and cites every SPEC rule", "[catalog]") {
  CHECK(catalog().size() >= 150);
  std::set<std::string> cited;
  for (const auto& c : catalog())
    cited.insert(c.plan.spec_ids.begin(), c.plan.spec_ids.end());
  for (const auto& rule : toolwire::protocol::spec_rules()) {
    INFO(rule.id);
    CHECK(cited.contains(std::string(rule.id)));
  }
}

TEST_CASE("every case passes on the reference core (no false failures)", "[catalog]") {
  for (const auto& r : run(catalog())) {
    INFO(r.id << "\n" << (r.evidence.empty() ? "" : r.evidence.front().text()));
    CHECK((r.verdict == conformance::verdict::pass ||
           r.verdict == conformance::verdict::not_applicable));
  }
}

TEST_CASE("one catalog applies to any timeouts: every case passes in-process with short ones",
          "[catalog][timing]") {
  struct timeouts {
    toolwire::protocol::time_ms ack, result, interrupt;
  };
  for (const auto t : {timeouts{1000, 3000, 4000}, timeouts{300, 900, 1200}}) {
    conformance::target_choice target;
    target.kind.emplace<conformance::in_process_core>().timeouts = {t.ack, t.result, t.interrupt};
    conformance::run_settings settings;
    settings.jobs = 2;
    auto results = conformance::run_cases(catalog(), target, settings);
    REQUIRE(results);
    for (std::size_t i = 0; i < results->size(); ++i) {
      const auto& r = (*results)[i];
      INFO(t.ack << "/" << t.result << "/" << t.interrupt << " ms: " << r.id << "\n"
                 << (r.evidence.empty() ? r.not_applicable_because : r.evidence.front().text()));
      if (conformance::uses_clock_routes(catalog()[i].plan) ||
          conformance::opens_tabs(catalog()[i])) {
        CHECK(r.verdict == conformance::verdict::not_applicable);
      } else {
        CHECK(r.verdict == conformance::verdict::pass);
      }
    }
  }
}

TEST_CASE("every case is proven by its breaks_with: narrow faults of rules it cites",
          "[catalog][proof]") {
  toolwire::testing::failing_cases broken;
  for (const auto& info : reference_server::all_faults()) {
    auto& failing = broken[std::string(info.name)];
    for (const auto& r : run(catalog(), {info.id})) {
      if (r.verdict == conformance::verdict::fail) failing.insert(r.id);
    }
  }
  std::vector<std::string> unproven;
  for (const auto& c : catalog()) {
    // Some cases fail only over HTTP; http_test.cpp shows those. The browser cases open
    // tabs in Chromium; tests/browser/browser_scenarios.sh shows those.
    const bool shown_here = !toolwire::testing::proven_over_http(c) && !conformance::opens_tabs(c);
    for (const auto& problem :
         toolwire::testing::proof_problems(c, broken, catalog().size(), shown_here)) {
      unproven.push_back(c.id + " (" + c.file + "): " + problem);
    }
  }
  for (const auto& line : unproven)
    UNSCOPED_INFO(line);
  CHECK(unproven.empty());
  // Every fault is caught by some case, or it is dead weight in the catalogue.
  for (const auto& [fault, failing] : broken) {
    if (failing.empty()) {
      const auto id = reference_server::parse_fault(fault);
      // Faults of the clock routes show only over HTTP (http_test.cpp).
      if (std::string(reference_server::describe(*id).spec_id).rfind("CLOCK-", 0) == 0) continue;
    }
    INFO(fault);
    CHECK_FALSE(failing.empty());
  }
}

TEST_CASE("the fault proof names a fault that breaks too much, or another rule",
          "[catalog][proof]") {
  auto c = catalog().front();
  toolwire::testing::failing_cases broken;
  for (const auto& other : catalog())
    broken["session_created_with_200"].insert(other.id);
  broken["no_collision_counter"] = {c.id};
  c.plan.spec_ids = {"AUTH-1"};
  c.plan.breaks_with = {"session_created_with_200", "no_collision_counter"};
  const auto problems = toolwire::testing::proof_problems(c, broken, catalog().size());
  const std::string total = std::to_string(catalog().size());
  CHECK(problems == std::vector<std::string>{
                        "session_created_with_200 breaks SES-1, which the case does not cite",
                        "session_created_with_200 breaks " + total + " of " + total +
                            " cases: more than 20 % proves nothing",
                        "no_collision_counter breaks REG-5, which the case does not cite"});
  c.plan.breaks_with.clear();
  CHECK(toolwire::testing::proof_problems(c, broken, catalog().size()) ==
        std::vector<std::string>{"names no fault in 'breaks_with:'"});
  c.plan.spec_ids = {"REG-5"};
  c.plan.breaks_with = {"no_collision_counter"};
  broken["no_collision_counter"].clear();
  CHECK(toolwire::testing::proof_problems(c, broken, catalog().size()) ==
        std::vector<std::string>{"the case does not fail against no_collision_counter"});
}

TEST_CASE("a baseline excuses listed failures and flags listed passes as stale", "[catalog]") {
  std::vector<conformance::case_result> results(2);
  results[0].id = "a";
  results[0].verdict = conformance::verdict::fail;
  results[1].id = "b";
  results[1].verdict = conformance::verdict::pass;
  conformance::baseline listed{{"a", "b"}};
  const auto stale = conformance::apply_baseline(listed, results);
  CHECK(results[0].expected_failure);
  CHECK(stale == std::vector<std::string>{"b"});
  CHECK(conformance::baseline_text(results).find("\na\n") != std::string::npos);
}

TEST_CASE("JUnit XML escapes evidence and counts failures", "[catalog]") {
  std::vector<conformance::case_result> results(1);
  results[0].id = "reg.x";
  results[0].verdict = conformance::verdict::fail;
  results[0].spec_ids = {"REG-1"};
  results[0].evidence = {conformance::evidence_that(conformance::evidence_kind::problem,
                                                    "expected <status> & \"body\"")};
  const auto xml = toolwire::reports::junit_xml(results, {"t", 1, 0.5, {}});
  CHECK(xml.find("failures=\"1\"") != std::string::npos);
  CHECK(xml.find("expected &lt;status&gt; &amp; &quot;body&quot;") != std::string::npos);
  CHECK(xml.find("<testcase classname=\"reg\" name=\"reg.x\"") != std::string::npos);
}
