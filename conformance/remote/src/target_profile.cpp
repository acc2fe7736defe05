// Target profiles: parsing and validation, with errors that name the file and the field.
#include "toolwire/conformance/target_profile.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <vector>

#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/protocol/validation.hpp"
#include "toolwire/scenarios/vocabulary.hpp"

namespace toolwire::conformance {

namespace {

using check = std::optional<protocol::api_error>;

// Why "$schema": a profile may name profile.schema.json so that editors validate it.
const std::vector<std::string_view> known_fields = {"$schema",
                                                    "name",
                                                    "base_url",
                                                    "api_key",
                                                    "api_key_env",
                                                    "limited_api_key",
                                                    "limited_api_key_env",
                                                    "parts",
                                                    "model_stand_in",
                                                    "assistant_id",
                                                    "clock",
                                                    "cors_origin",
                                                    "ack_timeout_ms",
                                                    "result_timeout_ms",
                                                    "interrupt_timeout_ms",
                                                    "settle_ms",
                                                    "request_timeout_ms",
                                                    "timing_tolerance_ms",
                                                    "overrides"};

// api_key or api_key_env: one of them (profile_reader::key).
const std::vector<std::string_view> required_fields = {"name", "base_url", "parts",
                                                       "model_stand_in", "clock"};

//! A value as an error quotes it: short, and never more than a line.
std::string shown(const json& value) {
  std::string text = safe_dump(value);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

std::optional<std::uint16_t> port_of(std::string_view text) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < 1 || value > 65535) {
    return std::nullopt;
  }
  return static_cast<std::uint16_t>(value);
}

//! `host:port` or `[v6]:port`; the port is required.
std::optional<host_port> parse_host_port(std::string_view text) {
  host_port out;
  std::string_view port;
  if (text.starts_with("[")) {
    const auto close = text.find("]:");
    if (close == std::string_view::npos) return std::nullopt;
    out.host = std::string(text.substr(1, close - 1));
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    out.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
    if (out.host.find(':') != std::string::npos) return std::nullopt;  // v6 needs brackets
  }
  const auto number = port_of(port);
  if (out.host.empty() || out.host.find_first_of("/?#@ ") != std::string::npos || !number) {
    return std::nullopt;
  }
  out.port = *number;
  return out;
}

class profile_reader {
 public:
  profile_reader(const json& doc, std::string_view source) : doc_(doc), source_(source) {}

  protocol::api_error fail(std::string_view field, const std::string& what) const {
    return protocol::invalid_request(source_ + ": field '" + std::string(field) + "': " + what);
  }
  protocol::api_error problem(const std::string& what) const {
    return protocol::invalid_request(source_ + ": " + what);
  }
  bool has(std::string_view field) const { return doc_.contains(field); }
  const json& at(std::string_view field) const { return doc_.at(std::string(field)); }

  check fields() const;
  //! A non-empty string. A secret's value is never quoted.
  check text(std::string_view field, std::string& out, bool secret = false) const;
  //! A positive (or, with `allow_zero`, non-negative) integer of milliseconds.
  check millis(std::string_view field, time_ms& out, bool allow_zero = false) const;
  //! A key given as `field` (its value) or as `field`_env (the environment variable that
  //! holds it, so that no key sits in a file), not both; `required`: one of them.
  check key(std::string_view field, std::string& out, bool required) const;
  check base_url(host_port& out) const;
  check stand_in(host_port& out) const;
  check parts(target_profile& out) const;
  check assistant(target_profile& out) const;
  check clock(bool& out) const;
  check cors_origin(std::string& out) const;
  check overrides(json& out) const;

