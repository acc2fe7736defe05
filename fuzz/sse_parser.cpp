// Fuzz harness: a target's event stream bytes into the suite's SSE parser and block
// reader (conformance/remote sse_parser). The first byte picks where the stream is split
// into two reads: blocks must not depend on how the bytes arrive.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "toolwire/conformance/sse_parser.hpp"

namespace {
namespace conformance = toolwire::conformance;

std::vector<conformance::sse_block> parse(std::string_view bytes, std::size_t split, bool& failed) {
  conformance::sse_parser parser(4096);  // a small line bound, so inputs can reach it
  std::vector<conformance::sse_block> blocks;
  failed = parser.feed(bytes.substr(0, split), blocks).has_value();
  if (!failed) failed = parser.feed(bytes.substr(split), blocks).has_value();
  return blocks;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::size_t split = bytes.empty() ? 0 : data[0] % (bytes.size() + 1);
  bool whole_failed = false;
  bool split_failed = false;
  const auto whole = parse(bytes, bytes.size(), whole_failed);
  const auto in_two = parse(bytes, split, split_failed);
  if (!whole_failed && !split_failed && whole != in_two) std::abort();
  for (const auto& block : whole)
    (void)conformance::read_block(block, "ses_1");
  return 0;
}
