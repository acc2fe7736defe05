// Report writers.
#include "toolwire/reports/reports.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "toolwire/conformance/outside_data.hpp"

namespace toolwire::reports {

namespace {

using conformance::case_result;
using conformance::verdict;

std::string group_of(const std::string& id) {
  const auto dot = id.find('.');
  return dot == std::string::npos ? "catalog" : id.substr(0, dot);
}

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (const auto& item : items)
    text += (text.empty() ? "" : separator) + item;
  return text;
}

std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", seconds);
  return buffer;
}

std::string verdict_label(const case_result& r) {
  if (r.expected_failure) return r.known_flaky ? "known flaky" : "expected failure";
  return conformance::to_string(r.verdict);
}

//! The verdict with --repeat's label, e.g. "fail, intermittent".
std::string label(const case_result& r) {
  const std::string text = verdict_label(r);
  return r.repeat_label.empty() ? text : text + ", " + r.repeat_label;
}

std::string why_not_applicable(const case_result& r) {
  std::string text = "not applicable: " + r.not_applicable_because;
  if (!r.applicable_if.empty()) text += "; to run it: " + r.applicable_if;
  return text;
}

std::string percent_text(std::size_t part, std::size_t whole) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f",
                whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buffer;
}

}  // namespace

tally count(const std::vector<case_result>& results) {
  tally t;
  for (const auto& r : results) {
    if (r.expected_failure) {
      ++t.expected_failures;
      continue;
    }
    switch (r.verdict) {
      case verdict::pass:
        ++t.pass;
        break;
      case verdict::fail:
        ++t.fail;
        break;
      case verdict::warn:
        ++t.warn;
        break;
      case verdict::not_applicable:
        ++t.not_applicable;
        break;
    }
  }
  return t;
}

std::string xml_escape(std::string_view raw) {
  // Why: an XML document is UTF-8; a target's stray bytes must not make it unreadable.
  const std::string text = conformance::escape_invalid_utf8(raw);
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters, even escaped.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') out += c;
    }
  }
  return out;
}

