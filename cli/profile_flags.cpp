// Reading a target profile from flags.
#include "profile_flags.hpp"

#include <array>
#include <cstdlib>
#include <string_view>
#include <utility>

namespace toolwire::cli {

namespace {

using protocol::json;

constexpr std::string_view group = "Target from flags (instead of --target FILE)";

constexpr std::string_view source = "the target flags";

//! The profile's optional millisecond fields, each a flag of its own (profile_flags::millis_).
struct millis_flag {
  std::string_view field;
  std::string_view flag;
  std::string_view help;
};
constexpr std::array<millis_flag, 4> millis_flags = {{
    {"ack_timeout_ms", "--ack-timeout-ms", "the target's ack timeout (default 10000)"},
    {"result_timeout_ms", "--result-timeout-ms", "the target's result timeout (default 300000)"},
    {"interrupt_timeout_ms", "--interrupt-timeout-ms",
     "the target's interrupt timeout (default 600000)"},
    {"timing_tolerance_ms", "--timing-tolerance-ms",
     "with --clock real: how far either side of a deadline it is checked (default: derived "
     "from the target's speed, which the preflight measures; a stated value narrower than "
     "that speed needs is said)"},
}};

//! The profile reader's "the target flags: field 'x': ..." as "--x: ...".
protocol::api_error in_flag_terms(protocol::api_error error) {
  std::string& message = error.message;
  if (message.starts_with(source)) message.erase(0, source.size() + 2);
  message = conformance::fields_as_flags(std::move(message));
  return error;
}

//! "A", "B", "A,B" (spaces allowed) as the profile's ["A", "B"].
protocol::outcome<json> parts_of(const std::string& text) {
  json parts = json::array();
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    std::string_view part = rest.substr(0, comma);
    while (part.starts_with(' '))
      part.remove_prefix(1);
    while (part.ends_with(' '))
      part.remove_suffix(1);
    if (part != "A" && part != "B") {
      return protocol::invalid_request("--parts: must be A, B or A,B, got '" + text + "'");
    }
    parts.push_back(std::string(part));
    if (comma == std::string_view::npos) return parts;
    rest.remove_prefix(comma + 1);
  }
}

//! The key in the environment variable `variable`, named by `flag` in errors; the value
//! is never quoted.
protocol::outcome<std::string> key_from(std::string_view flag, const std::string& variable) {
  const char* value = std::getenv(variable.c_str());
  const std::string where = std::string(flag) + " " + variable + ": the environment variable ";
  if (value == nullptr) {
    return protocol::invalid_request(where +
                                     "is not set (the key is read from the environment, "
                                     "never from the command line)");
  }
  if (*value == '\0') return protocol::invalid_request(where + "is empty");
  return std::string(value);
}

}  // namespace

void profile_flags::add_to(CLI::App& app) {
  const std::string in(group);
  app.add_option("--base-url", base_url_,
                 "the target's http://host:port; with --api-key-env, --parts and "
                 "--model-stand-in it replaces a profile file")
      ->group(in);
  app.add_option("--api-key-env", api_key_env_,
                 "the environment variable holding a key with scope session.manage")
      ->group(in);
  app.add_option("--limited-api-key-env", limited_api_key_env_,
                 "the environment variable holding a key without session.manage (AUTH-2)")
      ->group(in);
  app.add_option("--parts", parts_, "the API families the target implements: A, B or A,B")
      ->group(in);
  app.add_option("--model-stand-in", model_stand_in_,
                 "host:port where the target calls its model; the suite serves its stand-in "
                 "there")
      ->group(in);
  app.add_option("--assistant-id", assistant_id_,
                 "the assistant bound to the stand-in model (required with part B)")
      ->check(CLI::NonNegativeNumber)
      ->group(in);
  app.add_option("--clock", clock_,
                 "virtual if the target serves SPEC 7's test clock (the default), else real")
      ->check(CLI::IsMember({"virtual", "real"}))
      ->group(in);
  app.add_option("--name", name_, "the target's name in reports (default: its base URL)")
      ->group(in);
  for (std::size_t i = 0; i < millis_flags.size(); ++i) {
    const auto& m = millis_flags[i];
    app.add_option(std::string(m.flag), millis_[i], std::string(m.help))
        ->check(CLI::PositiveNumber)
        ->group(in);
  }
}

bool profile_flags::given() const {
  return !args().empty();
}

protocol::outcome<conformance::target_profile> profile_flags::build() const {
  // Every missing flag at once: one try per missing flag is a slow way to learn them.
  std::vector<std::string> missing;
  for (const auto& [value, flag] :
       {std::pair{&base_url_, "--base-url http://host:port"},
        std::pair{&api_key_env_, "--api-key-env VAR"}, std::pair{&parts_, "--parts A,B"},
        std::pair{&model_stand_in_, "--model-stand-in HOST:PORT"}}) {
    if (value->empty()) missing.emplace_back(flag);
  }
  if (!missing.empty()) {
    std::string list;
    for (std::size_t i = 0; i < missing.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == missing.size() ? " and " : ", ") + missing[i];
    }
    return protocol::invalid_request("a target given by flags needs " + list + " (missing " +
                                     std::to_string(missing.size()) +
                                     (missing.size() == 1 ? " flag)" : " flags)"));
  }
  json doc = {{"name", name_.empty() ? base_url_ : name_},
              {"base_url", base_url_},
              {"model_stand_in", model_stand_in_},
              {"clock", clock_.empty() ? "virtual" : clock_}};
  auto key = key_from("--api-key-env", api_key_env_);
  if (!key) return key.error();
  doc["api_key"] = *key;
  if (!limited_api_key_env_.empty()) {
    auto limited = key_from("--limited-api-key-env", limited_api_key_env_);
    if (!limited) return limited.error();
    doc["limited_api_key"] = *limited;
  }
  auto parts = parts_of(parts_);
  if (!parts) return parts.error();
  doc["parts"] = *parts;
  if (assistant_id_ >= 0) doc["assistant_id"] = assistant_id_;
  for (std::size_t i = 0; i < millis_flags.size(); ++i) {
    if (millis_[i] >= 0) doc[std::string(millis_flags[i].field)] = millis_[i];
  }
  auto profile = conformance::parse_profile(doc.dump(), source);
  if (!profile) return in_flag_terms(profile.error());
  profile->given_as_flags = true;
  return profile;
}

std::vector<std::string> profile_flags::args() const {
  std::vector<std::string> out;
  const auto text = [&](std::string_view flag, const std::string& value) {
    if (!value.empty()) out.insert(out.end(), {std::string(flag), value});
  };
  const auto number = [&](std::string_view flag, std::int64_t value) {
    if (value >= 0) out.insert(out.end(), {std::string(flag), std::to_string(value)});
  };
  text("--base-url", base_url_);
  text("--api-key-env", api_key_env_);
  text("--limited-api-key-env", limited_api_key_env_);
  text("--parts", parts_);
  text("--model-stand-in", model_stand_in_);
  number("--assistant-id", assistant_id_);
  text("--clock", clock_);
  text("--name", name_);
  for (std::size_t i = 0; i < millis_flags.size(); ++i)
    number(millis_flags[i].flag, millis_[i]);
  return out;
}

std::string profile_flags::joined(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& word : args) {
    if (!out.empty()) out += ' ';
    const bool plain = !word.empty() && word.find_first_not_of(
                                            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                            "0123456789_./:@%+=,-[]") == std::string::npos;
    if (plain) {
      out += word;
      continue;
    }
    out += '\'';
    for (char c : word)
      out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace toolwire::cli
