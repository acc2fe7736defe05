// Reading report.json back and joining shards (`toolwire report merge`).
#include <catch2/catch.hpp>

#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/runner.hpp"
#include "toolwire/reference_server/faults.hpp"
#include "toolwire/reports/merge.hpp"

namespace conformance = toolwire::conformance;
namespace reports = toolwire::reports;
using conformance::case_result;
using conformance::verdict;

namespace {

//! Real results of every kind a report writes: passed, failed, an expected failure, a
//! known flake that passed, a rerun label.
std::vector<case_result> varied_results() {
  auto loaded = conformance::load_catalog(conformance::default_catalog_dir());
  REQUIRE(loaded);
  auto cases = conformance::filter_cases(std::move(*loaded), "reg.tool-name-6*");
  conformance::target_choice target;
  target.kind.emplace<conformance::in_process_core>().faults = {
      *toolwire::reference_server::parse_fault("invalid_tool_name_accepted")};
  auto results = conformance::run_cases(cases, target, {});
  REQUIRE(results);
  REQUIRE(results->size() == 2);
  auto all = *results;
  all.push_back(all[0]);
  all.back().id = "reg.copy-expected";
  all.back().verdict = verdict::fail;
  all.back().expected_failure = true;
  all.back().repeat_label = "intermittent";
  all.back().reruns = 3;
  all.back().rerun_failures = 1;
  all.push_back(all[0]);
  all.back().id = "reg.copy-flaky";
  all.back().known_flaky = true;
  all.back().verdict = verdict::pass;
  return all;
}

reports::run_summary summary_of_shard(const std::string& shard) {
  reports::run_summary summary{"acme", 3, 1.5, {"reg.stale"}, 50, 2};
  summary.catalog_dir = conformance::default_catalog_dir();
  summary.toolwire_version = "1.2.3";
  summary.started_at = "2026-12-01T10:00:00Z";
  summary.catalog_version = "231 cases, content 937613505e01";
  summary.filter = "reg.*";
  summary.shard = shard;
  return summary;
}

reports::saved_run saved(std::vector<case_result> results, reports::run_summary summary) {
  auto run = reports::read_saved_run(reports::json_report(results, summary));
  REQUIRE(run);
  return *run;
}

}  // namespace

TEST_CASE("A report read back writes the same report again", "[reports][merge]") {
  const auto results = varied_results();
  const auto summary = summary_of_shard("");
  const auto original = reports::json_report(results, summary);
  const auto run = reports::read_saved_run(original);
  REQUIRE(run);
  CHECK(reports::json_report(run->results, run->summary) == original);
  CHECK(reports::junit_xml(run->results, run->summary) == reports::junit_xml(results, summary));
}

TEST_CASE("What is not a report, or a case it cannot read, is named", "[reports][merge]") {
  CHECK_FALSE(reports::read_saved_run(toolwire::protocol::json::array()));
  auto report = reports::json_report(varied_results(), summary_of_shard(""));
  report["cases"][1]["verdict"] = "great";
  const auto bad = reports::read_saved_run(report);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message ==
        "case reg.tool-name-65-chars-rejected has an unknown verdict 'great'");
}

TEST_CASE("Shards join in shard order, or are refused with the reason", "[reports][merge]") {
  auto results = varied_results();
  const std::vector<case_result> first(results.begin(), results.begin() + 2);
  const std::vector<case_result> second(results.begin() + 2, results.end());
  auto one = saved(first, summary_of_shard("1/2"));
  auto two = saved(second, summary_of_shard("2/2"));
  two.summary.seconds = 4;
  two.summary.started_at = "2026-12-01T09:59:00Z";

  SECTION("joined") {
    const auto merged = reports::merge_shards({two, one});
    REQUIRE(merged);
    REQUIRE(merged->results.size() == 4);
    CHECK(merged->results.front().id == first.front().id);
    CHECK(merged->results.back().id == "reg.copy-flaky");
    CHECK(merged->summary.shard.empty());
    CHECK(merged->summary.seconds == 4);  // the longest shard: they ran side by side
    CHECK(merged->summary.started_at == "2026-12-01T09:59:00Z");
    CHECK(merged->summary.stale_baseline == std::vector<std::string>{"reg.stale"});
  }
  const auto refused = [&](reports::saved_run changed) {
    auto merged = reports::merge_shards({one, std::move(changed)});
    REQUIRE_FALSE(merged);
    return merged.error().message;
  };
  SECTION("refused") {
    auto other = two;
    other.summary.catalog_version = "230 cases, content 000000000000";
    CHECK(refused(other) ==
          "report 2 (shard 2/2) is of another catalog ('230 cases, content 000000000000', not "
          "'231 cases, content 937613505e01')");
    other = two;
    other.summary.filter = "ses.*";
    CHECK(refused(other) == "report 2 (shard 2/2) is of another --filter ('ses.*', not 'reg.*')");
    other = two;
    other.summary.target = "other";
    CHECK(refused(other) == "report 2 (shard 2/2) is of another target ('other', not 'acme')");
    other = two;
    other.summary.shard = "2/3";
    CHECK(refused(other) == "report 2 is shard 2/3, of another split than 1/2");
    other = two;
    other.results.push_back(first.front());
    CHECK(refused(other) == "case " + first.front().id + " is in two shards");
    CHECK(reports::merge_shards({one}).error().message ==
          "shard(s) 2/2 missing: a merged report must hold every case");
  }
}
