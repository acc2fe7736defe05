// The HTML report (issue 12, item 1): made from report.json's data, counts that agree
// with it, a sequence diagram per failed case with a lane per actor and an arrow per
// drawn trace record, nothing fetched from anywhere, and every foreign text escaped.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "toolwire/actors/trace.hpp"
#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/conformance/runner.hpp"
#include "toolwire/reports/html.hpp"
#include "toolwire/reports/reports.hpp"

namespace conformance = toolwire::conformance;
namespace reports = toolwire::reports;
using conformance::case_result;
using conformance::verdict;
using toolwire::protocol::json;

namespace {

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t found = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++found;
  return found;
}

//! A life-cycle case fails against this fault with a client lane, events, a model
//! exchange and failed expectations; the tool-name case passes.
std::vector<case_result> run_with_failures() {
  auto loaded = conformance::load_catalog(conformance::default_catalog_dir());
  REQUIRE(loaded);
  auto cases = conformance::filter_cases(std::move(*loaded), "life.open-call-fails-on-leave");
  auto passing = conformance::filter_cases(
      std::move(*conformance::load_catalog(conformance::default_catalog_dir())),
      "reg.tool-name-64-chars-accepted");
  REQUIRE(cases.size() == 1);
  REQUIRE(passing.size() == 1);
  cases.push_back(passing.front());
  conformance::target_choice target;
  target.kind.emplace<conformance::in_process_core>().faults = {
      *toolwire::reference_server::parse_fault("vanished_calls_left_open")};
  auto results = conformance::run_cases(cases, target, {});
  REQUIRE(results);
  REQUIRE((*results)[0].verdict == verdict::fail);
  REQUIRE((*results)[1].verdict == verdict::pass);
  return *results;
}

reports::run_summary summary_for_catalog() {
  reports::run_summary summary{"acme <staging>", 1, 0.25, {}, 0, 0};
  summary.catalog_dir = conformance::default_catalog_dir();
  summary.toolwire_version = "9.8.7";
  summary.started_at = "2026-12-01T16:26:03Z";
  return summary;
}

//! The text from `start` up to and including the first `end` after it.
std::string element(const std::string& html, const std::string& start, const std::string& end) {
  const auto from = html.find(start);
  REQUIRE(from != std::string::npos);
  const auto to = html.find(end, from);
  REQUIRE(to != std::string::npos);
  return html.substr(from, to + end.size() - from);
}

//! The number in `<td ... data-count="key">N</td>`.
long count_cell(const std::string& html, const std::string& key) {
  const std::string cell =
      element(html, std::string("data-count=\"").append(key).append("\">"), "</td>");
  return std::stol(cell.substr(cell.find('>') + 1));
}

}  // namespace

TEST_CASE("Issue 12.1: the HTML summary counts what report.json counts", "[reports][html]") {
  auto results = run_with_failures();
  case_result na;
  na.id = "clock.get-now";
  na.verdict = verdict::not_applicable;
  na.not_applicable_because = "the target lacks virtual_clock";
  results.push_back(na);
  const auto report = reports::json_report(results, summary_for_catalog());
  const auto html = reports::html_report(report);
  const auto& totals = report["totals"];
  for (const char* key : {"pass", "fail", "warn", "not_applicable", "expected_failures"}) {
    CAPTURE(key);
    CHECK(count_cell(html, key) == totals[key].get<long>());
  }
  CHECK(html.find("<dt>cases applied</dt><dd>2 of 3 (66.7%)</dd>") != std::string::npos);
  CHECK(html.find("<dd>9.8.7</dd>") != std::string::npos);
  CHECK(html.find("<dd>2026-12-01T16:26:03Z</dd>") != std::string::npos);
  CHECK(html.find("<dt>seed</dt><dd>1</dd>") != std::string::npos);
  // The target's name is foreign text too.
  CHECK(html.find("acme &lt;staging&gt;") != std::string::npos);
  CHECK(html.find("acme <staging>") == std::string::npos);
  // Made from the JSON alone: the same page from the JSON read back from its file.
  CHECK(reports::html_report(json::parse(conformance::safe_dump(report, 1))) == html);
}

