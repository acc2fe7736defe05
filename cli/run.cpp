// The one `toolwire` binary: parses the command line and runs the chosen subcommand.
#include "run.hpp"

#include <iostream>

#include <CLI/CLI.hpp>

#include "check_command.hpp"
#include "explore_command.hpp"
#include "profile_command.hpp"
#include "report_command.hpp"
#include "serve_command.hpp"
#include "simulate_command.hpp"
#include "suggest.hpp"
#include "toolwire/conformance/catalog.hpp"

#ifndef TOOLWIRE_VERSION
#define TOOLWIRE_VERSION "unknown"
#endif

namespace {

//! Bad usage is exit 2 (as in getopt tradition); --help and --version are exit 0. A
//! mistyped subcommand or flag gets the closest known one after CLI11's message.
int exit_for(const CLI::App& app, const CLI::ParseError& error) {
  if (error.get_exit_code() == 0) return app.exit(error);
  app.exit(error);
  // Why after any error, not only CLI::ExtrasError: `toolwire profile int` fails first on
  // the missing subcommand, yet the unexpected token is what the user got wrong.
  for (const auto& hint : toolwire::cli::hints_for_extras(app))
    std::cerr << hint << "\n";
  return 2;
}

//! The tool's version and the version of the catalog `check` would run by default, with
//! where that catalog is: an installed binary and a build tree read different ones.
std::string version_text() {
  std::string text = "toolwire ";
  text.append(TOOLWIRE_VERSION).append("\ncatalog ");
  const auto dir = toolwire::conformance::default_catalog_dir();
  const auto version = toolwire::conformance::catalog_version(dir);
  text.append(version ? *version : version.error().message);
  if (version) text.append(" (").append(dir).append(")");
  return text;
}

}  // namespace

namespace toolwire::cli {

int run(int argc, char** argv) {
  CLI::App app{"toolwire: a simulator and conformance suite for the Client Tools protocol",
               "toolwire"};
  app.set_version_flag("--version", version_text,
                       "Print the version of toolwire and of its catalog, and exit");
  app.require_subcommand(0, 1);
  app.footer(R"(
Examples:
  toolwire check                              # the bundled reference server; reports in toolwire-reports/
  toolwire check --fault double_result_accepted --filter 'call.*'   # red: a planted bug, caught
  toolwire profile init acme.json             # a profile; edit it for your server, then:
  toolwire check --target acme.json

  # No server of your own yet? This one matches what profile init writes:
  toolwire serve --port 8080 --api-key KEY --api-key LIMITED: --clock virtual \
      --model-url http://127.0.0.1:18080/v1 &
  toolwire profile init demo.json --from http://127.0.0.1:8080 && \
      toolwire check --target demo.json --filter 'auth.*'

Exit codes: 0 success; 1 a failure found (a failing case, a violated invariant); 2 bad usage.
Every subcommand's --help ends with its own. Read: docs/quickstart.md (green, red, your
server, CI in ten minutes), docs/ci.md, README.md, docs/conformance.md)");
  toolwire::cli::serve_command serve(app);
  toolwire::cli::simulate_command simulate(app);
  toolwire::cli::replay_command replay(app);
  toolwire::cli::explore_command explore(app);
  toolwire::cli::check_command check(app);
  toolwire::cli::report_command report(app);
  toolwire::cli::profile_command profile(app);
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
  if (profile.selected()) return profile.run();
  std::cerr << app.help() << std::flush;
  return 2;
}

}  // namespace toolwire::cli
