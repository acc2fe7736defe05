// Report writers.
#include "toolwire/reports/reports.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <map>
#include <sstream>

#include "text.hpp"
#include "toolwire/conformance/outside_data.hpp"

namespace toolwire::reports {

namespace {

using text::group_of;
using text::joined;

using conformance::case_result;
using conformance::verdict;

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

bool is_path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' ||
         c == '-';
}

//! `text` with "<catalog_dir>/" removed wherever it starts a path: people read the reports
//! on other machines, where the catalog's location on this one means nothing.
std::string relative_to(std::string_view text, std::string catalog_dir) {
  while (catalog_dir.size() > 1 && catalog_dir.back() == '/')
    catalog_dir.pop_back();
  if (catalog_dir.empty()) return std::string(text);
  const std::string prefix = catalog_dir + "/";
  std::string out;
  std::size_t copied = 0;
  for (auto at = text.find(prefix); at != std::string_view::npos; at = text.find(prefix, at + 1)) {
    // Why the boundary: "cat/" inside "concat/" or "/other/cat/" names something else.
    if (at > 0 && is_path_char(text[at - 1])) continue;
    out.append(text.substr(copied, at - copied));
    copied = at + prefix.size();
  }
  out.append(text.substr(copied));
  return out;
}

std::vector<std::string> relative_to(const std::vector<std::string>& texts,
                                     const std::string& catalog_dir) {
  std::vector<std::string> out;
  for (const auto& text : texts)
    out.push_back(relative_to(text, catalog_dir));
  return out;
}

//! The texts of `items` (evidence::text), their catalog paths made relative.
std::vector<std::string> relative_to(const std::vector<conformance::evidence>& items,
                                     const std::string& catalog_dir) {
  return relative_to(conformance::texts_of(items), catalog_dir);
}

//! `items` as report.json's "evidence_detail": typed, their catalog paths made relative.
protocol::json detail_of(const std::vector<conformance::evidence>& items,
                         const std::string& catalog_dir) {
  protocol::json detail = protocol::json::array();
  for (auto item : items) {
    item.where = relative_to(item.where, catalog_dir);
    item.observed = relative_to(item.observed, catalog_dir);
    detail.push_back(item.to_json());
  }
  return detail;
}

std::string percent_text(std::size_t part, std::size_t whole) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f",
                whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buffer;
}

void add_to(tally& t, const case_result& r) {
  if (r.expected_failure) {
    ++t.expected_failures;
    return;
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
    case verdict::error:
      ++t.error;
      break;
  }
}

std::string xml_escape_line(std::string_view raw) {
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
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') out += c;
    }
  }
  return out;
}

//! <testcase> children for a case that did not pass: <failure>, <error> or <skipped>.
void write_outcome(std::ostream& out, const case_result& r, const std::string& catalog_dir) {
  const std::string ids = joined(r.spec_ids, ", ");
  if (r.verdict == verdict::error && !r.expected_failure) {
    // Why <error>, not <failure>: CI tabs tell a test that could not run from one that
    // found a fault, and a target that went away found no fault of SPEC's.
    out << "      <error message=\""
        << xml_escape("the target did not answer: " + r.unreachable_because)
        << "\" type=\"transport\">" << xml_escape(ids + ": " + r.purpose) << "\n\n"
        << xml_escape(joined(relative_to(r.evidence, catalog_dir), "\n\n"))
        << "\n\nreproduce: " << xml_escape(r.reproduce) << "</error>\n";
  } else if (r.verdict == verdict::fail && !r.expected_failure) {
    const std::string repeat = r.repeat_label.empty() ? "" : " [" + r.repeat_label + "]";
    out << "      <failure message=\"" << xml_escape(failure_headline(r, catalog_dir))
        << "\" type=\"" << xml_escape(r.tag) << "\">" << xml_escape(ids + ": " + r.purpose + repeat)
        << "\n\n"
        << xml_escape(joined(relative_to(r.evidence, catalog_dir), "\n\n"))
        << "\n\nreproduce: " << xml_escape(r.reproduce) << "</failure>\n";
  } else if (r.verdict != verdict::pass || r.expected_failure) {
    const std::string why =
        r.verdict == verdict::not_applicable
            ? why_not_applicable(r)
            : label(r) + " (" + ids + "): " + joined(relative_to(r.evidence, catalog_dir), " | ");
    out << "      <skipped message=\"" << xml_escape(why) << "\"/>\n";
  }
}

void write_property(std::ostream& out, std::string_view name, const std::string& value) {
  out << "<property name=\"" << name << "\" value=\"" << xml_escape(value) << "\"/>";
}

}  // namespace

tally count(const std::vector<case_result>& results) {
  tally t;
  for (const auto& r : results)
    add_to(t, r);
  return t;
}

