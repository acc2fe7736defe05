// The HTML report: one self-contained file (inline CSS, a little vanilla JS, inline SVG,
// nothing fetched) made from report.json's data, for people who read a run in a browser:
// the summary, a requirement matrix, every case with its evidence, and for failed cases a
// sequence diagram and the wire log of their trace.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "toolwire/protocol/types.hpp"

namespace toolwire::reports {

struct html_options {
  //! Diagrams and wire logs for every case; by default only for cases with evidence
  //! (failed, warnings, expected failures), so a passing run's file stays small.
  bool all_cases = false;
};

//! A diagram draws at most this many trace records (the wire log lists all of them): a
//! long trace would otherwise make an SVG taller than any screen is useful for.
inline constexpr std::size_t max_diagram_records = 600;

//! The trace record kinds drawn as arrows between lanes, and lanes by actor: request
//! (actor → target), response (target → actor), event (target → director, who watches
//! the session's stream), deliver (target → the actor whose stream got it), model_step
//! (target → model), model_reply (model → target). Other kinds (timer, expect, act, end,
//! step_error, stream_gap, transport_error, ...) are marks on their actor's lane.
bool drawn_as_arrow(std::string_view kind);

//! The report, from a JSON report as json_report writes it (or as read back from
//! report.json: `toolwire report html`). Missing fields show as absent, never throw;
//! every text is HTML-escaped, and bytes that are not UTF-8 come out as `\xHH`.
std::string html_report(const protocol::json& report, const html_options& options = {});

}  // namespace toolwire::reports
