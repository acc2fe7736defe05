// Why a case failed, as a type: what kind of problem, where in the file, what was expected
// and observed at which time, the SPEC rules and the trace record it points at. The
// console, report.json, JUnit, Markdown and the HTML report render it; none of them reads
// its words back.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "toolwire/protocol/types.hpp"

namespace toolwire::conformance {

enum class evidence_kind {
  expectation,  // a scripted expectation that did not hold
  invariant,    // a trace invariant the run broke
  step_error,   // a scripted step that could not be performed
  transport,    // a request the target did not answer as HTTP
  unreachable,  // the target stopped answering (verdict error)
  repeat,       // --repeat's count of failing reruns
  problem,      // the case could not be timed, run or judged
};

struct evidence {
  evidence_kind kind = evidence_kind::problem;
  //! An expectation's place: "FILE:LINE", or "step N" for a scenario built in code.
  std::string where;
  std::vector<std::string> spec_ids;
  std::string expected;                    // an expectation's wording of what it wants
  std::optional<protocol::time_ms> at_ms;  // an expectation's time in the run
  //! What the trace showed instead; for every other kind the whole message.
  std::string observed;
  std::optional<std::size_t> record;  // an invariant's trace record (index in the trace)

  //! The one line the console, report.json's "evidence", JUnit and Markdown show, e.g.
  //! "reg.yaml:12 [REG-5] expected status 201 at 1000 ms; observed: status 409".
  std::string headline() const;
  //! The rules' SPEC text, one "ID [T] summary" line each (none for unknown ids).
  std::vector<std::string> spec_lines() const;
  //! headline() and, indented below it, spec_lines(): the text a terminal shows.
  std::string text() const;

  protocol::json to_json() const;
  //! Reads to_json()'s object back; anything else (e.g. the text of a report written
  //! before evidence was typed) becomes a problem whose message is that text.
  static evidence from_json(const protocol::json& item);

  friend bool operator==(const evidence&, const evidence&) = default;
};

//! A problem of `kind` told in one message (step errors, transport, unreachable, ...).
evidence evidence_that(evidence_kind kind, std::string message,
                       std::vector<std::string> spec_ids = {});

//! The texts of `items` (evidence::text), in order.
std::vector<std::string> texts_of(const std::vector<evidence>& items);

}  // namespace toolwire::conformance
