// `toolwire report`.
#include "report_command.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "toolwire/reports/html.hpp"

namespace toolwire::cli {

namespace {

int failure(const std::string& message) {
  std::cerr << "toolwire report: " << message << "\n";
  return 2;
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
}

int report_command::run() const {
  if (!html_->parsed()) return failure("name a report kind: html");
  std::ifstream in(input_, std::ios::binary);
  if (!in) return failure("cannot read " + input_);
  std::ostringstream text;
  text << in.rdbuf();
  // Why no exceptions: a truncated or hand-edited file is a usage error, not a crash.
  const auto report = protocol::json::parse(text.str(), nullptr, false);
  if (report.is_discarded() || !report.is_object() || !report.contains("toolwire_report")) {
    return failure(input_ + " is not a toolwire report.json (toolwire check --json FILE)");
  }
  std::filesystem::path output = output_;
  if (output.empty()) output = std::filesystem::path(input_).replace_extension(".html");
  std::ofstream out(output, std::ios::binary);
  out << reports::html_report(report, {all_});
  out.flush();
  if (!out) return failure("cannot write " + output.string());
  std::cout << "wrote " << output.string() << "\n";
  return 0;
}

}  // namespace toolwire::cli
