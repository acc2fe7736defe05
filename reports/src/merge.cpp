// Reading report.json back, and joining shards.
#include "toolwire/reports/merge.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "page.hpp"
#include "text.hpp"

namespace toolwire::reports {

namespace {

using text::concatenated;

using namespace page;
using conformance::case_result;
using conformance::verdict;

//! The inverse of the report's verdict label (reports.cpp, verdict_label).
bool read_verdict(const std::string& label, case_result& r) {
  static const std::map<std::string, verdict> plain = {{"pass", verdict::pass},
                                                       {"fail", verdict::fail},
                                                       {"warn", verdict::warn},
                                                       {"not applicable", verdict::not_applicable},
                                                       {"error", verdict::error}};
  if (const auto found = plain.find(label); found != plain.end()) {
    r.verdict = found->second;
    return true;
  }
  // A baseline turns only failures into expected ones (conformance/runner/src/baseline.cpp).
  if (label != "expected failure" && label != "known flaky") return false;
  r.verdict = verdict::fail;
  r.expected_failure = true;
  return true;
}

protocol::outcome<case_result> read_case(const json& item, std::size_t index) {
  case_result r;
  r.id = text_at(item, "id");
  if (r.id.empty()) {
    return protocol::invalid_request(
        concatenated("case ", std::to_string(index + 1), " has no id"));
  }
  const std::string label = text_at(item, "verdict");
  if (!read_verdict(label, r)) {
    return protocol::invalid_request(
        concatenated("case ", r.id, " has an unknown verdict '", label, "'"));
  }
  r.file = text_at(item, "file");
  r.spec_ids = texts_at(item, "spec");
  r.tag = text_at(item, "tag");
  r.purpose = text_at(item, "purpose");
  r.not_applicable_because = text_at(item, "not_applicable_because");
  r.applicable_if = text_at(item, "applicable_if");
  r.unreachable_because = text_at(item, "unreachable_because");
  r.known_flaky = item.value("known_flaky", json()).is_boolean() && item["known_flaky"].get<bool>();
  // Typed where the report has them; a report written before keeps its texts as problems.
  const json& detail = item.value("evidence_detail", json());
  for (const auto& e : detail.is_array() ? detail : item.value("evidence", json::array()))
    r.evidence.push_back(conformance::evidence::from_json(e));
  r.seed = number_at<std::uint64_t>(item, "seed");
  r.seconds = number_at<double>(item, "seconds");
  r.reproduce = text_at(item, "reproduce");
  if (item.contains("trace") && item["trace"].is_array()) r.trace = item["trace"];
  if (const auto& repeat = item.value("repeat", json()); repeat.is_object()) {
    r.repeat_label = text_at(repeat, "label");
    r.reruns = number_at<int>(repeat, "reruns");
    r.rerun_failures = number_at<int>(repeat, "rerun_failures");
  }
  return r;
}

//! "I/N" as two numbers, if it is that.
std::optional<std::pair<int, int>> shard_numbers(const std::string& shard) {
  const auto slash = shard.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == shard.size()) return std::nullopt;
  const std::string index = shard.substr(0, slash), count = shard.substr(slash + 1);
  const auto digits = [](const std::string& s) {
    return s.size() <= 6 &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!digits(index) || !digits(count)) return std::nullopt;
  return std::pair{std::stoi(index), std::stoi(count)};
}

//! The first field in which `shard` differs from `first`, as a sentence; "" if none.
std::string differs_from(const run_summary& first, const run_summary& shard) {
  const auto quoted = [](const std::string& s) { return concatenated("'", s, "'"); };
  if (shard.catalog_version != first.catalog_version) {
    return concatenated("another catalog (", quoted(shard.catalog_version), ", not ",
                        quoted(first.catalog_version), ")");
  }
  if (shard.filter != first.filter) {
    return concatenated("another --filter (", quoted(shard.filter), ", not ", quoted(first.filter),
                        ")");
  }
  if (shard.seed != first.seed) {
    return concatenated("another seed (", std::to_string(shard.seed), ", not ",
                        std::to_string(first.seed), ")");
  }
  if (shard.target != first.target) {
    return concatenated("another target (", quoted(shard.target), ", not ", quoted(first.target),
                        ")");
  }
  return "";
}

}  // namespace

