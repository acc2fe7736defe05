// Report writers.
#include "toolwire/reports/reports.hpp"

#include <cstdio>
#include <map>
#include <sstream>

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

std::string label(const case_result& r) {
  if (r.expected_failure) return "expected failure";
  return conformance::to_string(r.verdict);
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

std::string xml_escape(std::string_view text) {
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
      out << "      <failure message=\"" << xml_escape(ids + ": " + r.purpose) << "\" type=\""
          << xml_escape(r.tag) << "\">" << xml_escape(joined(r.evidence, "\n\n"))
          << "\n\nreproduce: " << xml_escape(r.reproduce) << "</failure>\n";
    } else if (r.verdict != verdict::pass || r.expected_failure) {
      const std::string why = r.verdict == verdict::not_applicable
                                  ? "not applicable: " + r.not_applicable_because
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
    cases.push_back({{"id", r.id},
                     {"file", r.file},
                     {"spec", r.spec_ids},
                     {"tag", r.tag},
                     {"purpose", r.purpose},
                     {"verdict", label(r)},
                     {"not_applicable_because", r.not_applicable_because},
                     {"evidence", r.evidence},
                     {"seed", r.seed},
                     {"seconds", r.seconds},
                     {"reproduce", r.reproduce},
                     {"trace", r.trace}});
  }
  return {{"toolwire_report", 1},
          {"target", summary.target},
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
  const bool ok = t.fail == 0 && summary.stale_baseline.empty();
  out << "## toolwire check: " << (ok ? "passed" : "FAILED") << " against " << summary.target
      << "\n\n"
      << "| cases | pass | fail | warn | not applicable | expected failures |\n"
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
  if (!summary.stale_baseline.empty()) {
    out << "\n### Stale baseline\nListed as expected failures but passed: "
        << joined(summary.stale_baseline, ", ") << "\n";
  }
  out << "\nSeed " << summary.seed << ", " << seconds_text(summary.seconds) << " s.\n";
  return out.str();
}

}  // namespace toolwire::reports