 private:
  const json& doc_;
  std::string source_;
};

check profile_reader::fields() const {
  for (const auto& [key, value] : doc_.items()) {
    if (std::find(known_fields.begin(), known_fields.end(), key) != known_fields.end()) continue;
    const auto suggestion = scenarios::vocabulary::closest(key, known_fields);
    if (!suggestion.empty()) {
      return problem("unknown field '" + key + "' (did you mean '" + std::string(suggestion) +
                     "'?)");
    }
    return problem("unknown field '" + key + "'; see docs/target-profile.md for the fields");
  }
  for (const auto field : required_fields) {
    if (!has(field)) return problem("field '" + std::string(field) + "' is required");
  }
  return std::nullopt;
}

check profile_reader::text(std::string_view field, std::string& out, bool secret) const {
  const json& value = at(field);
  if (!value.is_string() || value.get<std::string>().empty()) {
    return fail(field, secret ? "must be a non-empty string"
                              : "must be a non-empty string, got " + shown(value));
  }
  out = value.get<std::string>();
  return std::nullopt;
}

check profile_reader::key(std::string_view field, std::string& out, bool required) const {
  const std::string env_field = std::string(field) + "_env";
  if (has(field) && has(env_field)) {
    return problem("give '" + std::string(field) + "' or '" + env_field + "', not both");
  }
  if (has(field)) return text(field, out, /*secret=*/true);
  if (!has(env_field)) {
    if (!required) return std::nullopt;
    return problem("field '" + std::string(field) + "' (or '" + env_field +
                   "', the environment variable that holds it) is required");
  }
  std::string variable;
  if (auto error = text(env_field, variable)) return error;
  const char* value = std::getenv(variable.c_str());
  if (value == nullptr || *value == '\0') {
    return fail(env_field, "names the environment variable " + variable + ", which is " +
                               (value == nullptr ? "not set" : "empty") +
                               " here: export it (in CI, from a secret) before running toolwire");
  }
  out = value;
  return std::nullopt;
}

check profile_reader::millis(std::string_view field, time_ms& out, bool allow_zero) const {
  if (!has(field)) return std::nullopt;  // the default stands
  const json& value = at(field);
  const bool integer = value.is_number_integer();
  const time_ms number = integer ? value.get<time_ms>() : 0;
  if (!integer || number < 0 || (number == 0 && !allow_zero)) {
    return fail(field, std::string("must be a ") + (allow_zero ? "non-negative" : "positive") +
                           " integer of milliseconds, got " + shown(value));
  }
  out = number;
  return std::nullopt;
}

check profile_reader::base_url(host_port& out) const {
  constexpr std::string_view field = "base_url";
  std::string url;
  if (auto error = text(field, url)) return error;
  if (url.starts_with("https://")) {
    return fail(field, "https is not supported; the suite speaks plain http://host:port");
  }
  std::string_view rest = url;
  std::optional<host_port> parsed;
  if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
    if (rest.ends_with("/")) rest.remove_suffix(1);
    parsed = parse_host_port(rest);
  }
  if (!parsed) return fail(field, "must be http://host:port, got " + shown(at(field)));
  out = *parsed;
  return std::nullopt;
}

check profile_reader::stand_in(host_port& out) const {
  constexpr std::string_view field = "model_stand_in";
  std::string address;
  if (auto error = text(field, address)) return error;
  auto parsed = parse_host_port(address);
  if (!parsed) {
    return fail(field, "must be host:port with a port from 1 to 65535, got " + shown(at(field)));
  }
  out = *parsed;
  return std::nullopt;
}

check profile_reader::parts(target_profile& out) const {
  const json& value = at("parts");
  const auto bad = [&] {
    return fail("parts", "must be a non-empty array of \"A\" and \"B\", got " + shown(value));
  };
  if (!value.is_array() || value.empty()) return bad();
  for (const auto& part : value) {
    if (part == "A") {
      out.part_a = true;
    } else if (part == "B") {
      out.part_b = true;
    } else {
      return bad();
    }
  }
  return std::nullopt;
}

check profile_reader::assistant(target_profile& out) const {
  if (!has("assistant_id")) {
    if (out.part_b) return problem("field 'assistant_id' is required when parts has \"B\"");
    return std::nullopt;
  }
  const json& value = at("assistant_id");
  if (!value.is_number_integer()) {
    return fail("assistant_id", "must be an integer, got " + shown(value));
  }
  out.assistant_id = value.get<std::int64_t>();
  return std::nullopt;
}

check profile_reader::clock(bool& out) const {
  const json& value = at("clock");
  if (value != "virtual" && value != "real") {
    return fail("clock", "must be \"virtual\" or \"real\", got " + shown(value));
  }
  out = value == "virtual";
  return std::nullopt;
}

check profile_reader::cors_origin(std::string& out) const {
  constexpr std::string_view field = "cors_origin";
  if (!has(field)) return std::nullopt;
  if (!at(field).is_string()) return fail(field, "must be a string, got " + shown(at(field)));
  auto origin = protocol::parse_origin(at(field).get<std::string>());
  if (!origin) return fail(field, origin.error().message);
  out = *origin;
  return std::nullopt;
}

