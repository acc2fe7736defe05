// Reading YAML nodes as the scenario format's values: mappings with known keys, typed
// scalars, durations, JSON, each failure naming its line. Internal to the loader.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "toolwire/protocol/types.hpp"

namespace toolwire::scenarios::detail {

using protocol::json;
using protocol::time_ms;

//! A problem in the scenario text, at a 1-based line.
//! Why an exception: reading is all-or-nothing and nests deeply; unwinding drops the
//! half-built scenario on the way out. It never leaves the library: load_text catches it
//! and returns the message as a value.
struct load_error {
  int line = 1;
  std::string problem;
};

[[noreturn]] void fail(int line, std::string problem);

//! A YAML value with the name it goes by in messages ("ttl", "tools") and where it is.
struct value {
  std::string name;
  YAML::Node node;
  int line = 1;      // the value's line, or its key's when the value is empty
  int key_line = 1;  // the key's line (the value's own for list items)
};

//! "unknown action 'pnig' (did you mean 'ping'?)": `known` gives the suggestion; `of`
//! names the owner ("of 'ping'") when there is one.
std::string unknown(std::string_view what, std::string_view word,
                    const std::vector<std::string_view>& known, std::string_view of = "");

//! "'ttl' must be an integer, got 'ten'".
[[noreturn]] void wrong_type(const value& v, std::string_view expected);

//! A scalar's text, always valid UTF-8. Why not Node::Scalar(): yaml-cpp decodes the
//! double-quoted escapes `\N` and `\_` into the lone bytes 0x85 and 0xA0, not into U+0085
//! and U+00A0 as YAML 1.2 (5.7) says; such a string cannot be written back as JSON. The
//! file's own bytes were checked before parsing, so those escapes are the only source.
std::string scalar_text(const YAML::Node& node);

//! How a value reads in a message: "'ten'", "a mapping", "a list", "nothing".
std::string described(const YAML::Node& node);

//! A YAML mapping read key by key. Empty (null) reads as no keys; anything else but a
//! mapping, and a key written twice, fail.
class mapping {
 public:
  explicit mapping(const value& whole);

  const value* find(std::string_view key) const;
  //! The key's value; fails naming the key and `help` when it is absent.
  const value& require(std::string_view key, std::string_view help) const;
  const std::vector<value>& entries() const { return entries_; }
  int line() const { return line_; }

  //! Fails on the first key not in `known`: "unknown <noun> 'x' <of> (did you mean 'y'?)".
  void allow_only(const std::vector<std::string_view>& known, std::string_view noun = "key",
                  std::string_view of = "") const;

 private:
  std::vector<value> entries_;
  int line_ = 1;
};

//! The items of a list (null reads as none), each named after the list.
std::vector<value> list_items(const value& list);

std::string as_string(const value& v);
std::int64_t as_integer(const value& v);
bool as_boolean(const value& v);
time_ms as_duration(const value& v);
//! Any YAML as JSON: quoted scalars are strings; plain ones may be null, booleans or numbers.
json as_json(const YAML::Node& node);
json as_object(const value& v);
std::vector<std::string> as_string_list(const value& v);

//! A plain (unquoted) scalar's JSON reading, as as_json does it: "12" is 12, "true" is true,
//! "~" is null, "web" is "web". The writer quotes strings this would misread.
json plain_scalar(const std::string& text);

std::optional<time_ms> parse_duration(std::string_view text);
//! The shortest exact spelling: 3600000 → "1h", 90000 → "90s", 1500 → "1500ms".
std::string format_duration(time_ms ms);

}  // namespace toolwire::scenarios::detail
