// `toolwire report compare`: the target x case matrix of several runs.
#include <catch2/catch.hpp>

#include "toolwire/reports/compare.hpp"

using toolwire::protocol::json;
namespace reports = toolwire::reports;

namespace {

json report_of(const std::string& target, const json& verdicts) {
  json cases = json::array();
  for (const auto& [id, verdict] : verdicts.items())
    cases.push_back({{"id", id}, {"verdict", verdict}, {"trace", json::array()}});
  return {{"toolwire_report", 1}, {"target", target}, {"cases", cases}};
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++n;
  return n;
}

const std::vector<reports::compared_run> two_runs = {
    {"ours", report_of("ours", {{"reg.a", "pass"}, {"reg.b", "fail"}, {"ses.c", "pass"}})},
    {"theirs<b>",
     report_of("theirs<b>", {{"reg.a", "pass"}, {"reg.b", "pass"}, {"task.d", "not applicable"}})}};

}  // namespace

TEST_CASE("The matrix holds every case of any run and marks those whose verdicts differ",
          "[reports][compare]") {
  const auto c = reports::compare_runs(two_runs);
  CHECK(c.case_ids == std::vector<std::string>{"reg.a", "reg.b", "ses.c", "task.d"});
  CHECK(c.verdicts[1] == std::vector<std::string>{"fail", "pass"});
  CHECK(c.verdicts[2] == std::vector<std::string>{"pass", ""});  // absent from the second
  CHECK(c.differs == std::vector<bool>{false, true, true, true});
  CHECK(c.differing == 3);
  CHECK(c.passed == std::vector<std::size_t>{2, 2});
  CHECK(c.failed == std::vector<std::size_t>{1, 0});
  CHECK(c.present == std::vector<std::size_t>{3, 3});
}

TEST_CASE("Markdown lists the differing cases first, or only them", "[reports][compare]") {
  const auto c = reports::compare_runs(two_runs);
  const auto md = reports::compare_markdown(c);
  CHECK(md.find("4 cases, 3 with differing verdicts") != std::string::npos);
  CHECK(md.find("| **reg.b** | fail | pass |") < md.find("| reg.a | pass | pass |"));
  CHECK(md.find("| **ses.c** | pass | \u2014 |") != std::string::npos);
  const auto only = reports::compare_markdown(c, /*differences_only=*/true);
  CHECK(only.find("reg.a") == std::string::npos);
  CHECK(occurrences(only, "| **") == 3);
}

TEST_CASE("The HTML matrix is one escaped page with a row per case", "[reports][compare]") {
  const auto html = reports::compare_html(reports::compare_runs(two_runs));
  CHECK(occurrences(html, "<tr class=\"differs\">") == 3);
  CHECK(occurrences(html, "<td class=\"absent\">") == 2);
  CHECK(html.find("theirs&lt;b&gt;") != std::string::npos);
  CHECK(html.find("theirs<b>") == std::string::npos);
  CHECK(html.find("http://") == std::string::npos);
  CHECK(html.find("https://") == std::string::npos);
  CHECK(html.find("id=\"f-differs\"") != std::string::npos);
}

TEST_CASE("Runs of one target are told apart by their files", "[reports][compare]") {
  CHECK(
      reports::run_labels({"srv", "srv", "other", ""}, {"a.json", "b.json", "c.json", "d.json"}) ==
      std::vector<std::string>{"srv (a.json)", "srv (b.json)", "other", "d.json"});
}