check profile_reader::overrides(json& out) const {
  if (!has("overrides")) return std::nullopt;
  if (!at("overrides").is_object()) {
    return fail("overrides", "must be an object, got " + shown(at("overrides")));
  }
  out = at("overrides");
  return std::nullopt;
}

//! Every check in order; the first failure is the answer.
check read_all(const profile_reader& r, target_profile& p) {
  const std::vector<std::function<check()>> checks = {
      [&] { return r.fields(); },
      [&] { return r.text("name", p.name); },
      [&] { return r.base_url(p.base); },
      [&] { return r.key("api_key", p.api_key, /*required=*/true); },
      [&] { return r.key("limited_api_key", p.limited_api_key, /*required=*/false); },
      [&] { return r.parts(p); },
      [&] { return r.stand_in(p.model_stand_in); },
      [&] { return r.assistant(p); },
      [&] { return r.clock(p.virtual_clock); },
      [&] { return r.cors_origin(p.cors_origin); },
      [&] { return r.millis("ack_timeout_ms", p.ack_timeout_ms); },
      [&] { return r.millis("result_timeout_ms", p.result_timeout_ms); },
      [&] { return r.millis("interrupt_timeout_ms", p.interrupt_timeout_ms); },
      [&] { return r.millis("settle_ms", p.settle_ms, true); },
      [&] { return r.millis("request_timeout_ms", p.request_timeout_ms); },
      [&] {
        p.timing_tolerance_stated = r.has("timing_tolerance_ms");
        return r.millis("timing_tolerance_ms", p.timing_tolerance_ms);
      },
      [&] { return r.overrides(p.overrides); },
  };
  for (const auto& run : checks) {
    if (auto error = run()) return error;
  }
  if (p.result_timeout_ms <= p.ack_timeout_ms) {
    return r.fail("result_timeout_ms", "must be greater than ack_timeout_ms (" +
                                           std::to_string(p.ack_timeout_ms) + "), got " +
                                           std::to_string(p.result_timeout_ms));
  }
  return std::nullopt;
}

//! "source:LINE: invalid JSON: <what nlohmann says after its position prefix>".
//! A number too large for a double (say 2000e555552) is no syntax error to nlohmann, but an
//! out_of_range that quotes the number: found again in the text, it gives the line.
protocol::api_error number_out_of_range(std::string_view text, std::string_view source,
                                        const json::out_of_range& e) {
  const std::string what = e.what();
  const auto open = what.find('\'');
  const auto close = what.rfind('\'');
  std::string where(source);
  if (open != std::string::npos && close > open) {
    const std::string number = what.substr(open + 1, close - open - 1);
    if (const auto at = text.find(number); !number.empty() && at != std::string_view::npos) {
      where += ":" +
               std::to_string(1 + std::count(text.begin(),
                                             text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
      return protocol::invalid_request(where + ": invalid JSON: the number " + number +
                                       " is out of range");
    }
  }
  return protocol::invalid_request(where + ": invalid JSON: a number is out of range");
}

protocol::api_error syntax_error(std::string_view text, std::string_view source,
                                 const json::parse_error& e) {
  const std::size_t end = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
  const auto line =
      1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n');
  std::string what = e.what();
  if (const auto column = what.find("column "); column != std::string::npos) {
    if (const auto colon = what.find(": ", column); colon != std::string::npos) {
      what = what.substr(colon + 2);
    }
  }
  return protocol::invalid_request(std::string(source) + ":" + std::to_string(line) +
                                   ": invalid JSON: " + what);
}

}  // namespace

std::string host_port::to_string() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

bool target_profile::meets(std::string_view requirement) const {
  if (requirement == "part_a") return part_a;
  if (requirement == "part_b") return part_b;
  if (requirement == "virtual_clock") return virtual_clock;
  if (requirement == "exact_timing") return virtual_clock;
  if (requirement == "limited_key") return !limited_api_key.empty();
  if (requirement == "cors") return !cors_origin.empty();
  // A tab pings on the wall clock: a virtual clock that moves only when the suite moves it
  // would expire a pinging tab or keep a closed one alive.
  if (requirement == "browser") return !virtual_clock;
  return false;
}

protocol::outcome<target_profile> parse_profile(std::string_view text, std::string_view source) {
  if (auto bad = first_invalid_utf8(text)) {
    const auto line =
        1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(*bad), '\n');
    return protocol::invalid_request(std::string(source) + ":" + std::to_string(line) +
                                     ": not valid UTF-8 (byte " +
                                     escape_invalid_utf8(text.substr(*bad, 1)) + ")");
  }
  if (nested_deeper_than(text)) {
    return protocol::invalid_request(std::string(source) + ": JSON nested deeper than " +
                                     std::to_string(max_json_depth) + " levels");
  }
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return syntax_error(text, source, e);
  } catch (const json::out_of_range& e) {
    return number_out_of_range(text, source, e);
  } catch (const json::exception& e) {
    return protocol::invalid_request(std::string(source) + ": invalid JSON: " + e.what());
  }
  if (!doc.is_object()) {
    return protocol::invalid_request(std::string(source) +
                                     ": a target profile is a JSON object, got " + shown(doc));
  }
  target_profile profile;
  if (auto error = read_all(profile_reader(doc, source), profile)) return *error;
  return profile;
}