TEST_CASE("Issue 12.1: a failed case's diagram has a lane per actor and an arrow per record",
          "[reports][html]") {
  const auto results = run_with_failures();
  const auto report = reports::json_report(results, summary_for_catalog());
  const auto html = reports::html_report(report);
  const case_result& failed = results[0];
  const std::string svg =
      element(html, std::string("<svg class=\"seq\" data-case=\"").append(failed.id).append("\""),
              "</svg>");

  SECTION("lanes: the director, each client, the target, the model stand-in") {
    std::vector<std::string> actors;
    for (const auto& r : failed.trace) {
      const std::string actor = r["actor"];
      if (actor != "director" && actor != "target" && actor != "model" &&
          std::find(actors.begin(), actors.end(), actor) == actors.end())
        actors.push_back(actor);
    }
    REQUIRE(actors == std::vector<std::string>{"tab"});
    CHECK(occurrences(svg, "<g class=\"lane\"") == 3 + actors.size());
    for (const char* lane : {"director", "tab", "target", "model"})
      CHECK(svg.find(std::string("data-lane=\"").append(lane).append("\"")) != std::string::npos);
  }
  SECTION("one arrow per request, response, event, delivery and model exchange") {
    std::size_t drawn = 0, model = 0;
    for (const auto& r : failed.trace) {
      const std::string kind = r["kind"];
      if (reports::drawn_as_arrow(kind)) ++drawn;
      if (kind == "model_step" || kind == "model_reply") ++model;
    }
    REQUIRE(failed.trace.size() < reports::max_diagram_records);
    REQUIRE(model >= 2);
    CHECK(occurrences(svg, "<g class=\"arrow ") == drawn);
    CHECK(occurrences(svg, "<g class=\"arrow k-model_step\"") +
              occurrences(svg, "<g class=\"arrow k-model_reply\"") ==
          model);
    CHECK(occurrences(svg, "<g class=\"arrow ") + occurrences(svg, "<g class=\"mark ") ==
          failed.trace.size());
  }
  SECTION("each failed expectation is a red marker, at the time it was checked") {
    std::size_t timed = 0;
    for (const auto& e : failed.evidence)
      if (e.at_ms) ++timed;
    REQUIRE(timed >= 1);
    CHECK(occurrences(svg, "<g class=\"failed\">") == timed);
    // The expectations of this case are checked at 4000 ms: the marker rows come after
    // the time tick 4000 and before the next one...
    const auto tick = svg.find(">4000</text>");
    REQUIRE(tick != std::string::npos);
    const auto marker = svg.find("<g class=\"failed\">");
    CHECK(marker > tick);
    // ...and after every record of 4000 ms: an expectation is checked once its time settled.
    const auto last_at_4000 = svg.rfind("<title>4000 ms ");
    REQUIRE(last_at_4000 != std::string::npos);
    CHECK(last_at_4000 < marker);
    CHECK(svg.find("<g class=\"tick\">", tick) > marker);
  }
  SECTION("the expected and observed of each failed expectation, and the reproduce command") {
    CHECK(occurrences(html, "<td class=\"exp mono\">") >= 1);
    CHECK(html.find(reports::xml_escape(failed.reproduce)) != std::string::npos);
    CHECK(html.find("LIFE-5</a> [S] calls open on an ended client fail") != std::string::npos);
  }
  SECTION("the wire log lists every record, the passing case has neither") {
    const std::string log = element(html, "<details class=\"wirelog\">", "</table></details>");
    CHECK(occurrences(log, "<tr class=\"k-") == failed.trace.size());
    CHECK(occurrences(html, "<svg class=\"seq\"") == 1);
    CHECK(occurrences(html, "<details class=\"wirelog\">") == 1);
    const auto all = reports::html_report(report, {.all_cases = true});
    CHECK(occurrences(all, "<svg class=\"seq\"") == 2);
  }
}

