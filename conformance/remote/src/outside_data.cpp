// UTF-8 validation, bounded JSON reading and safe serialisation of outside data: the
// suite's view of protocol/safe_json, so the server and the suite judge bytes alike.
#include "toolwire/conformance/outside_data.hpp"

#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::conformance {

static_assert(max_json_depth == protocol::max_json_depth,
              "the suite reads outside JSON with the server's depth limit");

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  const std::size_t bad = protocol::first_invalid_utf8(text);
  if (bad == std::string_view::npos) return std::nullopt;
  return bad;
}

std::string escape_invalid_utf8(std::string_view text) {
  return protocol::escape_bytes(text);
}

bool nested_deeper_than(std::string_view text, std::size_t limit) {
  return protocol::json_nesting_depth(text, limit) > limit;
}

std::variant<json, std::string> parse_outside_json(std::string_view text) {
  using result = std::variant<json, std::string>;
  if (const auto bad = first_invalid_utf8(text)) {
    return result(std::in_place_index<1>, "not valid UTF-8 (byte 0x" +
                                              escape_invalid_utf8(text.substr(*bad, 1)).substr(2) +
                                              " at offset " + std::to_string(*bad) + ")");
  }
  if (nested_deeper_than(text)) {
    return result(std::in_place_index<1>,
                  "JSON nested deeper than " + std::to_string(max_json_depth) + " levels");
  }
  try {
    return result(std::in_place_index<0>, json::parse(text));
  } catch (const json::exception& e) {
    // The text is valid UTF-8 here, so nlohmann's message quotes nothing raw.
    return result(std::in_place_index<1>, std::string("invalid JSON: ") + e.what());
  }
}

std::string safe_dump(const json& value, int indent) {
  try {
    return protocol::safe_dump(value, indent);
  } catch (const std::exception& e) {
    return json(std::string("(not serialisable: ") + escape_invalid_utf8(e.what()) + ")").dump();
  }
}

std::string safe_excerpt(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return escape_invalid_utf8(text);
  return escape_invalid_utf8(text.substr(0, limit)) + "...";
}

}  // namespace toolwire::conformance
