// Outside JSON, handled safely: bounded parsing (UTF-8, nesting depth, number range) and
// serialization that never throws on invalid UTF-8.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/protocol/outcome.hpp"
#include "toolwire/protocol/types.hpp"

namespace toolwire::protocol {

//! The deepest nesting of arrays and objects accepted in any outside JSON (a body, a
//! model answer, a tool call's arguments, a model script). Why a limit: copying and
//! serializing a JSON value recurse once per level, so an unbounded depth overflows the
//! stack. 128 is far above any real schema or result and far below the stack's reach.
inline constexpr std::size_t max_json_depth = 128;

//! Serializes `value`; invalid UTF-8 in a string becomes U+FFFD instead of throwing
//! (nlohmann's type_error.316). Use it for every value that holds outside data.
std::string safe_dump(const json& value, int indent = -1);

//! Appends `value` to `out` as `safe_dump(value)` writes it. Why: a value written into a
//! larger text (an offered tool's parameters into a model request) needs no string of its
//! own.
void append_json(std::string& out, const json& value);

//! Appends `text` as a JSON string, exactly as `safe_dump(json(text))` writes it. Why:
//! names and descriptions are written into large documents without a JSON value each; the
//! plain printable ASCII of nearly every name is copied, anything else goes through
//! `safe_dump`.
void append_json_string(std::string& out, std::string_view text);

//! The offset of the first byte that is not strict UTF-8 (RFC 3629: no overlong forms,
//! no surrogates, nothing above U+10FFFF), or npos when all of `text` is valid.
std::size_t first_invalid_utf8(std::string_view text);

//! `text` with every byte that is not valid UTF-8, and every control character, written
//! as `\xNN`, so a message can mention outside text without carrying raw bytes.
std::string escape_bytes(std::string_view text);

//! The nesting depth of JSON text (arrays and objects; strings skipped), counted without
//! recursion and without building anything. Stops once it exceeds `stop_above`. Text that
//! is not JSON gets a depth too; the parser rejects it afterwards.
std::size_t json_nesting_depth(std::string_view text, std::size_t stop_above = max_json_depth);

//! Parses outside JSON text. Rejects, with an invalid_request error whose message starts
//! with `what` and never quotes a raw byte: invalid UTF-8, nesting deeper than
//! `max_json_depth`, a number beyond the range of a double (1e400), malformed JSON.
outcome<json> parse_untrusted_json(std::string_view text, std::string_view what = "body");

//! The string at `object[key]`, or "" when `object` is not an object, lacks `key`, or holds
//! something else there. Why: nlohmann's `value(key, "")` throws on a number or on a body
//! that is an array, and an outside answer may hold either; a reader of outside data gets
//! an empty id instead, which no later step matches.
std::string string_at(const json& object, std::string_view key);

//! `object[key]` when `object` is an object that has `key`, else a null value; never throws
//! and never inserts (unlike `operator[]`).
const json& member_at(const json& object, std::string_view key);

//! The strings among the items of `list` (nothing when it is not an array): a list of names
//! read from outside data, where an item of another type names nothing.
std::vector<std::string> strings_in(const json& list);

}  // namespace toolwire::protocol