TEST_CASE("Issue 12.1: the HTML report requests nothing and has its filters", "[reports][html]") {
  const auto html = reports::html_report(
      reports::json_report(run_with_failures(), summary_for_catalog()), {.all_cases = true});
  // No element loads anything: no src= at all, no stylesheet link, and every href is an
  // anchor on the page (the traces themselves name http:// URLs, as text).
  CHECK(html.find(" src=") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("url(") == std::string::npos);
  CHECK(html.find("@import") == std::string::npos);
  const std::regex href("href=\"([^\"]*)\"");
  std::size_t hrefs = 0;
  for (std::sregex_iterator it(html.begin(), html.end(), href), end; it != end; ++it) {
    ++hrefs;
    CHECK((*it)[1].str().starts_with("#"));
  }
  CHECK(hrefs > 0);
  CHECK(html.find("<input type=\"checkbox\" id=\"f-failed\">") != std::string::npos);
  CHECK(html.find("<select id=\"f-group\">") != std::string::npos);
  CHECK(html.find("<option>life</option>") != std::string::npos);
  CHECK(html.find("<select id=\"f-rule\">") != std::string::npos);
  CHECK(html.find("<option>LIFE-5</option>") != std::string::npos);
  CHECK(html.find("data-group=\"life\"") != std::string::npos);
  CHECK(html.find("data-rules=\"LIFE-5 LIFE-4\"") != std::string::npos);
  CHECK(occurrences(html, "<script>") == 1);
}

TEST_CASE("Issue 12.1: the requirement matrix has a row per cited rule with its cases",
          "[reports][html]") {
  const auto results = run_with_failures();
  const auto html = reports::html_report(reports::json_report(results, summary_for_catalog()));
  const std::string matrix = element(html, "<section id=\"matrix\">", "</section>");
  std::vector<std::string> cited;
  for (const auto& r : results)
    for (const auto& id : r.spec_ids)
      if (std::find(cited.begin(), cited.end(), id) == cited.end()) cited.push_back(id);
  CHECK(occurrences(matrix, "<tr class=\"r-") == cited.size());
  // LIFE-5 is cited by the failed case only: its row is red, with its SPEC text.
  const std::string row = element(matrix, "data-rule=\"LIFE-5\"", "</tr>");
  CHECK(matrix.find("<tr class=\"r-fail\" data-rule=\"LIFE-5\"") != std::string::npos);
  CHECK(row.find("[S] calls open on an ended client fail; the turn goes on") != std::string::npos);
  CHECK(row.find("<a class=\"chip v-fail\" href=\"#case-life.open-call-fails-on-leave\"") !=
        std::string::npos);
  CHECK(html.find("id=\"case-life.open-call-fails-on-leave\"") != std::string::npos);
  const std::string reg = element(matrix, "data-rule=\"REG-1\"", "</tr>");
  CHECK(matrix.find("<tr class=\"r-pass\" data-rule=\"REG-1\"") != std::string::npos);
  CHECK(reg.find("chip v-pass") != std::string::npos);
}

