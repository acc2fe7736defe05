// `toolwire report`.
#include "report_command.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "toolwire/reports/compare.hpp"
#include "toolwire/reports/html.hpp"

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
  app_ =
      parent.add_subcommand("report",
                            "Make reports again from a run's report.json (toolwire check --json), "
                            "without running anything.");
  app_->require_subcommand(1);
  html_ = app_->add_subcommand(
      "html",
      "Write the HTML report of a report.json: one self-contained file (no network) with the "
      "summary, a requirement matrix, every case's evidence, and a sequence diagram and wire "
      "log per failed case. The same file as toolwire check --html.\n\n"
      "Examples:\n"
      "  toolwire report html toolwire-reports/report.json\n"
      "  toolwire report html report.json -o failures.html --all\n\n"
      "Exit codes: 0 written; 2 bad usage, an unreadable report.json or an unwritable output. "
      "See docs/conformance.md, \"Reports\".");
  html_->add_option("report", input_, "the report.json to read")->required();
  html_->add_option("-o,--output", output_,
                    "where to write the HTML (default: the report's path with .html)");
  html_->add_flag("--all", all_, "draw every case, not only those with evidence");

  compare_ = app_->add_subcommand(
      "compare",
      "Compare runs: a target x case matrix of verdicts from several report.json files "
      "(implementations side by side, or two versions of one), with the cases whose "
      "verdicts differ marked and, in Markdown, listed first.\n\n"
      "Examples:\n"
      "  toolwire report compare ours.json theirs.json\n"
      "  toolwire report compare v1/report.json v2/report.json --markdown diff.md "
      "--differences-only\n\n"
      "Exit codes: 0 written (whatever the verdicts); 2 bad usage, an unreadable report.json "
      "or an unwritable output. See docs/conformance.md, \"Reports\".");
  compare_->add_option("reports", compared_, "two or more report.json files")
      ->required()
      ->expected(2, 64);
  compare_->add_option("-o,--output", compare_output_, "where to write the HTML matrix")
      ->capture_default_str();
  compare_->add_option("--markdown", compare_markdown_, "also write the matrix as Markdown here");
  compare_->add_flag("--differences-only", differences_only_,
                     "in Markdown, list only the cases whose verdicts differ");
}

int report_command::run() const {
  if (html_->parsed()) return run_html();
  if (compare_->parsed()) return run_compare();
  return failure("name a report kind: html or compare");
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

}  // namespace toolwire::cli
