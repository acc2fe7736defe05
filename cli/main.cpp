// The `toolwire` binary's entry point; everything else is in the commands library.
#include "run.hpp"

int main(int argc, char** argv) {
  return toolwire::cli::run(argc, argv);
}
