// The rule IDs of SPEC.md, one row per rule: what scenarios and cases may cite; and the
// three CORS rules of the optional CORS capability (issue 22, docs/cors.md), which SPEC.md
// does not state.
#pragma once

#include <string_view>
#include <vector>

namespace toolwire::protocol {

//! One rule of SPEC.md. `tag` is the rule's first tag, or its section's: 'S' stated by the
//! sources (a violation fails), 'P' this profile's wire choice, 'R' recommended (a
//! violation warns). `part` is 'C' for rules common to both API families, 'A' for session
//! clients, 'B' for tasks.
struct spec_rule {
  std::string_view id;
  char tag;
  char part;
  std::string_view summary;
};

//! Every rule, in SPEC.md's order, then CORS-1..3.
const std::vector<spec_rule>& spec_rules();

//! The rule with this exact ID (e.g. "LIFE-5"), or null.
const spec_rule* find_spec_rule(std::string_view id);

}  // namespace toolwire::protocol
