// Bounded parsing and non-throwing serialization of outside JSON.
#include "toolwire/protocol/safe_json.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <utility>

namespace toolwire::protocol {
namespace {

//! The length of the valid UTF-8 sequence at `text[i]`, or 0 when it is not one.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t length = 0;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xBF;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;  // overlong
    if (lead == 0xED) second_max = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;  // overlong
    if (lead == 0xF4) second_max = 0x8F;  // above U+10FFFF
  } else {
    return 0;  // 0x80..0xC1 (continuation, overlong lead) and 0xF5..0xFF
  }
  if (text.size() - i < length) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    const auto byte = static_cast<unsigned char>(text[i + k]);
    const auto min = k == 1 ? second_min : static_cast<unsigned char>(0x80);
    const auto max = k == 1 ? second_max : static_cast<unsigned char>(0xBF);
    if (byte < min || byte > max) return 0;
  }
  return length;
}

std::string hex_byte(unsigned char byte) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "\\x%02X", static_cast<unsigned>(byte));
  return buffer;
}

//! nlohmann's parse_error message without its "[json.exception.parse_error.N] " prefix.
std::string parse_error_detail(const json::exception& error) {
  std::string detail = error.what();
  const auto bracket = detail.find("] ");
  if (detail.starts_with("[json.exception.") && bracket != std::string::npos) {
    detail.erase(0, bracket + 2);
  }
  // Why escape again: the message quotes the last token read; the text was checked to be
  // UTF-8, but control bytes are still better shown as escapes.
  return escape_bytes(detail);
}

}  // namespace

namespace {

//! Appends what nlohmann's own serializer writes for `value` (compact when `indent` < 0),
//! invalid UTF-8 as U+FFFD. Its serializer and output are kept per thread: json::dump
//! builds both anew for every value (a shared output adapter, the locale's separators, a
//! string grown step by step).
void append_as_nlohmann(std::string& out, const json& value, int indent = -1) {
  thread_local std::string text;
  thread_local nlohmann::detail::serializer<json> writer(
      nlohmann::detail::output_adapter<char, std::string>(text), ' ',
      json::error_handler_t::replace);
  text.clear();
  if (indent >= 0) {
    writer.dump(value, true, false, static_cast<unsigned>(indent));
  } else {
    writer.dump(value, false, false, 0);
  }
  out += text;
}

bool plain_ascii(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
}

template <typename Integer>
void append_integer(std::string& out, Integer number) {
  char digits[24];
  const auto written = std::to_chars(std::begin(digits), std::end(digits), number);
  out.append(digits, written.ptr);
}

//! The compact form, byte for byte what json::dump writes (tested against it). Why not
//! json::dump: it decodes every byte of every key and string as UTF-8, which was most of
//! what writing a small answer such as a ping's cost; here plain ASCII text is copied, and
//! whatever else (other text, a floating-point number) is left to nlohmann.
void append_compact(std::string& out, const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      out += "null";
      return;
    case json::value_t::boolean:
      out += value.get<bool>() ? "true" : "false";
      return;
    case json::value_t::number_integer:
      append_integer(out, value.get<json::number_integer_t>());
      return;
    case json::value_t::number_unsigned:
      append_integer(out, value.get<json::number_unsigned_t>());
      return;
    case json::value_t::string:
      append_json_string(out, value.get_ref<const std::string&>());
      return;
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& item : value.get_ref<const json::array_t&>()) {
        if (!std::exchange(first, false)) out += ',';
        append_compact(out, item);
      }
      out += ']';
      return;
    }
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, item] : value.get_ref<const json::object_t&>()) {
        if (!std::exchange(first, false)) out += ',';
        append_json_string(out, key);
        out += ':';
        append_compact(out, item);
      }
      out += '}';
      return;
    }
    case json::value_t::number_float:
    case json::value_t::binary:
    case json::value_t::discarded:
      append_as_nlohmann(out, value);
      return;
  }
}

}  // namespace

std::string safe_dump(const json& value, int indent) {
  std::string text;
  text.reserve(64);  // most answers and events fit; growing from empty took three allocations
  if (indent >= 0) {
    append_as_nlohmann(text, value, indent);
  } else {
    append_compact(text, value);
  }
  return text;
}

void append_json(std::string& out, const json& value) {
  append_compact(out, value);
}

void append_json_string(std::string& out, std::string_view text) {
  if (!plain_ascii(text)) {
    append_as_nlohmann(out, json(std::string(text)));
    return;
  }
  out += '"';
  out += text;
  out += '"';
}

std::size_t first_invalid_utf8(std::string_view text) {
  // Why ASCII first: every header name and value, target and body of every request is
  // checked, nearly all of it ASCII, and a byte below 0x80 is a whole sequence. One pass
  // without a branch per byte settles that; only text with another byte is walked.
  unsigned char all_bytes = 0;
  for (const char c : text)
    all_bytes |= static_cast<unsigned char>(c);
  if (all_bytes < 0x80) return std::string_view::npos;
  std::size_t i = 0;
  while (i < text.size()) {
    // ASCII runs are skipped eight bytes at a time (a long body with a few other letters).
    if (text.size() - i >= sizeof(std::uint64_t)) {
      std::uint64_t word = 0;
      std::memcpy(&word, text.data() + i, sizeof word);
      if ((word & 0x8080808080808080ULL) == 0) {
        i += sizeof word;
        continue;
      }
    }
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string_view::npos;
}

std::string escape_bytes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t length = utf8_sequence_length(text, i);
    const auto byte = static_cast<unsigned char>(text[i]);
    if (length == 0 || byte < 0x20 || byte == 0x7F) {
      out += hex_byte(byte);
      ++i;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

std::size_t json_nesting_depth(std::string_view text, std::size_t stop_above) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  bool escaped = false;
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
      ++depth;
      if (depth > deepest) deepest = depth;
      if (deepest > stop_above) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

outcome<json> parse_untrusted_json(std::string_view text, std::string_view what) {
  const std::string prefix = std::string(what) + ": ";
  if (const auto bad = first_invalid_utf8(text); bad != std::string_view::npos) {
    return invalid_request(prefix + "not valid UTF-8 (byte " +
                           hex_byte(static_cast<unsigned char>(text[bad])) + " at offset " +
                           std::to_string(bad) + ") (C-1)");
  }
  if (json_nesting_depth(text) > max_json_depth) {
    return invalid_request(prefix + "nested deeper than " + std::to_string(max_json_depth) +
                           " levels");
  }
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::out_of_range&) {
    // nlohmann reports a number that overflows a double (1e400) as out_of_range.406.
    return invalid_request(prefix + "a number is out of range");
  } catch (const json::exception& error) {
    return invalid_request(prefix + "malformed JSON: " + parse_error_detail(error));
  }
}

const json& member_at(const json& object, std::string_view key) {
  static const json none;
  if (!object.is_object()) return none;
  const auto found = object.find(key);
  return found == object.end() ? none : *found;
}

std::string string_at(const json& object, std::string_view key) {
  const json& member = member_at(object, key);
  return member.is_string() ? member.get<std::string>() : std::string();
}

std::vector<std::string> strings_in(const json& list) {
  std::vector<std::string> strings;
  if (!list.is_array()) return strings;
  for (const auto& item : list) {
    if (item.is_string()) strings.push_back(item.get<std::string>());
  }
  return strings;
}

}  // namespace toolwire::protocol