std::string xml_escape(std::string_view raw) {
  // Why line by line: escape_invalid_utf8 writes control bytes as \xHH, and a failure's
  // body is only readable with its line breaks.
  std::string out;
  for (std::size_t from = 0;;) {
    const auto end = raw.find('\n', from);
    out += xml_escape_line(raw.substr(from, end == std::string_view::npos ? end : end - from));
    if (end == std::string_view::npos) return out;
    out += '\n';
    from = end + 1;
  }
}

std::string utc_time_text(std::chrono::system_clock::time_point when) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(when);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::string failure_headline(const case_result& result, const std::string& catalog_dir) {
  if (result.evidence.empty()) return result.purpose;
  // Its first line: an observed text may hold a newline of its own.
  const std::string headline = result.evidence.front().headline();
  return relative_to(std::string_view(headline).substr(0, headline.find('\n')), catalog_dir);
}

std::string junit_xml(const std::vector<case_result>& results, const run_summary& summary) {
  const auto t = count(results);
  // Why one number: CI tabs compare skipped= with the <skipped> elements they find.
  const std::size_t skipped = t.warn + t.not_applicable + t.expected_failures;
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"toolwire check\" tests=\"" << results.size() << "\" failures=\""
      << t.fail << "\" errors=\"" << t.error << "\" skipped=\"" << skipped << "\" time=\""
      << seconds_text(summary.seconds) << "\">\n"
      << "  <testsuite name=\"" << xml_escape(summary.target) << "\" tests=\"" << results.size()
      << "\" failures=\"" << t.fail << "\" errors=\"" << t.error << "\" skipped=\"" << skipped
      << "\" time=\"" << seconds_text(summary.seconds) << "\">\n";
  out << "    <properties>";
  write_property(out, "toolwire_version", summary.toolwire_version);
  write_property(out, "seed", std::to_string(summary.seed));
  write_property(out, "target", summary.target);
  write_property(out, "scope", scope_text(summary, results.size()));
  if (!summary.timing.empty()) write_property(out, "timing", summary.timing);
  if (!summary.filter.empty()) write_property(out, "filter", summary.filter);
  if (!summary.shard.empty()) write_property(out, "shard", summary.shard);
  const auto status = status_of(results, summary);
  if (!status.message.empty()) write_property(out, "status", status.message);
  out << "</properties>\n";
  for (const auto& r : results) {
    out << "    <testcase classname=\"" << xml_escape(group_of(r.id)) << "\" name=\""
        << xml_escape(r.id) << "\" file=\"" << xml_escape(relative_to(r.file, summary.catalog_dir))
        << "\" time=\"" << seconds_text(r.seconds) << "\">\n";
    write_outcome(out, r, summary.catalog_dir);
    out << "      <properties>";
    write_property(out, "spec", joined(r.spec_ids, ", "));
    write_property(out, "seed", std::to_string(r.seed));
    out << "</properties>\n    </testcase>\n";
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
         {"file", relative_to(r.file, summary.catalog_dir)},
         {"spec", r.spec_ids},
         {"tag", r.tag},
         {"purpose", r.purpose},
         {"verdict", verdict_label(r)},
         {"not_applicable_because", r.not_applicable_because},
         {"unreachable_because", r.unreachable_because},
         {"applicable_if", r.applicable_if},
         {"repeat", r.repeat_label.empty() ? protocol::json(nullptr)
                                           : protocol::json{{"label", r.repeat_label},
                                                            {"reruns", r.reruns},
                                                            {"rerun_failures", r.rerun_failures}}},
         {"known_flaky", r.known_flaky},
         {"evidence", relative_to(r.evidence, summary.catalog_dir)},
         {"evidence_detail", detail_of(r.evidence, summary.catalog_dir)},
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
          {"toolwire_version", summary.toolwire_version},
          {"started_at", summary.started_at},
          {"catalog_version", summary.catalog_version},
          {"filter", summary.filter},
          {"shard", summary.shard},
          {"catalog_cases", summary.catalog_cases},
          {"selected_cases", summary.selected_cases == 0 ? results.size() : summary.selected_cases},
          {"scope", scope_text(summary, results.size())},
          {"stopped", summary.stopped},
          {"interrupted", summary.interrupted},
          {"timing", summary.timing},
          // Why kept as given: tools join it with each case's "file" to read the case again.
          {"catalog", summary.catalog_dir},
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
            {"expected_failures", t.expected_failures},
            {"error", t.error}}},
          {"stale_baseline", summary.stale_baseline},
          {"cases", cases}};
}

