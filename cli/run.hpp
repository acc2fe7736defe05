// The whole command line of the `toolwire` binary, in the commands library so that main.cpp
// is one line (cli/CMakeLists.txt says why).
#pragma once

namespace toolwire::cli {

//! Parses `argv`, runs the chosen subcommand and returns the process's exit code.
int run(int argc, char** argv);

}  // namespace toolwire::cli