protocol::outcome<saved_run> read_saved_run(const json& report) {
  if (!report.is_object() || !report.contains("toolwire_report")) {
    return protocol::invalid_request("not a toolwire report (toolwire check --json FILE)");
  }
  saved_run run;
  const auto& cases = array_at(report, "cases");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    auto r = read_case(cases[i], i);
    if (!r) return r.error();
    run.results.push_back(std::move(*r));
  }
  auto& s = run.summary;
  s.target = text_at(report, "target");
  s.seed = number_at<std::uint64_t>(report, "seed");
  s.seconds = number_at<double>(report, "seconds");
  s.stale_baseline = texts_at(report, "stale_baseline");
  s.min_applicable_pct = number_at<int>(report, "min_applicable_percent");
  s.repeat = number_at<int>(report, "repeat");
  s.catalog_dir = text_at(report, "catalog");
  s.toolwire_version = text_at(report, "toolwire_version");
  s.started_at = text_at(report, "started_at");
  s.catalog_version = text_at(report, "catalog_version");
  s.filter = text_at(report, "filter");
  s.shard = text_at(report, "shard");
  s.catalog_cases = number_at<std::size_t>(report, "catalog_cases");
  s.selected_cases = number_at<std::size_t>(report, "selected_cases");
  s.stopped = text_at(report, "stopped");
  s.interrupted = text_at(report, "interrupted");
  s.timing = text_at(report, "timing");
  return run;
}

protocol::outcome<saved_run> merge_shards(std::vector<saved_run> shards) {
  if (shards.empty()) return protocol::invalid_request("no shard to merge");
  std::map<int, std::size_t> by_index;  // shard I -> position in `shards`
  int count = 0;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const auto& s = shards[i].summary;
    const std::string which = concatenated("report ", std::to_string(i + 1));
    const auto numbers = shard_numbers(s.shard);
    if (!numbers) {
      return protocol::invalid_request(
          concatenated(which, " is not a shard (run with --shard I/N)"));
    }
    if (i == 0) count = numbers->second;
    if (numbers->second != count) {
      return protocol::invalid_request(concatenated(
          which, " is shard ", s.shard, ", of another split than ", shards.front().summary.shard));
    }
    if (!by_index.emplace(numbers->first, i).second) {
      return protocol::invalid_request(concatenated(which, " is shard ", s.shard, " again"));
    }
    if (const auto why = differs_from(shards.front().summary, s); !why.empty()) {
      return protocol::invalid_request(concatenated(which, " (shard ", s.shard, ") is of ", why));
    }
  }
  std::vector<std::string> missing;
  for (int index = 1; index <= count; ++index) {
    if (!by_index.contains(index)) {
      missing.push_back(concatenated(std::to_string(index), "/", std::to_string(count)));
    }
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing)
      list.append(list.empty() ? "" : ", ").append(m);
    return protocol::invalid_request(
        concatenated("shard(s) ", list, " missing: a merged report must hold every case"));
  }
  saved_run merged;
  merged.summary = shards.front().summary;
  merged.summary.shard.clear();
  merged.summary.stale_baseline.clear();
  merged.summary.selected_cases = 0;  // the whole selection: every shard's cases
  std::set<std::string> ids, stale;
  for (const auto& [index, at] : by_index) {
    auto& shard = shards[at];
    merged.summary.seconds = std::max(merged.summary.seconds, shard.summary.seconds);
    if (!shard.summary.started_at.empty() &&
        (merged.summary.started_at.empty() ||
         shard.summary.started_at < merged.summary.started_at)) {
      merged.summary.started_at = shard.summary.started_at;  // ISO 8601 UTC sorts as text
    }
    // A shard that stopped or was interrupted leaves the merged run short of cases.
    if (merged.summary.stopped.empty()) merged.summary.stopped = shard.summary.stopped;
    if (merged.summary.interrupted.empty()) merged.summary.interrupted = shard.summary.interrupted;
    for (const auto& id : shard.summary.stale_baseline) {
      if (stale.insert(id).second) merged.summary.stale_baseline.push_back(id);
    }
    for (auto& r : shard.results) {
      if (!ids.insert(r.id).second) {
        return protocol::invalid_request(concatenated("case ", r.id, " is in two shards"));
      }
      merged.results.push_back(std::move(r));
    }
  }
  return merged;
}

}  // namespace toolwire::reports
