// Reading YAML nodes as the scenario format's values.
#include "yaml_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/scenarios/vocabulary.hpp"

namespace toolwire::scenarios::detail {

void fail(int line, std::string problem) {
  throw load_error{line, std::move(problem)};
}

std::string unknown(std::string_view what, std::string_view word,
                    const std::vector<std::string_view>& known, std::string_view of) {
  // Why appends, not `"..." + std::string(...) + ...`: g++ 12 at -O3 reports a false
  // -Wrestrict inside the inlined operator+ chain (GCC PR 105329); appending to one string
  // says the same and builds cleanly.
  std::string message = "unknown ";
  message.append(what).append(" '").append(word).append("'");
  if (!of.empty()) message.append(" ").append(of);
  const auto suggestion = scenarios::vocabulary::closest(word, known);
  if (!suggestion.empty()) message.append(" (did you mean '").append(suggestion).append("'?)");
  return message;
}

namespace {

int line_of(const YAML::Node& node, int fallback) {
  const auto mark = node.Mark();
  return mark.is_null() ? fallback : mark.line + 1;
}

//! A value's line. Why the fallback: yaml-cpp marks an empty value at the token after it,
//! which is on a later line.
int value_line(const YAML::Node& node, int key_line) {
  return node.IsNull() ? key_line : line_of(node, key_line);
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return {};
  return number;
}

//! Whether `text` is a YAML 1.2 core-schema float: [-+]?(.d+|d+(.d*)?)([eE][-+]?d+)?.
//! Why no std::regex: libstdc++'s matcher recurses once per character, so a long scalar
//! of digits overflows the stack (a scenario file is outside input).
bool is_float(std::string_view text) {
  std::size_t at = 0;
  const auto digits = [&] {
    const std::size_t start = at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9')
      ++at;
    return at - start;
  };
  if (at < text.size() && (text[at] == '-' || text[at] == '+')) ++at;
  const std::size_t whole = digits();
  std::size_t fraction = 0;
  if (at < text.size() && text[at] == '.') {
    ++at;
    fraction = digits();
  }
  if (whole == 0 && fraction == 0) return false;
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    if (at < text.size() && (text[at] == '-' || text[at] == '+')) ++at;
    if (digits() == 0) return false;
  }
  return at == text.size();
}

//! How many YAML values one `as_json` may visit. Why: an alias repeats its anchor's whole
//! value, so ten aliases of ten aliases ("billion laughs") expand far past anything a
//! scenario holds; a budget turns that into an error instead of hours and gigabytes.
constexpr std::size_t max_json_values = 100'000;

json as_json_bounded(const YAML::Node& node, std::size_t depth, std::size_t& budget,
                     int outer_line) {
  const int line = line_of(node, outer_line);
  // Why a depth limit here too: an alias inside its own anchor (`&a [*a]`) makes a
  // cycle, and nesting is otherwise only bounded by yaml-cpp's own limit of 2000.
  if (depth > protocol::max_json_depth) {
    fail(line, "nested deeper than " + std::to_string(protocol::max_json_depth) +
                   " levels (or an alias that contains itself)");
  }
  if (budget == 0) {
    fail(line,
         "more than " + std::to_string(max_json_values) + " values once aliases are expanded");
  }
  --budget;
  if (node.IsMap()) {
    json object = json::object();
    for (auto it = node.begin(); it != node.end(); ++it)
      object[scalar_text(it->first)] = as_json_bounded(it->second, depth + 1, budget, line);
    return object;
  }
  if (node.IsSequence()) {
    json array = json::array();
    for (const auto& item : node)
      array.push_back(as_json_bounded(item, depth + 1, budget, line));
    return array;
  }
  if (!node.IsScalar()) return nullptr;
  // Why the tag: yaml-cpp tags a quoted or block scalar "!", a plain one "?"; only a plain
  // scalar may be a number, a boolean or null, so `'12'` stays the string "12".
  return node.Tag() == "!" ? json(scalar_text(node)) : plain_scalar(scalar_text(node));
}

}  // namespace

[[noreturn]] void wrong_type(const value& v, std::string_view expected) {
  fail(v.line, "'" + v.name + "' must be " + std::string(expected) + ", got " + described(v.node));
}

std::string scalar_text(const YAML::Node& node) {
  const std::string& raw = node.Scalar();
  std::string text;
  std::size_t done = 0;
  for (;;) {
    const std::size_t bad = protocol::first_invalid_utf8(std::string_view(raw).substr(done));
    if (bad == std::string_view::npos) break;
    text.append(raw, done, bad);
    const auto byte = static_cast<unsigned char>(raw[done + bad]);
    // 0x85 and 0xA0 are yaml-cpp's `\N` and `\_`; anything else cannot come from a file
    // that passed the check, but is still made U+FFFD rather than passed on.
    text += byte == 0x85 || byte == 0xA0 ? std::string{'\xC2', static_cast<char>(byte)}
                                         : std::string("\xEF\xBF\xBD");
    done += bad + 1;
  }
  if (done == 0) return raw;
  text.append(raw, done);
  return text;
}

