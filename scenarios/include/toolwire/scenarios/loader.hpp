// The scenario language: YAML files that describe a scenario (docs/scenario-language.md),
// read into actors::scenario, written back, and described by a JSON Schema.
#pragma once

#include <string>
#include <string_view>

#include "toolwire/actors/scenario.hpp"
#include "toolwire/protocol/outcome.hpp"
#include "toolwire/protocol/types.hpp"

namespace toolwire::scenarios {

//! Reads the scenario file at `path` (the path is the source in messages). An unreadable
//! file is an error like any other.
protocol::outcome<actors::scenario> load_file(const std::string& path);

//! Reads a scenario from YAML text. Every error is one line, `source:line: problem`, with
//! a suggestion for a misspelt word. Validates the format against the vocabulary (actions,
//! fields, expectation kinds), the SPEC rule IDs and the model script's format; it does
//! not hold tool names or other wire values to the protocol's rules, because scenarios
//! send invalid input on purpose. Never throws; never returns part of a scenario.
protocol::outcome<actors::scenario> load_text(std::string_view text, std::string_view source);

//! Writes `plan` in the scenario language, so that load_text(to_yaml(plan)) gives `plan`
//! back for everything the format can express: every step gets an absolute `at`, clients
//! get their knobs rather than presets, and `where` (a place in a file) is not kept.
std::string to_yaml(const actors::scenario& plan);

//! The format's JSON Schema (draft 2020-12), generated from the vocabulary and the
//! format's key tables; scenarios/scenario.schema.json holds a copy for editors.
protocol::json json_schema();

}  // namespace toolwire::scenarios
