// Fuzz harness: a scenario file's text into the scenario loader (scenarios/ load_text,
// YAML through yaml-cpp). load_text promises never to throw; a loaded scenario is written
// back with to_yaml, as `toolwire explore` writes the scenarios it shrinks.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "toolwire/scenarios/loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto plan = toolwire::scenarios::load_text(text, "fuzz.yaml");
  if (plan) (void)toolwire::scenarios::to_yaml(*plan);
  return 0;
}