namespace {

const char* const tally_header =
    " passed | failed | errors | warnings | not applicable | expected failures |\n";

std::string tally_cells(const tally& t) {
  // Why appends, not a `" " + ...` chain: g++ 12 at -O3 reports a false -Wrestrict inside
  // the inlined operator+ (GCC PR 105329), which breaks the Release build with -Werror.
  std::string cells;
  for (const auto count : {t.pass, t.fail, t.error, t.warn, t.not_applicable, t.expected_failures})
    cells.append(" ").append(std::to_string(count)).append(" |");
  return cells.append("\n");
}

//! Per group, the same counts as the totals: a not-applicable case is not a failed one.
void write_groups(std::ostream& out, const std::vector<case_result>& results) {
  std::map<std::string, tally> groups;
  for (const auto& r : results)
    add_to(groups[group_of(r.id)], r);
  out << "| group |" << tally_header << "|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& [group, t] : groups)
    out << "| " << group << " |" << tally_cells(t);
}

void write_failures(std::ostream& out, const std::vector<case_result>& results,
                    const std::string& catalog_dir) {
  bool header = false;
  for (const auto& r : results) {
    if (r.verdict != verdict::fail && r.verdict != verdict::warn && r.verdict != verdict::error)
      continue;
    if (!header) out << "\n### Failures, errors and warnings\n";
    header = true;
    out << "\n**" << r.id << "** (" << label(r) << ", " << joined(r.spec_ids, ", ") << ") — "
        << r.purpose << "  \n`" << relative_to(r.file, catalog_dir) << "`\n\n```\n"
        << joined(relative_to(r.evidence, catalog_dir), "\n") << "\n```\nReproduce: `"
        << r.reproduce << "`\n";
  }
}

}  // namespace

std::string markdown_summary(const std::vector<case_result>& results, const run_summary& summary) {
  const auto t = count(results);
  std::ostringstream out;
  const auto status = status_of(results, summary);
  const std::size_t ran = results.size() - t.not_applicable;
  const char* headline = status.exit_code == 0               ? "passed"
                         : !summary.interrupted.empty()      ? "INTERRUPTED"
                         : !summary.stopped.empty()          ? "STOPPED"
                         : status.exit_code == 2 && ran == 0 ? "NOTHING WAS CHECKED"
                         : status.exit_code == 2             ? "TARGET DID NOT ANSWER"
                                                             : "FAILED";
  out << "## toolwire check: " << headline << " against " << summary.target << "\n\n";
  if (!status.message.empty()) out << "**" << status.message << "**\n\n";
  out << "Scope: " << scope_text(summary, results.size()) << ".\n\n";
  if (!summary.timing.empty()) out << "Real clock: " << summary.timing << ".\n\n";
  out << t.pass << " of " << ran << " applicable cases passed; " << t.not_applicable << " of "
      << results.size() << " were not applicable.\n\n";
  out << "| cases |" << tally_header << "|---:|---:|---:|---:|---:|---:|---:|\n"
      << "| " << results.size() << " |" << tally_cells(t) << "\n";
  write_groups(out, results);
  write_failures(out, results, summary.catalog_dir);
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
  if (!summary.interrupted.empty()) {
    return {summary.interrupted == "SIGINT" ? 130 : 143,
            "interrupted by " + summary.interrupted + ": " + scope_text(summary, results.size())};
  }
  if (!summary.stopped.empty()) return {2, summary.stopped};
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
    const bool selected = !summary.filter.empty() || !summary.shard.empty();
    return {1, "only " + percent_text(ran, results.size()) + "% of the " +
                   (selected ? "selected " : "") + "cases ran (" + std::to_string(ran) + " of " +
                   std::to_string(results.size()) + "); --min-applicable asks for " +
                   std::to_string(summary.min_applicable_pct) + "%" +
                   (selected ? ", counted against the selection" : "")};
  }
  if (t.fail > 0 || !summary.stale_baseline.empty()) return {1, ""};
  if (t.error > 0) {
    return {2, std::to_string(t.error) + (t.error == 1 ? " case" : " cases") +
                   " could not be judged: the target did not answer (see the cases marked "
                   "error)"};
  }
  return {0, ""};
}

std::string scope_text(const run_summary& summary, std::size_t results) {
  const std::size_t selected = summary.selected_cases == 0 ? results : summary.selected_cases;
  std::string text;
  const bool whole = summary.filter.empty() && summary.shard.empty();
  if (whole && summary.catalog_cases != 0) {
    text = "all " + std::to_string(selected) + " cases of the catalog";
  } else {
    text = std::to_string(selected);
    if (summary.catalog_cases != 0) text += " of " + std::to_string(summary.catalog_cases);
    text += " cases";
    if (!whole) {
      text += ", selected by";
      if (!summary.filter.empty()) text += " --filter '" + summary.filter + "'";
      if (!summary.filter.empty() && !summary.shard.empty()) text += " and";
      if (!summary.shard.empty()) text += " --shard " + summary.shard;
    }
  }
  if (results < selected) {
    text += "; " + std::to_string(results) + " of them ran before the run " +
            (summary.interrupted.empty() ? "stopped" : "was interrupted");
  }
  return text;
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
