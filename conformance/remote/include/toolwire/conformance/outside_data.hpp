// What comes from outside the suite (a target's answers, its model requests, SSE data,
// profile files) is read through these: UTF-8 checked, JSON nesting and sizes bounded,
// and every serialisation safe. A hostile or broken target then gets evidence, never a
// crash or an out-of-memory kill of the suite (docs/conformance.md, "Limits").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "toolwire/protocol/types.hpp"

namespace toolwire::conformance {

using protocol::json;

//! Deepest JSON nesting (arrays and objects) the suite reads from outside.
inline constexpr std::size_t max_json_depth = 128;
//! Largest body of a target's answer, and of a model request to the stand-in.
inline constexpr std::size_t max_body_bytes = std::size_t{8} << 20;
//! Longest line of an event stream.
inline constexpr std::size_t max_sse_line_bytes = std::size_t{1} << 20;

//! The offset of the first byte that is not part of well-formed UTF-8 (RFC 3629: no
//! overlong forms, no surrogates, nothing above U+10FFFF), or nullopt when all are.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

//! `text` with every byte that is not part of well-formed UTF-8 written as `\xHH`, so
//! evidence shows what was sent without carrying it raw.
std::string escape_invalid_utf8(std::string_view text);

//! Whether arrays and objects in `text` nest deeper than `limit` (strings are skipped).
//! One pass, no recursion: safe on any input.
bool nested_deeper_than(std::string_view text, std::size_t limit = max_json_depth);

//! Parses outside JSON: the value, or why not (invalid UTF-8 with its offset, nesting
//! deeper than max_json_depth, or the syntax error), in words that quote no raw byte.
std::variant<json, std::string> parse_outside_json(std::string_view text);

//! `value.dump(indent)` that cannot throw: invalid UTF-8 becomes U+FFFD.
std::string safe_dump(const json& value, int indent = -1);

//! At most `limit` bytes of `text`, escaped as escape_invalid_utf8, with "..." when cut.
std::string safe_excerpt(std::string_view text, std::size_t limit = 200);

}  // namespace toolwire::conformance