std::string junit_xml(const std::vector<case_result>& results, const run_summary& summary) {
  const auto t = count(results);
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"toolwire check\" tests=\"" << results.size() << "\" failures=\""
      << t.fail << "\" skipped=\"" << t.warn + t.not_applicable + t.expected_failures
      << "\" time=\"" << seconds_text(summary.seconds) << "\">\n"
      << "  <testsuite name=\"" << xml_escape(summary.target) << "\" tests=\"" << results.size()
      << "\" failures=\"" << t.fail << "\" time=\"" << seconds_text(summary.seconds) << "\">\n";
  for (const auto& r : results) {
    out << "    <testcase classname=\"" << xml_escape(group_of(r.id)) << "\" name=\""
        << xml_escape(r.id) << "\" file=\"" << xml_escape(r.file) << "\" time=\""
        << seconds_text(r.seconds) << "\">\n";
    const std::string ids = joined(r.spec_ids, ", ");
    if (r.verdict == verdict::fail && !r.expected_failure) {
      const std::string repeat = r.repeat_label.empty() ? "" : " [" + r.repeat_label + "]";
      out << "      <failure message=\"" << xml_escape(ids + ": " + r.purpose + repeat)
          << "\" type=\"" << xml_escape(r.tag) << "\">" << xml_escape(joined(r.evidence, "\n\n"))
          << "\n\nreproduce: " << xml_escape(r.reproduce) << "</failure>\n";
    } else if (r.verdict != verdict::pass || r.expected_failure) {
      const std::string why = r.verdict == verdict::not_applicable
                                  ? why_not_applicable(r)
                                  : label(r) + " (" + ids + "): " + joined(r.evidence, " | ");
      out << "      <skipped message=\"" << xml_escape(why) << "\"/>\n";
    }
    out << "      <properties><property name=\"spec\" value=\"" << xml_escape(ids)
        << "\"/><property name=\"seed\" value=\"" << r.seed << "\"/></properties>\n"
        << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

protocol::json json_report(const std::vector<case_result>& results, const run_summary& summary) {
  const auto t = count(results);
  protocol::json cases = protocol::json::array();
  for (const auto& r : results) {
    cases.push_back(
        {{"id", r.id},
         {"file", r.file},
         {"spec", r.spec_ids},
         {"tag", r.tag},
         {"purpose", r.purpose},
         {"verdict", verdict_label(r)},
         {"not_applicable_because", r.not_applicable_because},
         {"applicable_if", r.applicable_if},
         {"repeat", r.repeat_label.empty() ? protocol::json(nullptr)
                                           : protocol::json{{"label", r.repeat_label},
                                                            {"reruns", r.reruns},
                                                            {"rerun_failures", r.rerun_failures}}},
         {"known_flaky", r.known_flaky},
         {"evidence", r.evidence},
         {"seed", r.seed},
         {"seconds", r.seconds},
         {"reproduce", r.reproduce},
         {"trace", r.trace}});
  }
  const auto status = status_of(results, summary);
  protocol::json reasons = protocol::json::array();
  for (const auto& g : not_applicable_groups(results)) {
    reasons.push_back(
        {{"reason", g.reason}, {"applicable_if", g.applicable_if}, {"cases", g.cases}});
  }
  return {{"toolwire_report", 1},
          {"target", summary.target},
          {"exit_code", status.exit_code},
          {"status", status.message},
          {"applicable_percent",
           results.empty() ? 0.0
                           : 100.0 * static_cast<double>(results.size() - t.not_applicable) /
                                 static_cast<double>(results.size())},
          {"min_applicable_percent", summary.min_applicable_pct},
          {"repeat", summary.repeat},
          {"not_applicable_reasons", reasons},
          {"seed", summary.seed},
          {"seconds", summary.seconds},
          {"totals",
           {{"cases", results.size()},
            {"pass", t.pass},
            {"fail", t.fail},
            {"warn", t.warn},
            {"not_applicable", t.not_applicable},
            {"expected_failures", t.expected_failures}}},
          {"stale_baseline", summary.stale_baseline},
          {"cases", cases}};
}

std::string markdown_summary(const std::vector<case_result>& results, const run_summary& summary) {
  const auto t = count(results);
  std::ostringstream out;
  const auto status = status_of(results, summary);
  const char* headline = status.exit_code == 0   ? "passed"
                         : status.exit_code == 2 ? "NOTHING WAS CHECKED"
                                                 : "FAILED";
  out << "## toolwire check: " << headline << " against " << summary.target << "\n\n";
  if (!status.message.empty()) out << "**" << status.message << "**\n\n";
  out << "| cases | pass | fail | warn | not applicable | expected failures |\n"
      << "|---:|---:|---:|---:|---:|---:|\n"
      << "| " << results.size() << " | " << t.pass << " | " << t.fail << " | " << t.warn << " | "
      << t.not_applicable << " | " << t.expected_failures << " |\n\n";
  std::map<std::string, std::pair<int, int>> groups;  // group -> (passed, cases)
  for (const auto& r : results) {
    auto& g = groups[group_of(r.id)];
    ++g.second;
    if (r.verdict == verdict::pass) ++g.first;
  }
  out << "| group | passed |\n|---|---:|\n";
  for (const auto& [group, g] : groups)
    out << "| " << group << " | " << g.first << "/" << g.second << " |\n";
  bool header = false;
  for (const auto& r : results) {
    if (r.verdict != verdict::fail && r.verdict != verdict::warn) continue;
    if (!header) out << "\n### Failures and warnings\n";
    header = true;
    out << "\n**" << r.id << "** (" << label(r) << ", " << joined(r.spec_ids, ", ") << ") — "
        << r.purpose << "\n\n```\n"
        << joined(r.evidence, "\n") << "\n```\nReproduce: `" << r.reproduce << "`\n";
  }
  const auto groups_na = not_applicable_groups(results);
  if (!groups_na.empty()) out << "\n### Not applicable\n";
  for (const auto& g : groups_na) {
    out << "\n- " << g.reason << " (" << g.cases.size()
        << " cases). To run them: " << g.applicable_if << ".\n  " << joined(g.cases, ", ") << "\n";
  }
  if (!summary.stale_baseline.empty()) {
    out << "\n### Stale baseline\nListed as expected failures but passed: "
        << joined(summary.stale_baseline, ", ") << "\n";
  }
  out << "\nSeed " << summary.seed << ", " << seconds_text(summary.seconds) << " s.\n";
  return out.str();
}

run_status status_of(const std::vector<case_result>& results, const run_summary& summary) {
  const auto t = count(results);
  const std::size_t ran = results.size() - t.not_applicable;
  if (ran == 0) {
    std::string message = "nothing was checked: ";
    if (results.empty()) return {2, message + "no case was selected"};
    message += "all " + std::to_string(results.size()) + " cases were not applicable";
    const auto groups = not_applicable_groups(results);
    for (std::size_t i = 0; i < groups.size(); ++i) {
      message +=
          (i == 0 ? " (" : "; ") + groups[i].reason + ": " + std::to_string(groups[i].cases.size());
    }
    return {2, message + (groups.empty() ? "" : ")")};
  }
  if (summary.min_applicable_pct > 0 &&
      100 * ran < static_cast<std::size_t>(summary.min_applicable_pct) * results.size()) {
    return {1, "only " + percent_text(ran, results.size()) + "% of the cases ran (" +
                   std::to_string(ran) + " of " + std::to_string(results.size()) +
                   "); --min-applicable asks for " + std::to_string(summary.min_applicable_pct) +
                   "%"};
  }
  if (t.fail > 0 || !summary.stale_baseline.empty()) return {1, ""};
  return {0, ""};
}

std::vector<not_applicable_group> not_applicable_groups(const std::vector<case_result>& results) {
  std::vector<not_applicable_group> groups;
  std::map<std::string, std::size_t> index;
  for (const auto& r : results) {
    if (r.verdict != verdict::not_applicable) continue;
    auto [it, added] = index.emplace(r.not_applicable_because, groups.size());
    if (added) groups.push_back({r.not_applicable_because, r.applicable_if, {}});
    groups[it->second].cases.push_back(r.id);
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.cases.size() > b.cases.size(); });
  return groups;
}

}  // namespace toolwire::reports
