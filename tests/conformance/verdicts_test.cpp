// Verdicts a CI user can trust (issue 9, items 5 and 7): no empty passes, every
// not-applicable reason with its remedy, --repeat labels, flaky baselines, and
// reproduce commands that carry every setting.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "toolwire/conformance/baseline.hpp"
#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/runner.hpp"
#include "toolwire/reports/reports.hpp"

namespace conformance = toolwire::conformance;
namespace reports = toolwire::reports;
using conformance::case_result;
using conformance::verdict;

namespace {

case_result made(std::string id, verdict v, std::string reason = "") {
  case_result r;
  r.id = std::move(id);
  r.verdict = v;
  r.not_applicable_because = std::move(reason);
  r.applicable_if =
      r.not_applicable_because.empty() ? "" : conformance::remedy_for(r.not_applicable_because);
  return r;
}

std::vector<conformance::catalog_case> cases_matching(const std::string& glob) {
  auto loaded = conformance::load_catalog(conformance::default_catalog_dir());
  REQUIRE(loaded);
  return conformance::filter_cases(std::move(*loaded), glob);
}

std::string temp_file(const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("toolwire-baseline-" + std::to_string(std::rand()) + ".txt");
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("A run in which no case ran is not a pass", "[verdicts][empty]") {
  const std::vector<case_result> results = {
      made("a.one", verdict::not_applicable, "the target lacks virtual_clock"),
      made("a.two", verdict::not_applicable, "the target lacks virtual_clock"),
      made("b.one", verdict::not_applicable, "the target lacks limited_key"),
  };
  const reports::run_summary summary{"t", 1, 0.1, {}, 0, 0};
  const auto status = reports::status_of(results, summary);
  CHECK(status.exit_code == 2);
  CHECK(status.message ==
        "nothing was checked: all 3 cases were not applicable (the target lacks "
        "virtual_clock: 2; the target lacks limited_key: 1)");

  SECTION("every reason, with what would make it applicable, in every report") {
    const auto junit = reports::junit_xml(results, summary);
    CHECK(junit.find("<skipped message=\"not applicable: the target lacks limited_key; to run "
                     "it: add limited_api_key") != std::string::npos);
    CHECK(junit.find("serve the test clock (SPEC 7)") != std::string::npos);
    const auto markdown = reports::markdown_summary(results, summary);
    CHECK(markdown.find("NOTHING WAS CHECKED") != std::string::npos);
    CHECK(markdown.find("- the target lacks virtual_clock (2 cases). To run them: serve the "
                        "test clock") != std::string::npos);
    const auto json = reports::json_report(results, summary);
    CHECK(json["exit_code"] == 2);
    CHECK(json["not_applicable_reasons"].size() == 2);
    CHECK(json["cases"][2]["applicable_if"] ==
          "add limited_api_key (a key without session.manage) to the profile");
  }
}

TEST_CASE("--min-applicable fails a run in which too few cases ran", "[verdicts][empty]") {
  const std::vector<case_result> results = {
      made("a.one", verdict::pass),
      made("a.two", verdict::not_applicable, "the target lacks part_b"),
      made("a.three", verdict::not_applicable, "the target lacks part_b"),
      made("a.four", verdict::pass),
  };
  reports::run_summary summary{"t", 1, 0.1, {}, 50, 0};
  CHECK(reports::status_of(results, summary).exit_code == 0);  // 50 % ran
  summary.min_applicable_pct = 51;
  const auto status = reports::status_of(results, summary);
  CHECK(status.exit_code == 1);
  CHECK(status.message == "only 50.0% of the cases ran (2 of 4); --min-applicable asks for 51%");
}

TEST_CASE("Remedies name what to change", "[verdicts][empty]") {
  CHECK(conformance::remedy_for("the target lacks part_b").starts_with("implement Part B"));
  CHECK(conformance::remedy_for("the in-process target has no virtual-clock routes (SPEC 7)") ==
        "check over HTTP (drop --in-process)");
  CHECK(conformance::remedy_for("the target replaces [P] rule SES-3").find("overrides") !=
        std::string::npos);
}

TEST_CASE("--repeat labels failures consistent or intermittent", "[verdicts][repeat]") {
  const auto cases = cases_matching("reg.tool-name-6*");
  REQUIRE(cases.size() >= 2);
  conformance::target_choice target;
  target.in_process = true;
  target.faults.insert(*toolwire::reference::parse_fault("invalid_tool_name_accepted"));
  auto results = conformance::run_cases(cases, target, {});
  REQUIRE(results);
  REQUIRE(conformance::rerun_failures(cases, *results, target, {}, 2) == std::nullopt);
  int labelled = 0;
  for (const auto& r : *results) {
    CAPTURE(r.id);
    if (r.verdict == verdict::pass) {
      CHECK(r.repeat_label.empty());
      continue;
    }
    ++labelled;
    // The simulator is deterministic: a failure there fails every time.
    CHECK(r.repeat_label == "consistent");
    CHECK(r.reruns == 2);
    CHECK(r.rerun_failures == 2);
    CHECK(r.evidence.back() == "repeat: failed 3 of 3 runs (consistent)");
  }
  CHECK(labelled > 0);
  const auto junit = reports::junit_xml(*results, {"t", 1, 0.1, {}, 0, 2});
  CHECK(junit.find("[consistent]") != std::string::npos);
}

TEST_CASE("A baseline marks cases known-flaky", "[verdicts][baseline]") {
  const auto path = temp_file(
      "# known\nreg.fails\nreg.flaky-one  # flaky: times out on slow CI\nflaky: reg.flaky-two\n");
  auto listed = conformance::load_baseline(path);
  std::filesystem::remove(path);
  REQUIRE(listed);
  CHECK(listed->expected_failures == std::set<std::string>{"reg.fails"});
  CHECK(listed->flaky == std::set<std::string>{"reg.flaky-one", "reg.flaky-two"});

  std::vector<case_result> results = {made("reg.fails", verdict::fail),
                                      made("reg.flaky-one", verdict::fail),
                                      made("reg.flaky-two", verdict::pass)};
  SECTION("a flaky failure does not fail the run; a flaky pass is not stale") {
    const auto stale = conformance::apply_baseline(*listed, results);
    CHECK(stale.empty());
    CHECK(results[1].expected_failure);
    CHECK(results[1].known_flaky);
    CHECK(reports::status_of(results, {"t", 1, 0.1, stale, 0, 0}).exit_code == 0);
    CHECK(reports::junit_xml(results, {"t", 1, 0.1, stale, 0, 0}).find("known flaky") !=
          std::string::npos);
  }
  SECTION("unless --repeat found it failing every time") {
    results[1].repeat_label = "consistent";
    const auto stale = conformance::apply_baseline(*listed, results);
    CHECK_FALSE(results[1].expected_failure);
    CHECK(reports::status_of(results, {"t", 1, 0.1, stale, 0, 0}).exit_code == 1);
  }
  SECTION("--update-baseline writes an intermittent failure as flaky") {
    results[1].repeat_label = "intermittent";
    const auto text = conformance::baseline_text(results);
    CHECK(text.find("\nreg.fails\n") != std::string::npos);
    CHECK(text.find("\nreg.flaky-one  # flaky\n") != std::string::npos);
  }
}

TEST_CASE("A reproduce command carries every setting of the run", "[verdicts][reproduce]") {
  const auto cases = cases_matching("reg.tool-name-65-chars-rejected");
  REQUIRE(cases.size() == 1);
  conformance::target_choice target;
  target.in_process = true;
  target.reproduce_flags = {"--settle-ms 40", "--request-timeout-ms 900"};
  conformance::run_settings settings;
  settings.seed = 7;
  auto results = conformance::run_cases(cases, target, settings);
  REQUIRE(results);
  CHECK((*results)[0].reproduce ==
        "toolwire check --filter 'reg.tool-name-65-chars-rejected' --seed 7 --in-process "
        "--settle-ms 40 --request-timeout-ms 900");
}
