// The conformance catalog: cases written in the scenario language (conformance/catalog/
// <group>/<name>.yaml), each citing the SPEC rules it proves. A case's grade comes from
// its rules' tags: any [S] or [P] rule makes a violation a failure, [R] rules alone make
// it a warning.
#pragma once

#include <string>
#include <vector>

#include "toolwire/actors/scenario.hpp"
#include "toolwire/protocol/outcome.hpp"

namespace toolwire::conformance {

enum class grade { required, recommended };

struct catalog_case {
  std::string id;    // the scenario's name, e.g. "reg.tool-name-65-chars-rejected"
  std::string file;  // where it was read from
  actors::scenario plan;
  conformance::grade grade = grade::required;
};

//! Reads every *.yaml under `dir`, sorted by id. Any file that does not load fails the
//! whole catalog with its loader error (file:line), and so do two cases with one id.
protocol::outcome<std::vector<catalog_case>> load_catalog(const std::string& dir);

//! The cases whose id matches `glob` (`*` and `?`; empty matches all).
std::vector<catalog_case> filter_cases(std::vector<catalog_case> cases, const std::string& glob);

//! Shard `index` (1-based) of `count`: every count-th case, so shards take equal shares.
std::vector<catalog_case> shard_cases(std::vector<catalog_case> cases, int index, int count);

//! "[S]" when any cited rule is [S], else "[P]", else "[R]".
std::string strongest_tag(const std::vector<std::string>& spec_ids);

//! Where the catalog is when --catalog is not given: next to the sources it was built from.
std::string default_catalog_dir();

}  // namespace toolwire::conformance
