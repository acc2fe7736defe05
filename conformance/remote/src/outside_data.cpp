// UTF-8 validation, bounded JSON reading and safe serialisation of outside data.
#include "toolwire/conformance/outside_data.hpp"

namespace toolwire::conformance {

namespace {

//! The length of the well-formed UTF-8 sequence at `at`, or 0 when none starts there.
std::size_t sequence_at(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char c = byte(at);
  if (c < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    length = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    length = 3;
    if (c == 0xE0) low = 0xA0;   // overlong
    if (c == 0xED) high = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    length = 4;
    if (c == 0xF0) low = 0x90;   // overlong
    if (c == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;  // 0x80..0xC1 (continuation, overlong lead) and 0xF5..0xFF
  }
  if (at + length > text.size()) return 0;
  if (byte(at + 1) < low || byte(at + 1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(at + i) < 0x80 || byte(at + i) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    const auto length = sequence_at(text, at);
    if (length == 0) return at;
    at += length;
  }
  return std::nullopt;
}

std::string escape_invalid_utf8(std::string_view text) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const auto length = sequence_at(text, at);
    if (length > 0) {
      out.append(text.substr(at, length));
      at += length;
      continue;
    }
    const auto c = static_cast<unsigned char>(text[at++]);
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

bool nested_deeper_than(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

std::variant<json, std::string> parse_outside_json(std::string_view text) {
  using result = std::variant<json, std::string>;
  if (auto bad = first_invalid_utf8(text)) {
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
    return value.dump(indent, ' ', false, json::error_handler_t::replace);
  } catch (const std::exception& e) {
    return json(std::string("(not serialisable: ") + escape_invalid_utf8(e.what()) + ")").dump();
  }
}

std::string safe_excerpt(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return escape_invalid_utf8(text);
  return escape_invalid_utf8(text.substr(0, limit)) + "...";
}

}  // namespace toolwire::conformance
