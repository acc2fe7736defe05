// The trace: an ordered record of every request, response, event, delivery, timer and
// model exchange of one run, with its virtual time and actor. Written as JSON Lines
// (a header line, then one record per line); credentials are redacted on the way in,
// so nothing downstream (files, reports, diffs) can leak them.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/protocol/outcome.hpp"
#include "toolwire/protocol/types.hpp"

namespace toolwire::actors {

using protocol::json;
using protocol::time_ms;

struct trace_record {
  time_ms at = 0;  // virtual milliseconds since the run started
  std::string actor;
  std::string kind;  // request, response, event, deliver, model_step, model_reply, timer, ...
  json data;

  friend bool operator==(const trace_record&, const trace_record&) = default;
};

inline constexpr std::string_view redacted = "<redacted>";

class trace {
 public:
  //! The first line: what ran (scenario, seed, options), enough to run it again.
  void set_header(json header) { header_ = std::move(header); }
  const json& header() const { return header_; }

  //! A value that must never appear in the trace (an API key, a session token).
  void add_secret(std::string secret);

  //! Appends a record; every secret inside `data` is replaced by "<redacted>".
  void add(time_ms at, std::string actor, std::string kind, json data);

  const std::vector<trace_record>& records() const { return records_; }

  //! One JSON object per line: the header, then the records.
  std::string to_jsonl() const;
  //! The record as written on its line.
  static std::string line_of(const trace_record& record);
  //! FNV-1a 64 of to_jsonl(), as 16 hex digits.
  std::string hash() const;
  //! The same over the records only: equal for two seeds that took the same interleaving.
  std::string records_hash() const;

  //! Reads a trace written by to_jsonl. Errors name the line.
  static protocol::outcome<trace> from_jsonl(std::string_view text, std::string_view source);

 private:
  json redact(json value) const;

  json header_ = json::object();
  std::set<std::string> secrets_;
  std::vector<trace_record> records_;
};

//! FNV-1a 64 of `bytes` as 16 hex digits.
std::string fnv1a_hex(std::string_view bytes);

}  // namespace toolwire::actors
