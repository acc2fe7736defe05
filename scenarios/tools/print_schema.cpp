// Prints the scenario format's JSON Schema, to regenerate scenarios/scenario.schema.json.
#include <iostream>

#include "toolwire/scenarios/loader.hpp"

int main() {
  std::cout << toolwire::scenarios::json_schema().dump(2) << "\n";
}