std::string described(const YAML::Node& node) {
  if (node.IsScalar()) {
    std::string quoted = "'";  // appends: see unknown() on g++ 12's false -Wrestrict
    quoted.append(scalar_text(node)).append("'");
    return quoted;
  }
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  return "nothing";
}

mapping::mapping(const value& whole) : line_(whole.line) {
  if (whole.node.IsNull()) return;
  if (!whole.node.IsMap()) wrong_type(whole, "a mapping");
  for (auto it = whole.node.begin(); it != whole.node.end(); ++it) {
    const int key_line = line_of(it->first, whole.line);
    if (!it->first.IsScalar()) fail(key_line, "a key of '" + whole.name + "' must be a word");
    std::string key = scalar_text(it->first);
    if (find(key)) fail(key_line, "'" + key + "' is written twice");
    entries_.push_back({key, it->second, value_line(it->second, key_line), key_line});
  }
}

const value* mapping::find(std::string_view key) const {
  for (const auto& entry : entries_) {
    if (entry.name == key) return &entry;
  }
  return nullptr;
}

const value& mapping::require(std::string_view key, std::string_view help) const {
  if (const auto* found = find(key)) return *found;
  fail(line_, "missing '" + std::string(key) + "' (" + std::string(help) + ")");
}

void mapping::allow_only(const std::vector<std::string_view>& known, std::string_view noun,
                         std::string_view of) const {
  for (const auto& entry : entries_) {
    if (std::find(known.begin(), known.end(), entry.name) != known.end()) continue;
    fail(entry.key_line, unknown(noun, entry.name, known, of));
  }
}

std::vector<value> list_items(const value& list) {
  std::vector<value> items;
  if (list.node.IsNull()) return items;
  if (!list.node.IsSequence()) wrong_type(list, "a list");
  for (const auto& item : list.node) {
    const int line = value_line(item, list.line);
    items.push_back({list.name, item, line, line});
  }
  return items;
}

std::string as_string(const value& v) {
  if (!v.node.IsScalar()) wrong_type(v, "a string");
  return scalar_text(v.node);
}

std::int64_t as_integer(const value& v) {
  const auto number = v.node.IsScalar() ? parse_integer(scalar_text(v.node)) : std::nullopt;
  if (!number) wrong_type(v, "an integer");
  return *number;
}

bool as_boolean(const value& v) {
  const json reading =
      v.node.IsScalar() && v.node.Tag() != "!" ? plain_scalar(scalar_text(v.node)) : json();
  if (!reading.is_boolean()) wrong_type(v, "true or false");
  return reading.get<bool>();
}

time_ms as_duration(const value& v) {
  if (!v.node.IsScalar()) wrong_type(v, "a duration (500ms, 12s, 2m, 1h)");
  const auto ms = parse_duration(scalar_text(v.node));
  if (!ms) {
    fail(v.line, "bad duration '" + scalar_text(v.node) +
                     "' (write 500ms, 12s, 2m, 1h or an integer of milliseconds)");
  }
  return *ms;
}

json as_json(const YAML::Node& node) {
  std::size_t budget = max_json_values;
  return as_json_bounded(node, 0, budget, 1);
}

json as_object(const value& v) {
  if (!v.node.IsMap()) wrong_type(v, "a mapping");
  return as_json(v.node);
}

std::vector<std::string> as_string_list(const value& v) {
  std::vector<std::string> strings;
  for (const auto& item : list_items(v))
    strings.push_back(as_string(item));
  return strings;
}

json plain_scalar(const std::string& text) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (const auto integer = parse_integer(text)) return *integer;
  if (is_float(text)) {
    // Why finite only: 1e400 would read as infinity, which JSON cannot hold (it would be
    // written back as null); such a scalar stays the text it is.
    const double number = std::strtod(text.c_str(), nullptr);
    if (std::isfinite(number)) return number;
  }
  return text;
}

std::optional<time_ms> parse_duration(std::string_view text) {
  static const std::vector<std::pair<std::string_view, time_ms>> units = {
      {"ms", 1}, {"s", 1'000}, {"m", 60'000}, {"h", 3'600'000}, {"", 1}};
  for (const auto& [suffix, scale] : units) {
    if (!text.ends_with(suffix)) continue;
    std::string_view digits = text.substr(0, text.size() - suffix.size());
    time_ms count = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
    if (error != std::errc() || end != digits.data() + digits.size() || digits.empty()) continue;
    if (count < 0 || count > std::numeric_limits<time_ms>::max() / scale) return {};
    return count * scale;
  }
  return {};
}

std::string format_duration(time_ms ms) {
  if (ms != 0 && ms % 3'600'000 == 0) return std::to_string(ms / 3'600'000) + "h";
  if (ms != 0 && ms % 60'000 == 0) return std::to_string(ms / 60'000) + "m";
  if (ms % 1'000 == 0) return std::to_string(ms / 1'000) + "s";
  return std::to_string(ms) + "ms";
}

}  // namespace toolwire::scenarios::detail
