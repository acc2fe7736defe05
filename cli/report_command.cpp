// `toolwire report`.
#include "report_command.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "duration_text.hpp"
#include "step_summary.hpp"
#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/explore/explore.hpp"
#include "toolwire/reports/compare.hpp"
#include "toolwire/reports/explore_merge.hpp"
#include "toolwire/reports/html.hpp"
#include "toolwire/reports/merge.hpp"
#include "toolwire/reports/reports.hpp"

namespace toolwire::cli {

namespace {

int failure(const std::string& message) {
  std::cerr << "toolwire report: " << message << "\n";
  return 2;
}

//! A file's JSON (discarded when it is not JSON), or an error that names the file.
protocol::json read_json(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read " + path;
    return nullptr;
  }
  std::ostringstream text;
  text << in.rdbuf();
  // Why no exceptions: a truncated or hand-edited file is a usage error, not a crash.
  return protocol::json::parse(text.str(), nullptr, false);
}

//! A run's report.json, or an error that names the file.
protocol::json read_report(const std::string& path, std::string& error) {
  auto report = read_json(path, error);
  if (!error.empty()) return nullptr;
  if (report.is_discarded() || !report.is_object() || !report.contains("toolwire_report")) {
    error = path + " is not a toolwire report.json (toolwire check --json FILE)";
    if (reports::is_explore_summary(report)) {
      error += "; it is an explore summary, and one merge takes one kind";
    }
    return nullptr;
  }
  return report;
}

//! "explore: shard 2/4 (s2.json)".
std::string shard_label(const protocol::json& line, long long count) {
  return "shard " + std::to_string(line.value("index", 0)) + "/" + std::to_string(count) + " (" +
         line.value("file", std::string()) + ")";
}

//! "no_divergence" as "no divergence".
std::string outcome_words(std::string outcome) {
  std::replace(outcome.begin(), outcome.end(), '_', ' ');
  return outcome;
}

//! The merged campaign as Markdown, for $GITHUB_STEP_SUMMARY.
std::string explore_markdown(const protocol::json& merged) {
  std::ostringstream md;
  const auto count = merged["shard_count"].get<long long>();
  md << "## toolwire explore: " << merged["target"].get<std::string>() << ", "
     << merged["shards"].size() << " of " << count << " shards\n\n"
     << "**" << merged["outcome"].get<std::string>() << "** in " << merged["programs"]
     << " programs (" << merged["requests"] << " requests, "
     << seconds_text(merged["seconds"].get<double>()) << " the longest shard)\n\n";
  for (const auto& d : merged["divergences"]) {
    md << "- shard " << d["shard"] << ": `" << d.value("reproduce", std::string()) << "`\n";
  }
  for (const auto& e : merged["errors"]) {
    md << "- shard " << e["shard"] << ": " << e["outcome"].get<std::string>() << " "
       << e["error"].get<std::string>() << "\n";
  }
  for (const auto& m : merged["missing_shards"])
    md << "- shard " << m << "/" << count << " is missing\n";
  return md.str();
}

bool write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace

report_command::report_command(CLI::App& parent) {
  app_ = parent.add_subcommand("report",
                               "Make reports again from runs' report.json files (toolwire check "
                               "--json): one run's HTML, several runs compared, or shards merged, "
                               "without running anything; merge also joins the --json "
                               "summaries of toolwire explore --shard I/N.");
  app_->require_subcommand(1);
  // Why footers of their own: a subcommand without one shows the top-level footer, whose
  // exit codes ("1 a failure found") are not these.
  app_->footer(R"(
Examples:
  toolwire report html toolwire-reports/report.json
  toolwire report compare ours.json theirs.json
  toolwire report merge s1.json s2.json

Exit codes: 0 written; 1 (merge only) the merged run has a failure; 2 bad usage, an
unreadable report.json or an unwritable output. Each subcommand's --help has its own.
Read: docs/conformance.md, "Reports")");
  html_ = app_->add_subcommand(
      "html",
      "Write the HTML report of a report.json: one self-contained file (no network) with the "
      "summary, a requirement matrix, every case's evidence, and a sequence diagram and wire "
      "log per failed case. The same file as toolwire check --html.");
  html_->footer(R"(
Examples:
  toolwire report html toolwire-reports/report.json
  toolwire report html report.json -o failures.html --all

Exit codes: 0 written; 2 bad usage, an unreadable report.json or an unwritable output.
Read: docs/conformance.md, "Reports")");
  html_->add_option("report", input_, "the report.json to read")->required();
  html_->add_option("-o,--output", output_,
                    "where to write the HTML (default: the report's path with .html)");
  html_->add_flag("--all", all_, "draw every case, not only those with evidence");

  compare_ = app_->add_subcommand(
      "compare",
      "Compare runs: a target x case matrix of verdicts from several report.json files "
      "(implementations side by side, or two versions of one), with the cases whose "
      "verdicts differ marked and, in Markdown, listed first.");
  compare_->footer(R"(
Examples:
  toolwire report compare ours.json theirs.json
  toolwire report compare v1/report.json v2/report.json --markdown diff.md --differences-only

Exit codes: 0 written (whatever the verdicts); 2 bad usage, an unreadable report.json or
an unwritable output.
Read: docs/conformance.md, "Reports")");
  compare_->add_option("reports", compared_, "two or more report.json files")
      ->required()
      ->expected(2, 64);
  compare_->add_option("-o,--output", compare_output_, "where to write the HTML matrix")
      ->capture_default_str();
  compare_->add_option("--markdown", compare_markdown_, "also write the matrix as Markdown here");
  compare_->add_flag("--differences-only", differences_only_,
                     "in Markdown, list only the cases whose verdicts differ");

  merge_ = app_->add_subcommand(
      "merge",
      "Join the report.json files of the shards of one run (toolwire check --shard I/N) into "
      "the reports of the whole run: JSON, JUnit, Markdown and HTML. Refused, with the reason, "
      "unless every shard has the same catalog version, filter, seed and target, all N "
      "shards are there and no case is in two. Without a report flag all four go to "
      "toolwire-reports/. Like check, it appends the Markdown summary to $GITHUB_STEP_SUMMARY "
      "when that is set. Given the --json summaries of toolwire explore --shard I/N instead, "
      "it joins them into the campaign's summary (--json FILE writes it): programs and "
      "requests added up, the time the longest shard's (and summed), the coverage the "
      "union, every shard's divergence with its reproduce line, and each shard that errored "
      "or is missing. Refused unless every shard has the same N, --seed, --programs, "
      "--time-budget and target, and no shard is there twice.");
  merge_->footer(R"(
Examples:
  toolwire check --shard 1/2 --json s1.json & toolwire check --shard 2/2 --json s2.json
  toolwire report merge s1.json s2.json --junit junit.xml --html report.html
  toolwire explore --shard 1/2 --json e1.json & toolwire explore --shard 2/2 --json e2.json
  toolwire report merge e1.json e2.json --json explore.json

Exit codes: 0 the merged run passed, 1 it has a failure, 2 nothing was checked (as toolwire
check), or shards that do not belong together, an unreadable report.json or an unwritable
output. Explore summaries: 0 no divergence in any shard and all N there, 1 a shard
diverged, 2 a shard errored or is missing (and none diverged), or shards that do not
belong together.
Read: docs/conformance.md, "Shards"; docs/ci.md, "Explore campaigns")");
  merge_
      ->add_option("shards", shards_, "the shards' report.json files (or explore --json summaries)")
      ->required();
  merge_->add_option("--json", merged_json_,
                     "write the merged JSON report (or explore campaign summary) here");
  merge_->add_option("--junit", merged_junit_, "write the merged JUnit XML here");
  merge_->add_option("--markdown", merged_markdown_, "write the merged Markdown summary here");
  merge_->add_option("--html", merged_html_, "write the merged HTML report here");
}

int report_command::run() const {
  if (html_->parsed()) return run_html();
  if (compare_->parsed()) return run_compare();
  if (merge_->parsed()) return run_merge();
  return failure("name a report kind: html, compare or merge");
}

int report_command::run_html() const {
  std::string error;
  const auto report = read_report(input_, error);
  if (!error.empty()) return failure(error);
  std::filesystem::path output = output_;
  if (output.empty()) output = std::filesystem::path(input_).replace_extension(".html");
  if (!write_file(output, reports::html_report(report, {all_}))) {
    return failure("cannot write " + output.string());
  }
  std::cout << "wrote " << output.string() << "\n";
  return 0;
}

int report_command::run_compare() const {
  std::vector<reports::compared_run> runs;
  std::vector<std::string> targets, files;
  for (const auto& path : compared_) {
    std::string error;
    auto report = read_report(path, error);
    if (!error.empty()) return failure(error);
    targets.push_back(report.value("target", protocol::json()).is_string()
                          ? report["target"].get<std::string>()
                          : "");
    files.push_back(std::filesystem::path(path).filename().string());
    runs.push_back({"", std::move(report)});
  }
  const auto labels = reports::run_labels(targets, files);
  for (std::size_t i = 0; i < runs.size(); ++i)
    runs[i].label = labels[i];
  const auto matrix = reports::compare_runs(runs);
  if (!write_file(compare_output_, reports::compare_html(matrix))) {
    return failure("cannot write " + compare_output_);
  }
  if (!compare_markdown_.empty() &&
      !write_file(compare_markdown_, reports::compare_markdown(matrix, differences_only_))) {
    return failure("cannot write " + compare_markdown_);
  }
  std::cout << matrix.case_ids.size() << " cases in " << runs.size() << " runs, "
            << matrix.differing << " with differing verdicts; wrote " << compare_output_;
  if (!compare_markdown_.empty()) std::cout << " and " << compare_markdown_;
  std::cout << "\n";
  return 0;
}

int report_command::run_merge() const {
  // Why one merge for both kinds: a CI job joins its shards' files whichever command made
  // them; the first file says which kind the others must be.
  {
    std::string error;
    const auto first = read_json(shards_.front(), error);
    if (!error.empty()) return failure(error);
    if (reports::is_explore_summary(first)) return run_explore_merge();
  }
  std::vector<reports::saved_run> shards;
  for (const auto& path : shards_) {
    std::string error;
    const auto report = read_report(path, error);
    if (!error.empty()) return failure(error);
    auto run = reports::read_saved_run(report);
    if (!run) return failure(path + ": " + run.error().message);
    shards.push_back(std::move(*run));
  }
  auto merged = reports::merge_shards(std::move(shards));
  if (!merged) return failure("cannot merge: " + merged.error().message);
  const auto& results = merged->results;
  const auto& summary = merged->summary;
  const bool defaults = merged_json_.empty() && merged_junit_.empty() && merged_markdown_.empty() &&
                        merged_html_.empty();
  const auto chosen = [&](const std::string& given, const char* fallback) {
    return defaults ? std::string("toolwire-reports/").append(fallback) : given;
  };
  if (defaults) std::filesystem::create_directories("toolwire-reports");
  const auto report = reports::json_report(results, summary);
  const std::string markdown = reports::markdown_summary(results, summary);
  const std::vector<std::pair<std::string, std::string>> outputs = {
      {chosen(merged_json_, "report.json"), conformance::safe_dump(report, 1)},
      {chosen(merged_junit_, "junit.xml"), reports::junit_xml(results, summary)},
      {chosen(merged_markdown_, "summary.md"), markdown},
      {chosen(merged_html_, "report.html"), reports::html_report(report)}};
  for (const auto& [path, text] : outputs) {
    if (path.empty()) continue;
    if (!write_file(path, text)) return failure("cannot write " + path);
    std::cout << "wrote " << path << "\n";
  }
  append_step_summary(markdown, "toolwire report merge");
  const auto t = reports::count(results);
  std::cout << shards_.size() << " shard(s), " << results.size() << " cases: " << t.pass
            << " passed, " << t.fail << " failed, " << t.warn << " warnings, " << t.not_applicable
            << " not applicable, " << t.expected_failures << " expected failures\n";
  const auto status = reports::status_of(results, summary);
  if (!status.message.empty()) std::cout << status.message << "\n";
  return status.exit_code;
}

int report_command::run_explore_merge() const {
  if (!merged_junit_.empty() || !merged_markdown_.empty() || !merged_html_.empty()) {
    return failure(
        "explore summaries merge into one summary (--json FILE); --junit, --markdown and "
        "--html are reports of check runs");
  }
  std::vector<reports::explore_shard_summary> shards;
  for (const auto& path : shards_) {
    std::string error;
    auto summary = read_json(path, error);
    if (!error.empty()) return failure(error);
    if (!reports::is_explore_summary(summary)) {
      return failure(path + " is not a toolwire explore summary (toolwire explore --json " +
                     "FILE), and " + shards_.front() + " is: one merge takes one kind");
    }
    shards.push_back({path, std::move(summary)});
  }
  auto merged = reports::merge_explore_shards(shards);
  if (!merged) return failure("cannot merge: " + merged.error().message);
  const auto& m = *merged;
  const auto count = m["shard_count"].get<long long>();
  const auto& coverage = m["coverage"];
  std::cout << "explore: " << m["shards"].size() << " of " << count << " shards of a campaign of "
            << m["campaign_programs"] << " programs from --seed " << m["base_seed"] << " on "
            << m["target"].get<std::string>() << ": " << m["programs"] << " programs, "
            << m["requests"] << " requests, " << seconds_text(m["seconds"].get<double>())
            << " (the longest shard; " << seconds_text(m["seconds_summed"].get<double>())
            << " summed)\n";
  std::cout << "explore: the reference reached " << coverage["reached"] << " of "
            << coverage["total"] << " life-cycle points in the campaign";
  for (std::size_t i = 0; i < coverage["never"].size(); ++i)
    std::cout << (i == 0 ? "; never: " : ", ") << coverage["never"][i].get<std::string>();
  std::cout << "\n";
  for (const auto& line : m["shards"]) {
    std::string seeds;
    for (const auto& seed : line["seeds"])
      seeds += (seeds.empty() ? "" : ", ") + seed.dump();
    std::cout << "explore: " << shard_label(line, count) << ": "
              << outcome_words(line["outcome"].get<std::string>()) << " in " << line["programs"]
              << " programs, seed" << (line["seeds"].size() == 1 ? " " : "s ") << seeds << "\n";
  }
  for (const auto& d : m["divergences"]) {
    std::cout << "explore: shard " << d["shard"] << "/" << count << " diverged:\n";
    for (const auto& p : d.value("problems", protocol::json::array()))
      std::cout << "  " << (p.is_string() ? p.get<std::string>() : p.dump()) << "\n";
    std::cout << "  reproduce: " << d.value("reproduce", std::string("(not in its summary)"))
              << "\n";
  }
  for (const auto& e : m["errors"]) {
    std::cout << "explore: shard " << e["shard"] << "/" << count << " ("
              << e["file"].get<std::string>()
              << ") did not end clean: " << e["outcome"].get<std::string>()
              << (e["error"].get<std::string>().empty() ? "" : ": " + e["error"].get<std::string>())
              << "\n";
  }
  for (const auto& missing : m["missing_shards"]) {
    const auto seed = explore::campaign_seed(m["base_seed"].get<std::uint64_t>(),
                                             {missing.get<int>(), static_cast<int>(count)}, 0);
    std::cout << "explore: shard " << missing << "/" << count
              << " is missing: its part of the programs (seed " << seed << " and, with --jobs, "
              << seed << " + " << count << "*j) was not searched\n";
  }
  append_step_summary(explore_markdown(m), "toolwire report merge");
  if (!merged_json_.empty()) {
    if (!write_file(merged_json_, m.dump(2) + "\n")) return failure("cannot write " + merged_json_);
    std::cout << "wrote " << merged_json_ << "\n";
  }
  const auto outcome = m["outcome"].get<std::string>();
  if (outcome == "divergence") {
    std::cout << "explore: " << m["divergences"].size() << " divergence(s) in the campaign\n";
    return 1;
  }
  if (outcome == "error") {
    std::cout << "explore: the campaign was not searched whole: no verdict\n";
    return 2;
  }
  std::cout << "explore: no divergence in the campaign's " << m["programs"] << " programs\n";
  return 0;
}

}  // namespace toolwire::cli