TEST_CASE("Issue 12.1: foreign text in the HTML report is escaped, invalid UTF-8 too",
          "[reports][html]") {
  auto results = run_with_failures();
  case_result& failed = results[0];
  // What a hostile target could send: markup in a body and an event, bytes that are not
  // UTF-8 in a header-like string and in a body.
  failed.trace.push_back({{"at", 4000},
                          {"actor", "tab"},
                          {"kind", "response"},
                          {"data",
                           {{"method", "GET"},
                            {"path", "/v1/x\"><script>alert(1)</script>"},
                            {"status", 200},
                            {"body",
                             {{"note", "</pre><script>alert(2)</script>"},
                              {"raw", std::string("caf\xC3\x28 \xFF")}}}}}});
  toolwire::conformance::evidence hostile;
  hostile.kind = toolwire::conformance::evidence_kind::expectation;
  hostile.where = "x.yaml:1";
  hostile.spec_ids = {"LIFE-5"};
  hostile.expected = "<b>";
  hostile.at_ms = 4000;
  hostile.observed = std::string("<img onerror=alert(3)> \xFE");
  failed.evidence.push_back(hostile);
  const auto report = reports::json_report(results, summary_for_catalog());
  std::string html;
  REQUIRE_NOTHROW(html = reports::html_report(report, {.all_cases = true}));
  CHECK(occurrences(html, "<script>") == 1);  // the page's own
  CHECK(html.find("alert(1)") != std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(html.find("&lt;/pre&gt;&lt;script&gt;alert(2)") != std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("&lt;img onerror=alert(3)&gt; \\xFE") != std::string::npos);
  CHECK(html.find("expected &lt;b&gt;") != std::string::npos);
  // The page is UTF-8 throughout: every byte not part of UTF-8 was rewritten.
  CHECK_FALSE(conformance::first_invalid_utf8(html).has_value());
}

TEST_CASE("Issue 12.1: credentials stay redacted in the HTML report", "[reports][html]") {
  // The trace redacts a secret as it records it (actors::trace::add_secret, and credential
  // fields by name); the report copies the trace and adds nothing of the profile's.
  const std::string secret = "sk-live-SECRET-0123456789";
  toolwire::actors::trace trace;
  trace.add_secret(secret);
  trace.add(0, "tab", "request",
            {{"method", "POST"},
             {"path", "/v1/sessions"},
             {"credential", secret},
             {"body", {{"note", std::string("the key is ").append(secret)}}}});
  trace.add(0, "tab", "response",
            {{"method", "POST"},
             {"path", "/v1/sessions"},
             {"status", 201},
             {"body", {{"token", "tok-fresh-not-yet-a-secret"}}}});
  auto results = run_with_failures();
  results[0].trace = json::array();
  for (const auto& r : trace.records())
    results[0].trace.push_back(
        {{"at", r.at}, {"actor", r.actor}, {"kind", r.kind}, {"data", r.data}});
  const auto html = reports::html_report(reports::json_report(results, summary_for_catalog()),
                                         {.all_cases = true});
  CHECK(html.find("SECRET") == std::string::npos);
  CHECK(html.find("tok-fresh") == std::string::npos);
  CHECK(html.find("the key is &lt;redacted&gt;") != std::string::npos);
}

TEST_CASE("Issue 23.4: evidence is typed, and no report reads its words back",
          "[reports][html][evidence]") {
  auto results = run_with_failures();
  case_result& failed = results[0];
  // An expectation whose own words hold what a text parser would split on: a body the
  // scenario expects, written with " at 5 ms; observed: " in it.
  toolwire::conformance::evidence tricky;
  tricky.kind = toolwire::conformance::evidence_kind::expectation;
  tricky.where = "x.yaml:7";
  tricky.spec_ids = {"CALL-8"};
  tricky.expected = R"(body {"note":"] expected 1 at 5 ms; observed: 2"})";
  tricky.at_ms = 4000;
  tricky.observed = "status 500";
  failed.evidence = {tricky};
  const auto report = reports::json_report(results, summary_for_catalog());
  const auto& detail = report["cases"][0]["evidence_detail"];
  REQUIRE(detail.size() == 1);
  CHECK(detail[0]["kind"] == "expectation");
  CHECK(detail[0]["where"] == "x.yaml:7");
  CHECK(detail[0]["expected"] == tricky.expected);
  CHECK(detail[0]["at_ms"] == 4000);
  CHECK(detail[0]["observed"] == "status 500");
  CHECK(toolwire::conformance::evidence::from_json(detail[0]) == tricky);
  // report.json keeps its text too, as before.
  CHECK(report["cases"][0]["evidence"][0].get<std::string>().starts_with(
      R"(x.yaml:7 [CALL-8] expected body {"note":"] expected 1 at 5 ms; observed: 2"} at 4000 ms; observed: status 500)"));
  const auto html = reports::html_report(report);
  // Each field in its own cell, whole.
  CHECK(
      html.find(
          R"(<td class="exp mono">body {&quot;note&quot;:&quot;] expected 1 at 5 ms; observed: 2&quot;})") !=
      std::string::npos);
  CHECK(html.find(R"(<td class="obs mono">status 500</td>)") != std::string::npos);
  CHECK(html.find("x.yaml:7 [CALL-8]<br>at 4000 ms") != std::string::npos);
}