namespace {

// Why here, one table: the profile reader names fields ("field 'base_url'"), the preflight
// and the remedies name what to change; a user who gave flags must read the flags.
constexpr std::array<std::pair<std::string_view, std::string_view>, 14> flag_of_field = {{
    {"name", "--name"},
    {"base_url", "--base-url"},
    {"api_key", "--api-key-env"},
    {"api_key_env", "--api-key-env"},
    {"limited_api_key", "--limited-api-key-env"},
    {"limited_api_key_env", "--limited-api-key-env"},
    {"parts", "--parts"},
    {"model_stand_in", "--model-stand-in"},
    {"assistant_id", "--assistant-id"},
    {"clock", "--clock"},
    {"ack_timeout_ms", "--ack-timeout-ms"},
    {"result_timeout_ms", "--result-timeout-ms"},
    {"interrupt_timeout_ms", "--interrupt-timeout-ms"},
    {"timing_tolerance_ms", "--timing-tolerance-ms"},
}};

}  // namespace

std::string_view flag_for_field(std::string_view field) {
  for (const auto& [name, flag] : flag_of_field) {
    if (name == field) return flag;
  }
  return "";
}

std::string fields_as_flags(std::string message) {
  for (const auto& [field, flag] : flag_of_field) {
    const std::string quoted = "field '" + std::string(field) + "'";
    if (const auto at = message.find(quoted); at != std::string::npos) {
      message.replace(at, quoted.size(), flag);
    }
  }
  return message;
}

std::string term_for(const target_profile& profile, std::string_view field) {
  const auto flag = flag_for_field(field);
  if (!profile.given_as_flags || flag.empty()) return std::string(field);
  // A key is not given by its flag but by the variable it names.
  if (field == "api_key" || field == "limited_api_key") {
    return "the key " + std::string(flag) + " names";
  }
  return std::string(flag);
}

std::string how_to_set(const target_profile& profile, std::string_view field,
                       std::string_view value) {
  const auto flag = flag_for_field(field);
  if (!profile.given_as_flags || flag.empty()) {
    return "set \"" + std::string(field) + "\": " + std::string(value) + " in the profile";
  }
  std::string bare(value);
  if (bare.size() >= 2 && bare.front() == '"' && bare.back() == '"') {
    bare = bare.substr(1, bare.size() - 2);
  }
  return "pass " + std::string(flag) + " " + bare;
}

protocol::outcome<target_profile> load_profile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return protocol::invalid_request(
        path +
        ": is a directory; a target profile is a JSON file (toolwire profile init FILE "
        "writes one)");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return protocol::invalid_request(path + ": cannot read the file");
  // Why a bound: a profile is a few hundred bytes; a device or a huge file is a mistake.
  constexpr std::size_t max_profile_bytes = std::size_t{1} << 20;
  std::string text(max_profile_bytes + 1, '\0');
  file.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(file.gcount()));
  if (text.size() > max_profile_bytes) {
    return protocol::invalid_request(path + ": larger than 1 MiB; a profile is a small JSON file");
  }
  return parse_profile(text, path);
}

}  // namespace toolwire::conformance
