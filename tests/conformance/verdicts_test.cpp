// Verdicts a CI user can trust (issue 9, items 5 and 7): no empty passes, every
// not-applicable reason with its remedy, --repeat labels, flaky baselines, and
// reproduce commands that carry every setting. Reports that read well (issue 12):
// failures headed by what went wrong, paths relative to the catalog, not-applicable
// cases skipped and never counted against a pass.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "toolwire/conformance/baseline.hpp"
#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/runner.hpp"
#include "toolwire/conformance/target_profile.hpp"
#include "toolwire/reports/reports.hpp"
#include "toolwire/scenarios/loader.hpp"

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

//! A plan that checks a deadline to the millisecond, as the ack-timeout-exact case does.
toolwire::scenarios::scenario exact_timing_plan() {
  toolwire::scenarios::scenario plan;
  plan.needs = {toolwire::scenarios::exact_timing};
  return plan;
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

//! The value of the first `attribute="..."` after `from` in `xml`, still escaped.
std::string attribute_after(const std::string& xml, const std::string& from,
                            const std::string& attribute) {
  const auto element = xml.find(from);
  REQUIRE(element != std::string::npos);
  const std::string opening = attribute + "=\"";
  const auto start = xml.find(opening, element);
  REQUIRE(start != std::string::npos);
  const auto value = start + opening.size();
  return xml.substr(value, xml.find('"', value) - value);
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t found = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++found;
  return found;
}

//! The numbers of the Markdown table row that follows `header`'s line and its rule.
std::vector<long> table_row_after(const std::string& markdown, const std::string& header) {
  auto at = markdown.find(header);
  REQUIRE(at != std::string::npos);
  for (int line = 0; line < 2; ++line)
    at = markdown.find('\n', at) + 1;
  std::istringstream row(markdown.substr(at, markdown.find('\n', at) - at));
  std::vector<long> numbers;
  for (std::string cell; std::getline(row, cell, '|');) {
    if (cell.find_first_of("0123456789") != std::string::npos) numbers.push_back(std::stol(cell));
  }
  return numbers;
}

//! The in-process reference with a fault that fails one of the two tool-name cases.
std::vector<case_result> run_with_a_failure() {
  const auto cases = cases_matching("reg.tool-name-6*");
  conformance::target_choice target;
  target.kind.emplace<conformance::in_process_core>().faults = {
      *toolwire::reference_server::parse_fault("invalid_tool_name_accepted")};
  auto results = conformance::run_cases(cases, target, {});
  REQUIRE(results);
  return *results;
}

reports::run_summary summary_for_catalog() {
  reports::run_summary summary{"t", 1, 0.1, {}, 0, 0};
  summary.catalog_dir = conformance::default_catalog_dir();
  return summary;
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

TEST_CASE("A case whose times do not fit the target's timeouts is not applicable, not failed",
          "[verdicts][empty]") {
  // A correct target at 300/600/900 ms failed call.result-timeout-exact on a real clock:
  // "the case cannot be timed for this target", read as a catalog bug. Its deadlines lie
  // too close together for the steps between them; SPEC lets a target choose them.
  const auto cases = cases_matching("call.result-timeout-exact");
  REQUIRE(cases.size() == 1);
  conformance::target_choice target;
  target.kind.emplace<conformance::in_process_core>().timeouts = {300, 301, 1200};
  auto results = conformance::run_cases(cases, target, {});
  REQUIRE(results);
  const auto& r = results->front();
  CHECK(r.verdict == verdict::not_applicable);
  CHECK(r.not_applicable_because.starts_with(
      "the case's times do not fit the target's timeouts (ack 300 ms, result 301 ms, "
      "interrupt 1200 ms): "));
  CHECK(r.not_applicable_because.find("result-timeout-exact.yaml:") != std::string::npos);
  CHECK(r.applicable_if.starts_with("start the target with longer timeouts, further apart"));
  // With room between the deadlines the same case runs, and passes.
  target.kind.emplace<conformance::in_process_core>().timeouts = {300, 900, 1200};
  results = conformance::run_cases(cases, target, {});
  REQUIRE(results);
  CHECK(results->front().verdict == verdict::pass);
}

TEST_CASE("Remedies name what to change", "[verdicts][empty]") {
  CHECK(conformance::remedy_for("the target lacks part_b").starts_with("implement Part B"));
  CHECK(conformance::remedy_for("the in-process target has no virtual-clock routes (SPEC 7)") ==
        "check over HTTP (drop --in-process)");
  CHECK(conformance::remedy_for("the target replaces [P] rule SES-3").find("overrides") !=
        std::string::npos);
}

TEST_CASE("Remedies speak the terms the target was given in: a file's fields or flags",
          "[verdicts][empty]") {
  // Issue 24.3: "add limited_api_key to the profile" means nothing to a user who gave
  // --base-url and --api-key-env.
  conformance::target_profile file;
  conformance::target_profile flags;
  flags.given_as_flags = true;
  const std::string no_clock = "the target lacks virtual_clock";
  CHECK(conformance::remedy_for(no_clock, &file) ==
        "serve the test clock (SPEC 7) and set \"clock\": \"virtual\" in the profile");
  CHECK(conformance::remedy_for(no_clock, &flags) ==
        "serve the test clock (SPEC 7) and pass --clock virtual");
  CHECK(conformance::remedy_for("the target lacks limited_key", &file) ==
        "add limited_api_key (a key without session.manage) to the profile");
  CHECK(conformance::remedy_for("the target lacks limited_key", &flags) ==
        "pass --limited-api-key-env VAR, VAR holding a key without session.manage");
  CHECK(conformance::remedy_for("the target lacks part_b", &flags) ==
        "implement Part B and pass --parts B (or A,B) with --assistant-id");
  // No tolerance window makes a case timed to the millisecond run on a real clock: the
  // advice is the test clock, not a smaller window (it said "pass a smaller
  // --timing-tolerance-ms" even at 1 ms).
  conformance::target_profile real_clock_flags = flags;
  real_clock_flags.virtual_clock = false;
  real_clock_flags.timing_tolerance_ms = 1;
  CHECK(conformance::remedy_for(
            conformance::not_applicable_reason(exact_timing_plan(), real_clock_flags),
            &real_clock_flags) == "serve the test clock (SPEC 7) and pass --clock virtual");
  CHECK(conformance::remedy_for("the case is timed for result_timeout 10 s", &flags)
            .ends_with("pass them as --ack-timeout-ms, --result-timeout-ms and "
                       "--interrupt-timeout-ms"));
  for (const auto* reason : {"the target lacks virtual_clock", "the target lacks limited_key",
                             "the target lacks part_a", "the target lacks part_b",
                             "the case's times do not fit the target's tolerance window of 9 ms",
                             "settings: need result_timeout 10 s"}) {
    INFO(reason);
    CHECK(conformance::remedy_for(reason, &flags).find("profile") == std::string::npos);
  }
}

TEST_CASE("--repeat labels failures consistent or intermittent", "[verdicts][repeat]") {
  const auto cases = cases_matching("reg.tool-name-6*");
  REQUIRE(cases.size() >= 2);
  conformance::target_choice target;
  target.kind.emplace<conformance::in_process_core>().faults = {
      *toolwire::reference_server::parse_fault("invalid_tool_name_accepted")};
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
    CHECK(r.evidence.back().text() == "repeat: failed 3 of 3 runs (consistent)");
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
  target.kind.emplace<conformance::in_process_core>();
  target.reproduce_flags = {"--settle-ms 40", "--request-timeout-ms 900"};
  conformance::run_settings settings;
  settings.seed = 7;
  auto results = conformance::run_cases(cases, target, settings);
  REQUIRE(results);
  CHECK((*results)[0].reproduce ==
        "toolwire check --filter 'reg.tool-name-65-chars-rejected' --seed 7 --in-process "
        "--settle-ms 40 --request-timeout-ms 900");
}

TEST_CASE("Issue 12: the JUnit failure message is the first failed expectation",
          "[verdicts][reports]") {
  const auto results = run_with_a_failure();
  const auto failed = std::find_if(results.begin(), results.end(),
                                   [](const auto& r) { return r.verdict == verdict::fail; });
  REQUIRE(failed != results.end());
  REQUIRE_FALSE(failed->evidence.empty());
  const auto summary = summary_for_catalog();
  // The evidence names the case file by its path; the report names it under the catalog.
  const std::string first = failed->evidence.front().text();
  const std::string catalog_prefix = summary.catalog_dir + "/";
  REQUIRE(first.starts_with(catalog_prefix));
  const std::string expectation =
      first.substr(catalog_prefix.size(), first.find('\n') - catalog_prefix.size());
  CAPTURE(expectation);
  CHECK(expectation.find("expected response status 400") != std::string::npos);

  const auto junit = reports::junit_xml(results, summary);
  CHECK(attribute_after(junit, "<failure", "message") == reports::xml_escape(expectation));
  CHECK(junit.find(reports::xml_escape(failed->purpose)) != std::string::npos);  // in the body
}

TEST_CASE("Issue 12: no report names the catalog's absolute directory", "[verdicts][reports]") {
  auto results = run_with_a_failure();
  results.push_back(made("clock.get-now", verdict::not_applicable, "the target lacks clock"));
  results.back().file = conformance::default_catalog_dir() + "/clock/get-now.yaml";
  const auto summary = summary_for_catalog();
  const std::string absolute = std::filesystem::absolute(summary.catalog_dir).string();
  REQUIRE(absolute.starts_with("/"));

  const auto junit = reports::junit_xml(results, summary);
  CHECK(junit.find(absolute) == std::string::npos);
  CHECK(junit.find("file=\"reg/tool-name-65-chars-rejected.yaml\"") != std::string::npos);
  const auto markdown = reports::markdown_summary(results, summary);
  CHECK(markdown.find(absolute) == std::string::npos);
  CHECK(markdown.find("`reg/tool-name-65-chars-rejected.yaml`") != std::string::npos);
  // report.json keeps the directory once, for tools that read the case files again.
  const auto json = reports::json_report(results, summary);
  CHECK(json["catalog"] == summary.catalog_dir);
  for (const auto& c : json["cases"]) {
    CHECK_FALSE(c["file"].get<std::string>().starts_with("/"));
    for (const auto& e : c["evidence"])
      CHECK(e.get<std::string>().find(absolute) == std::string::npos);
  }
}

TEST_CASE("Issue 12: not-applicable cases are skipped, never failures", "[verdicts][reports]") {
  const std::vector<case_result> results = {
      made("a.pass", verdict::pass),
      made("a.fail", verdict::fail),
      made("a.warn", verdict::warn),
      made("b.one", verdict::not_applicable, "the target lacks virtual_clock"),
      made("b.two", verdict::not_applicable, "the target lacks virtual_clock"),
  };
  const auto junit = reports::junit_xml(results, {"t", 1, 0.1, {}, 0, 0});
  // The warning is skipped too: three <skipped>, and both totals say so.
  CHECK(occurrences(junit, "<skipped ") == 3);
  CHECK(occurrences(junit, "<skipped message=\"not applicable: the target lacks virtual_clock") ==
        2);
  CHECK(occurrences(junit, "<failure ") == 1);
  CHECK(attribute_after(junit, "<testsuites", "skipped") == "3");
  CHECK(attribute_after(junit, "<testsuite ", "skipped") == "3");
  CHECK(attribute_after(junit, "<testsuite ", "failures") == "1");
}

TEST_CASE("Issue 12: JUnit properties name the run, never its credentials", "[verdicts][reports]") {
  const std::string secret = "sk-live-SECRET-0123456789";
  const std::string limited = "sk-limited-SECRET-9876543210";
  const auto path = temp_file(R"({"name": "acme staging", "base_url": "http://127.0.0.1:9",
    "api_key": ")" + secret + R"(", "limited_api_key": ")" +
                              limited + R"(",
    "parts": ["A"], "model_stand_in": "127.0.0.1:18557", "clock": "virtual"})");
  const auto profile = conformance::load_profile(path);
  std::filesystem::remove(path);
  REQUIRE(profile);
  REQUIRE(profile->api_key == secret);

  auto failed = made("a.fail", verdict::fail);
  failed.evidence = {conformance::evidence_that(conformance::evidence_kind::problem,
                                                "step 1 [REG-1] expected 400; observed 201")};
  failed.reproduce = "toolwire check --filter 'a.fail' --seed 9 --target " + path;
  reports::run_summary summary{profile->name, 9, 0.1, {}, 0, 0};
  summary.toolwire_version = "1.2.3";
  const auto junit = reports::junit_xml({failed, made("a.pass", verdict::pass)}, summary);
  CHECK(junit.find("<property name=\"toolwire_version\" value=\"1.2.3\"/>") != std::string::npos);
  CHECK(junit.find("<property name=\"seed\" value=\"9\"/>") != std::string::npos);
  CHECK(junit.find("<property name=\"target\" value=\"acme staging\"/>") != std::string::npos);
  CHECK(junit.find(secret) == std::string::npos);
  CHECK(junit.find(limited) == std::string::npos);
  CHECK(junit.find("SECRET") == std::string::npos);
}

TEST_CASE("Issue 12: summary.md counts what report.json counts", "[verdicts][reports]") {
  std::vector<case_result> results = {
      made("a.pass", verdict::pass),
      made("a.fail", verdict::fail),
      made("a.warn", verdict::warn),
      made("b.one", verdict::not_applicable, "the target lacks virtual_clock"),
      made("b.two", verdict::not_applicable, "the target lacks virtual_clock"),
      made("c.known", verdict::fail),
      made("d.gone", verdict::error),
  };
  results[5].expected_failure = true;
  const reports::run_summary summary{"t", 1, 0.1, {}, 0, 0};
  const auto markdown = reports::markdown_summary(results, summary);
  const auto totals = reports::json_report(results, summary)["totals"];
  CAPTURE(markdown);
  const std::vector<long> from_json = {totals["cases"],
                                       totals["pass"],
                                       totals["fail"],
                                       totals["error"],
                                       totals["warn"],
                                       totals["not_applicable"],
                                       totals["expected_failures"]};
  CHECK(totals["error"] == 1);
  CHECK(table_row_after(markdown, "| cases |") == from_json);
  SECTION("a group of not-applicable cases has nothing failed") {
    CHECK(markdown.find("| b | 0 | 0 | 0 | 0 | 2 | 0 |") != std::string::npos);
    CHECK(markdown.find("1 of 5 applicable cases passed; 2 of 7 were not applicable.") !=
          std::string::npos);
  }
}

namespace {

//! A browser driver whose tabs never open: every command is refused as a page would refuse
//! it (invalid_request), and each command is kept.
struct refusing_tabs final : toolwire::actors::tab_driver {
  std::vector<std::string> commands;
  toolwire::protocol::outcome<toolwire::protocol::json> command(
      const toolwire::protocol::json& c) override {
    commands.push_back(c.value("cmd", ""));
    return toolwire::protocol::invalid_request("the tab did not register");
  }
};

}  // namespace

TEST_CASE("Issue 22.3: browser cases run only with --browser, after the others, and say so",
          "[verdicts][browser]") {
  auto cases = cases_matching("browser.two-tabs-of-one-app");
  REQUIRE(cases.size() == 1);
  REQUIRE(conformance::opens_tabs(cases.front()));
  // The browser case first in the list: it still runs last.
  for (auto& c : cases_matching("reg.tool-name-6*"))
    cases.push_back(std::move(c));
  REQUIRE(cases.size() == 3);
  conformance::target_choice bundled;  // the bundled server on its virtual clock

  SECTION("without a driver: not applicable, with --browser as the remedy") {
    auto results = conformance::run_cases(cases, bundled, {});
    REQUIRE(results);
    const auto& r = results->front();
    CHECK(r.verdict == verdict::not_applicable);
    CHECK(r.not_applicable_because == conformance::no_browser_reason);
    CHECK(r.applicable_if.starts_with("pass --browser"));
    CHECK(r.reproduce.ends_with(" --browser"));
    CHECK((*results)[1].reproduce.find("--browser") == std::string::npos);
    CHECK_FALSE(conformance::estimate_wall_time(cases, bundled, 16, false));
  }
  SECTION("in-process the target's own reason comes first: --browser would not help") {
    conformance::target_choice in_process;
    in_process.kind.emplace<conformance::in_process_core>();
    auto results = conformance::run_cases(cases, in_process, {});
    REQUIRE(results);
    CHECK(results->front().not_applicable_because.find("in-process") != std::string::npos);
  }
  SECTION("with a driver: run after the other cases, its tab's refusal a failed step") {
    refusing_tabs tabs;
    conformance::run_settings settings;
    settings.jobs = 2;
    settings.browser = &tabs;
    std::vector<std::string> finished;
    settings.progress = [&](const case_result& r, std::size_t, std::size_t) {
      finished.push_back(r.id);
    };
    auto results = conformance::run_cases(cases, bundled, settings);
    REQUIRE(results);
    REQUIRE(finished.size() == 3);
    CHECK(finished.back() == "browser.two-tabs-of-one-app");
    const auto& r = results->front();  // results keep the order of `cases`
    CHECK(r.id == "browser.two-tabs-of-one-app");
    CHECK(r.verdict == verdict::fail);
    REQUIRE_FALSE(r.evidence.empty());
    CHECK(r.evidence.front().text().find("the tab did not register") != std::string::npos);
    CHECK(std::find(tabs.commands.begin(), tabs.commands.end(), "open") != tabs.commands.end());
    // The estimate counts it, one at a time, though the bundled server's clock is virtual.
    const auto estimate = conformance::estimate_wall_time(cases, bundled, 16, true);
    REQUIRE(estimate);
    CHECK(estimate->longest_case == "browser.two-tabs-of-one-app");
    CHECK(estimate->seconds == Approx(estimate->longest_seconds));
  }
}
