// A target profile (SPEC 10): where a remote implementation listens, its credentials,
// the parts it implements, where it expects the model stand-in, its clock and timeouts,
// and the [P] rules it replaces. Read from a JSON file; docs/target-profile.md describes it
// and conformance/profile.schema.json validates it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "toolwire/protocol/outcome.hpp"
#include "toolwire/protocol/types.hpp"

namespace toolwire::conformance {

using protocol::json;
using protocol::time_ms;

//! `host:port`, as a profile writes an address.
struct host_port {
  std::string host;
  std::uint16_t port = 0;

  //! "host:port" (an IPv6 literal in brackets).
  std::string to_string() const;
  friend bool operator==(const host_port&, const host_port&) = default;
};

struct target_profile {
  std::string name;
  host_port base;               // from base_url, http://host:port
  std::string api_key;          // scope session.manage; never printed
  std::string limited_api_key;  // a key without session.manage; "" when the target has none
  bool part_a = false;
  bool part_b = false;
  host_port model_stand_in;       // where the target calls its model (SPEC 8)
  std::int64_t assistant_id = 0;  // bound to the stand-in model (Part B)
  bool virtual_clock = false;     // SPEC 7 capability
  //! The CORS capability (CORS-1..3, docs/cors.md): an origin the target lets browser pages
  //! call it from, serialized (protocol::parse_origin); "" when it claims no CORS.
  std::string cors_origin;
  time_ms ack_timeout_ms = 10'000;
  time_ms result_timeout_ms = 300'000;
  time_ms interrupt_timeout_ms = 600'000;
  time_ms settle_ms = 15;              // quiet time after which arrivals are handed over
  time_ms request_timeout_ms = 2'000;  // the bound on every request and wait
  //! A real clock's deadlines are checked this far either side: "still open at D - tol",
  //! "failed by D + tol" (the `tol` of case times). A virtual clock's tol is 1 ms.
  static constexpr time_ms default_timing_tolerance_ms = 200;
  time_ms timing_tolerance_ms = default_timing_tolerance_ms;
  //! The profile (or --timing-tolerance-ms) sets timing_tolerance_ms: the preflight's
  //! measurement of the target does not change it.
  bool timing_tolerance_stated = false;
  json overrides = json::object();  // [P] rules the target replaces, free-form
  //! Given as command-line flags (--base-url and the rest), not as a file: a remedy then
  //! names the flag the user would change (see term_for), not a profile field.
  bool given_as_flags = false;

  //! Whether the target meets a scenario requirement: "part_a", "part_b",
  //! "virtual_clock", "limited_key", "cors" or "exact_timing" (deadlines to the
  //! millisecond: a virtual clock). An unknown requirement is never met.
  bool meets(std::string_view requirement) const;
};

//! The flag that gives profile field `field` in flags mode ("--clock" for "clock",
//! "--api-key-env" for "api_key"), or "" when no flag does.
std::string_view flag_for_field(std::string_view field);

//! A profile reader's message ("source: field 'parts': ...") with every field it names
//! replaced by the flag that gives it ("--parts: ..."), for a target given as flags.
std::string fields_as_flags(std::string message);

//! `field` in the terms the user gave the target in: the field's name for a profile file
//! ("limited_api_key"), the flag for flags ("--limited-api-key-env").
std::string term_for(const target_profile& profile, std::string_view field);

//! How to give `field` the value `value` (as a profile file would hold it, JSON): `set
//! "clock": "real" in the profile` for a file, `pass --clock real` for flags.
std::string how_to_set(const target_profile& profile, std::string_view field,
                       std::string_view value);

//! Parses a profile. `source` names it in errors, e.g.
//! `acme.json: field 'clock': must be "virtual" or "real", got "fast"`. Errors never
//! quote a key's value.
protocol::outcome<target_profile> parse_profile(std::string_view text, std::string_view source);

//! Reads and parses the file at `path` (named by `path` in errors).
protocol::outcome<target_profile> load_profile(const std::string& path);

}  // namespace toolwire::conformance
