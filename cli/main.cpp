// The one `toolwire` binary: parses the command line and runs the chosen subcommand.
#include <iostream>

#include <CLI/CLI.hpp>

#include "check_command.hpp"
#include "explore_command.hpp"
#include "report_command.hpp"
#include "serve_command.hpp"
#include "simulate_command.hpp"

#ifndef TOOLWIRE_VERSION
#define TOOLWIRE_VERSION "unknown"
#endif

namespace {

//! Bad usage is exit 2 (as in getopt tradition); --help and --version are exit 0.
int exit_for(const CLI::App& app, const CLI::ParseError& error) {
  if (error.get_exit_code() == 0) return app.exit(error);
  app.exit(error);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"toolwire: a simulator and conformance suite for the Client Tools protocol",
               "toolwire"};
  app.set_version_flag("--version", std::string("toolwire ") + TOOLWIRE_VERSION);
  app.require_subcommand(0, 1);
  toolwire::cli::serve_command serve(app);
  toolwire::cli::simulate_command simulate(app);
  toolwire::cli::replay_command replay(app);
  toolwire::cli::explore_command explore(app);
  toolwire::cli::check_command check(app);
  toolwire::cli::report_command report(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return exit_for(app, error);
  }
  if (serve.selected()) return serve.run();
  if (simulate.selected()) return simulate.run();
  if (replay.selected()) return replay.run();
  if (explore.selected()) return explore.run();
  if (check.selected()) return check.run();
  if (report.selected()) return report.run();
  std::cerr << app.help() << std::flush;
  return 2;
}
