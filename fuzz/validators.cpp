// Fuzz harness: a request body's text into the body validators (protocol/validation), as
// the router reads every body: parse_json_body, then each route's parse_* function. Errors are
// values; nothing may throw or crash, and every error has a message (it becomes the C-2 error
// body's; serialising that body is the front end's part, fuzzed by the http_request harness).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "toolwire/protocol/error.hpp"
#include "toolwire/protocol/validation.hpp"

namespace {

namespace protocol = toolwire::protocol;

template <typename T>
void answer(const protocol::outcome<T>& result) {
  if (!result && result.error().message.empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto body = protocol::parse_json_body(text);
  answer(body);
  if (!body) return 0;
  answer(protocol::parse_register_request(*body));
  answer(protocol::parse_put_tools_request(*body));
  answer(protocol::parse_task_create_request(*body));
  answer(protocol::parse_result_request(*body));
  answer(protocol::parse_message_request(*body));
  answer(protocol::parse_tool_results_request(*body));
  answer(protocol::parse_advance_request(*body));
  (void)protocol::count_code_points(text);
  (void)protocol::is_valid_name(text);
  return 0;
}
