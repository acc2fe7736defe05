// Fuzz harness: a model endpoint's response body into the reference server's model-response
// path, as openai_call reads it: JSON parse without exceptions, parse_chat_completion
// (MODEL-2), then the answer as the assistant message the next model step request carries
// (MODEL-1), serialised as the backend sends it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "toolwire/protocol/codec.hpp"
#include "toolwire/protocol/types.hpp"

namespace {
namespace protocol = toolwire::protocol;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const auto document = protocol::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) return 0;
  const auto answer = protocol::parse_chat_completion(document);
  if (!answer) return 0;
  (void)protocol::to_assistant_message(*answer).dump();
  return 0;
}
