// A trace's first line, typed: what ran and with which seed, what the invariants read
// of the run, and where it went. It is written and read only here (to_json, from_json),
// so the simulator, simulate, replay and the invariants agree on every field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "toolwire/protocol/outcome.hpp"
#include "toolwire/protocol/types.hpp"

namespace toolwire::actors {

//! Where a run went, by name only (never a credential), so that replay can go there
//! again: `"in-process"`, `{"bundled": true, "variations": [...]}`, `{"profile": PATH}`
//! or `{"profile_flags": [...]}` in the file.
struct recorded_target {
  enum class kind { in_process, bundled, profile, profile_flags };
  kind where = kind::in_process;
  std::vector<std::string> variations;  // bundled: the variations' names
  std::string profile;                  // profile: the path as it was typed
  //! profile_flags: the flags that built the profile, naming the keys' environment
  //! variables, never the keys.
  std::vector<std::string> profile_flags;

  friend bool operator==(const recorded_target&, const recorded_target&) = default;
};

struct trace_header {
  static constexpr int version = 1;  // written as "toolwire_trace"
  std::string scenario;
  std::string source;  // where the scenario came from: a file, or "explore", "catalog", ...
  std::uint64_t seed = 0;
  //! run_options::registration_order when given: part of what picked the interleaving.
  std::vector<std::string> registration_order;
  //! A run that ends at its duration (over HTTP): the call deadlines, the horizon past
  //! which a call owes no settlement yet (CALL-5).
  struct call_deadlines {
    protocol::time_ms ack = 0;
    protocol::time_ms result = 0;
    friend bool operator==(const call_deadlines&, const call_deadlines&) = default;
  };
  std::optional<call_deadlines> call_deadlines_ms;
  //! On a real clock: how late the event stream may show an event (the tolerance window).
  std::optional<protocol::time_ms> stream_lag_ms;
  //! On a real clock, when the harness acted late (run_result::harness_late_ms): how far.
  std::optional<protocol::time_ms> harness_late_ms;
  //! Written by simulate and replay: the reference's faults by name, and the target.
  std::optional<std::vector<std::string>> faults;
  std::optional<recorded_target> target;

  protocol::json to_json() const;
  //! Reads a header as to_json writes it. `source` and `seed` are required (what replay
  //! needs);
  //! the rest is optional, and fields it does not know are left alone. Errors say what is
  //! wrong as "WHERE:1: ..." (the header is a trace's first line).
  static protocol::outcome<trace_header> from_json(const protocol::json& header,
                                                   const std::string& where);

  friend bool operator==(const trace_header&, const trace_header&) = default;
};

}  // namespace toolwire::actors
