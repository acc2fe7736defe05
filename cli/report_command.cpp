// `toolwire report`.
#include "report_command.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "step_summary.hpp"
#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/reports/compare.hpp"
#include "toolwire/reports/html.hpp"
#include "toolwire/reports/merge.hpp"
#include "toolwire/reports/reports.hpp"

namespace toolwire::cli {

namespace {

int failure(const std::string& message) {
  std::cerr << "toolwire report: " << message << "\n";
  return 2;
}

//! A run's report.json, or an error that names the file.
protocol::json read_report(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read " + path;
    return nullptr;
  }
  std::ostringstream text;
  text << in.rdbuf();
  // Why no exceptions: a truncated or hand-edited file is a usage error, not a crash.
  auto report = protocol::json::parse(text.str(), nullptr, false);
  if (report.is_discarded() || !report.is_object() || !report.contains("toolwire_report")) {
    error = path + " is not a toolwire report.json (toolwire check --json FILE)";
    return nullptr;
  }
  return report;
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
                               "without running anything.");
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
      "when that is set.");
  merge_->footer(R"(
Examples:
  toolwire check --shard 1/2 --json s1.json & toolwire check --shard 2/2 --json s2.json
  toolwire report merge s1.json s2.json --junit junit.xml --html report.html

Exit codes: 0 the merged run passed, 1 it has a failure, 2 nothing was checked (as toolwire
check), or shards that do not belong together, an unreadable report.json or an unwritable
output.
Read: docs/conformance.md, "Shards")");
  merge_->add_option("shards", shards_, "the shards' report.json files")->required();
  merge_->add_option("--json", merged_json_, "write the merged JSON report here");
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

}  // namespace toolwire::cli
