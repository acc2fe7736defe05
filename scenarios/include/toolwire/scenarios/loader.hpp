// The scenario language: YAML files that describe a scenario (docs/scenario-language.md),
// read into scenarios::scenario, written back, and described by a JSON Schema.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

#include "toolwire/protocol/outcome.hpp"
#include "toolwire/protocol/types.hpp"
#include "toolwire/scenarios/scenario.hpp"

namespace toolwire::scenarios {

//! The target a scenario's times are resolved for (docs/scenario-language.md, "Time").
//! A file read without one takes its timeouts from its own `settings:` and its times as
//! written; read for a target, the target's timeouts replace `settings:`, readability
//! gaps (times that name no deadline) scale by pace_of(target), and `tol` is the target's
//! tolerance window.
struct timing {
  protocol::time_ms ack_timeout_ms = 10'000;
  protocol::time_ms result_timeout_ms = 300'000;
  protocol::time_ms interrupt_timeout_ms = 600'000;
  bool real_clock = false;
  //! What `tol` stands for: 1 ms on a virtual clock, the profile's timing_tolerance_ms
  //! on a real one.
  protocol::time_ms tolerance_ms = 1;
};

//! How much shorter a target's readability gaps are than the written ones: the smallest
//! of 1, ack/10 s, result/30 s and interrupt/60 s, so a gap written as 1s stays well inside
//! every deadline; on a real clock at most 1/50 (1s waits 20 ms), because there a gap
//! costs wall time and only keeps steps in order.
double pace_of(const timing& target);

//! The requirement a scenario gets when it is read for a real clock and one of its
//! expressions names a deadline with an offset smaller than the tolerance window (say
//! `ack_timeout - 1ms`): such a boundary check needs the virtual clock.
inline constexpr const char* exact_timing = "exact_timing";

//! The requirement a scenario gets when it has browser clients (kind: browser): its tabs
//! run in Chromium and ping on the wall clock, so it needs a target over HTTP on a real
//! clock and the browser driver.
inline constexpr const char* browser_tabs = "browser";

//! Whether `plan` needs `requirement` (written in `needs:` or added by the loader).
inline bool needs(const scenarios::scenario& plan, std::string_view requirement) {
  return std::find(plan.needs.begin(), plan.needs.end(), requirement) != plan.needs.end();
}

//! Reads the scenario file at `path` (the path is the source in messages). An unreadable
//! file is an error like any other.
protocol::outcome<scenarios::scenario> load_file(const std::string& path);
//! Reads it with its times resolved for `target`.
protocol::outcome<scenarios::scenario> load_file(const std::string& path, const timing& target);

//! Reads a scenario from YAML text. Every error is one line, `source:line: problem`, with
//! a suggestion for a misspelt word. Validates the format against the vocabulary (actions,
//! fields, expectation kinds), the SPEC rule IDs and the model script's format; it does
//! not hold tool names or other wire values to the protocol's rules, because scenarios
//! send invalid input on purpose. Never throws; never returns part of a scenario.
protocol::outcome<scenarios::scenario> load_text(std::string_view text, std::string_view source);
protocol::outcome<scenarios::scenario> load_text(std::string_view text, std::string_view source,
                                                 const timing& target);

//! Writes `plan` in the scenario language, so that load_text(to_yaml(plan)) gives `plan`
//! back for everything the format can express: every step gets an absolute `at`, clients
//! get their knobs rather than presets, and `where` (a place in a file) is not kept.
std::string to_yaml(const scenarios::scenario& plan);

//! The format's JSON Schema (draft 2020-12), generated from the vocabulary and the
//! format's key tables; scenarios/scenario.schema.json holds a copy for editors.
protocol::json json_schema();

}  // namespace toolwire::scenarios
