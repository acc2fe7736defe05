// Trace recording, redaction, JSON Lines and the trace hash.
#include "toolwire/actors/trace.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace toolwire::actors {

namespace {

bool is_credential_field(const std::string& key) {
  return key == "token" || key == "access_token" || key == "credential" || key == "api_key" ||
         key == "authorization";
}

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
}

//! Whether the occurrence of `secret` at `at` in `text` is one to replace. A long secret
//! is replaced wherever it occurs. A short one (an API key "K" on a test server) only
//! where it stands as a whole token (`?access_token=K`, `Bearer K`): replaced inside
//! other words it would rewrite the run's data ("Kyoto" into "<redacted>yoto") and make
//! two runs of one correct target differ, while a word that merely contains it tells
//! nothing about it.
bool replaces_at(const std::string& text, std::size_t at, const std::string& secret) {
  constexpr std::size_t replaced_anywhere_from = 12;
  if (secret.size() >= replaced_anywhere_from) return true;
  const bool starts_token = at == 0 || !is_token_char(text[at - 1]);
  const std::size_t end = at + secret.size();
  const bool ends_token = end == text.size() || !is_token_char(text[end]);
  return starts_token && ends_token;
}

//! The first occurrence of `secret` in `text` at or after `from` that replaces_at allows.
std::size_t next_secret(const std::string& text, const std::string& secret, std::size_t from) {
  for (auto at = text.find(secret, from); at != std::string::npos; at = text.find(secret, at + 1)) {
    if (replaces_at(text, at, secret)) return at;
  }
  return std::string::npos;
}

bool holds_secret(const std::string& text, const std::set<std::string>& secrets) {
  return std::any_of(secrets.begin(), secrets.end(), [&](const std::string& secret) {
    return next_secret(text, secret, 0) != std::string::npos;
  });
}

void redact_text(std::string& text, const std::set<std::string>& secrets) {
  for (const auto& secret : secrets) {
    for (auto at = next_secret(text, secret, 0); at != std::string::npos;
         at = next_secret(text, secret, at + redacted.size())) {
      text.replace(at, secret.size(), redacted);
    }
  }
}

void redact_in_place(json& value, const std::set<std::string>& secrets);

//! A member's value. Credential fields are redacted by name too: a new session's token is
//! recorded (in its 201 response) before anyone could have registered it as a secret.
void redact_member(const std::string& key, json& item, const std::set<std::string>& secrets) {
  if (is_credential_field(key) && item.is_string()) {
    item = redacted;
  } else {
    redact_in_place(item, secrets);
  }
}

//! Why in place: every recorded request, response and event passes through here, and
//! rebuilding each object and copying each string was a fortieth of explore's time over
//! HTTP (perf, 2026-12-06). An object is rebuilt only when one of its keys holds a secret.
void redact_in_place(json& value, const std::set<std::string>& secrets) {
  if (value.is_string()) {
    redact_text(value.get_ref<std::string&>(), secrets);
  } else if (value.is_array()) {
    for (auto& item : value)
      redact_in_place(item, secrets);
  } else if (value.is_object()) {
    const bool keys_change =
        std::any_of(value.items().begin(), value.items().end(),
                    [&](const auto& item) { return holds_secret(item.key(), secrets); });
    if (!keys_change) {
      for (auto& [key, item] : value.items())
        redact_member(key, item, secrets);
      return;
    }
    json out = json::object();
    for (auto& [key, item] : value.items()) {
      json clean = std::move(item);
      redact_member(key, clean, secrets);
      std::string name = key;
      redact_text(name, secrets);
      out[name] = std::move(clean);
    }
    value = std::move(out);
  }
}

}  // namespace

void trace::add_secret(std::string secret) {
  if (!secret.empty()) secrets_.insert(std::move(secret));
}

json trace::redact(json value) const {
  redact_in_place(value, secrets_);
  return value;
}

void trace::add(time_ms at, std::string actor, std::string kind, json data) {
  records_.push_back({at, std::move(actor), std::move(kind), redact(std::move(data))});
}

std::string trace::line_of(const trace_record& record) {
  return json{
      {"t", record.at}, {"actor", record.actor}, {"kind", record.kind}, {"data", record.data}}
      .dump();
}

std::string trace::to_jsonl() const {
  std::string out = header_.dump() + "\n";
  for (const auto& record : records_)
    out += line_of(record) + "\n";
  return out;
}

std::string trace::hash() const {
  return fnv1a_hex(to_jsonl());
}

std::string trace::records_hash() const {
  std::string text;
  for (const auto& record : records_)
    text += line_of(record) + "\n";
  return fnv1a_hex(text);
}

protocol::outcome<trace> trace::from_jsonl(std::string_view text, std::string_view source) {
  trace result;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.empty()) continue;
    const std::string where = std::string(source) + ":" + std::to_string(line_number) + ": ";
    json value = json::parse(line, nullptr, false);
    if (value.is_discarded() || !value.is_object()) {
      return protocol::invalid_request(where + "not a JSON object");
    }
    if (line_number == 1) {
      result.header_ = std::move(value);
      continue;
    }
    if (!value.contains("t") || !value["t"].is_number_integer() || !value.contains("actor") ||
        !value["actor"].is_string() || !value.contains("kind") || !value["kind"].is_string()) {
      return protocol::invalid_request(
          where + "a record needs integer \"t\" and string \"actor\", \"kind\"");
    }
    result.records_.push_back({value["t"].get<time_ms>(), value["actor"].get<std::string>(),
                               value["kind"].get<std::string>(), value.value("data", json())});
  }
  if (line_number == 0) return protocol::invalid_request(std::string(source) + ": empty trace");
  return result;
}

std::string fnv1a_hex(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

}  // namespace toolwire::actors
