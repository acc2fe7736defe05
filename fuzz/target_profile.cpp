// Fuzz harness: a target profile file's text into the suite's profile loader
// (conformance/remote target_profile). Errors are values; nothing may throw or crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "toolwire/conformance/target_profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto profile = toolwire::conformance::parse_profile(text, "fuzz.json");
  if (profile) {
    (void)profile->base.to_string();
    (void)profile->overrides.dump();
    (void)profile->meets("part_a");
  }
  return 0;
}