namespace {

//! A failed browser case as the runner leaves it: its tab's screenshot in a scratch file
//! (`bytes`) that the tab_evidence record names, with the tab's console and page log.
case_result browser_case(const std::string& png_path, const std::string& bytes, verdict v) {
  {
    std::ofstream out(png_path, std::ios::binary);
    out << bytes;
  }
  case_result r;
  r.id = "browser.model-highlights-a-row";
  r.spec_ids = {"CALL-1"};
  r.verdict = v;
  if (v != verdict::pass) {
    r.evidence = {conformance::evidence_that(conformance::evidence_kind::step_error, "no row")};
  }
  r.trace = json::array(
      {{{"at", 0}, {"actor", "director"}, {"kind", "request"}, {"data", {{"method", "POST"}}}},
       {{"at", 3400},
        {"actor", "tab"},
        {"kind", "tab_evidence"},
        {"data",
         {{"tab", "tab"},
          {"screenshot", png_path},
          {"console", {"error: row <b>9</b> is out of range"}},
          {"page_log", {"stream open", "call call_1: answered with an error"}}}}}});
  return r;
}

}  // namespace

TEST_CASE("Issue 22.6: a failed browser case shows each tab's screenshot, console and log",
          "[reports][html][browser]") {
  const auto dir = std::filesystem::temp_directory_path() / "toolwire-html-tabs-test";
  std::filesystem::create_directories(dir);
  const std::string png = (dir / "tab.png").string();
  const std::string bytes = "\x89PNG\r\n\x1a\ntoolwire!";
  const std::string encoded = "iVBORw0KGgp0b29sd2lyZSE=";  // base64 of `bytes`, by Python

  auto failed = browser_case(png, bytes, verdict::fail);
  conformance::embed_screenshots(failed);
  CHECK_FALSE(std::filesystem::exists(png));  // the scratch file goes
  const auto& data = failed.trace[1]["data"];
  CHECK(data.value("screenshot_png", "") == encoded);
  CHECK_FALSE(data.contains("screenshot"));  // its path named a file that is gone

  const auto html = reports::html_report(reports::json_report({failed}, summary_for_catalog()));
  CHECK(html.find("<img alt=\"the tab 'tab' at the end of the run\" src=\"data:image/png;base64," +
                  encoded + "\">") != std::string::npos);
  CHECK(occurrences(html, encoded) == 1);  // not again in the wire log
  CHECK(html.find("Console (1 line)</p><pre>error: row &lt;b&gt;9&lt;/b&gt; is out of range") !=
        std::string::npos);
  CHECK(html.find("Page log (2 lines)") != std::string::npos);
  // Beside the sequence diagram: after it, before the wire log.
  const auto diagram = html.find("<summary>Sequence diagram</summary>");
  const auto tab = html.find("Tab 'tab' at the end of the run");
  CHECK(diagram < tab);
  CHECK(tab < html.find("<summary>Wire log"));

  SECTION("a passing case keeps no screenshot, and its file goes too") {
    auto passed = browser_case(png, bytes, verdict::pass);
    conformance::embed_screenshots(passed);
    CHECK_FALSE(std::filesystem::exists(png));
    CHECK_FALSE(passed.trace[1]["data"].contains("screenshot_png"));
    CHECK_FALSE(passed.trace[1]["data"].contains("screenshot"));
  }
  SECTION("a report read back with a screenshot that is not base64 shows no image") {
    auto forged = reports::json_report({failed}, summary_for_catalog());
    for (auto& c : forged["cases"]) {
      for (auto& record : c["trace"])
        if (record["kind"] == "tab_evidence")
          record["data"]["screenshot_png"] = "AAAA\"><script>alert(1)</script>";
    }
    const auto page = reports::html_report(forged);
    CHECK(page.find("data:image/png") == std::string::npos);
    CHECK(occurrences(page, "<script>") == 1);  // the page's own
  }
  std::filesystem::remove_all(dir);
}
