// The conformance catalog: every case passes on the reference core, every SPEC rule is
// cited, and every case fails against at least one injected fault of the reference.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "toolwire/conformance/baseline.hpp"
#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/runner.hpp"
#include "toolwire/protocol/spec_rules.hpp"
#include "toolwire/reports/reports.hpp"

namespace conformance = toolwire::conformance;
namespace reference = toolwire::reference;

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
                                          reference::fault_set faults = {}) {
  conformance::target_choice target;
  target.in_process = true;
  target.faults = std::move(faults);
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
    INFO(r.id << "\n" << (r.evidence.empty() ? "" : r.evidence.front()));
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
    target.in_process = true;
    target.ack_timeout_ms = t.ack;
    target.result_timeout_ms = t.result;
    target.interrupt_timeout_ms = t.interrupt;
    conformance::run_settings settings;
    settings.jobs = 2;
    auto results = conformance::run_cases(catalog(), target, settings);
    REQUIRE(results);
    for (std::size_t i = 0; i < results->size(); ++i) {
      const auto& r = (*results)[i];
      INFO(t.ack << "/" << t.result << "/" << t.interrupt << " ms: " << r.id << "\n"
                 << (r.evidence.empty() ? r.not_applicable_because : r.evidence.front()));
      if (conformance::uses_clock_routes(catalog()[i].plan)) {
        CHECK(r.verdict == conformance::verdict::not_applicable);
      } else {
        CHECK(r.verdict == conformance::verdict::pass);
      }
    }
  }
}

TEST_CASE("every case fails against at least one fault of the reference", "[catalog]") {
  std::map<std::string, std::vector<std::string>> breakers;
  for (const auto& info : reference::all_faults()) {
    for (const auto& r : run(catalog(), {info.id})) {
      if (r.verdict == conformance::verdict::fail) breakers[r.id].emplace_back(info.name);
    }
  }
  for (const auto& c : catalog()) {
    if (conformance::uses_clock_routes(c.plan)) continue;  // shown over HTTP (http_test.cpp)
    INFO(c.id);
    CHECK_FALSE(breakers[c.id].empty());
  }
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
  results[0].evidence = {"expected <status> & \"body\""};
  const auto xml = toolwire::reports::junit_xml(results, {"t", 1, 0.5, {}});
  CHECK(xml.find("failures=\"1\"") != std::string::npos);
  CHECK(xml.find("expected &lt;status&gt; &amp; &quot;body&quot;") != std::string::npos);
  CHECK(xml.find("<testcase classname=\"reg\" name=\"reg.x\"") != std::string::npos);
}
