// The conformance catalog: cases written in the scenario language (conformance/catalog/
// <group>/<name>.yaml), each citing the SPEC rules it proves. A case's grade comes from
// its rules' tags: any [S] or [P] rule makes a violation a failure, [R] rules alone make
// it a warning.
#pragma once

#include <string>
#include <vector>

#include "toolwire/protocol/outcome.hpp"
#include "toolwire/scenarios/scenario.hpp"

namespace toolwire::conformance {

enum class grade { required, recommended };

struct catalog_case {
  std::string id;    // the scenario's name, e.g. "reg.tool-name-65-chars-rejected"
  std::string file;  // where it was read from
  scenarios::scenario plan;
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

//! Where the catalog is when --catalog is not given: the installed one,
//! `<binary's dir>/../share/toolwire/catalog` (installed_catalog_dir), when that is a
//! directory, else the source tree's it was built from (source_catalog_dir).
std::string default_catalog_dir();

//! Where an installed binary's catalog is (found through /proc/self/exe), whether or not
//! it exists; "" when the binary's own path cannot be read.
std::string installed_catalog_dir();

//! The catalog of the source tree this binary was built from (compiled in).
std::string source_catalog_dir();

//! Where the scenario library (`toolwire simulate library:NAME`) is: the installed one,
//! `<binary's dir>/../share/toolwire/scenarios`, when that is a directory, else the source
//! tree's `scenarios/library` it was built from (compiled in).
std::string default_library_dir();

//! Where an installed binary's data (catalog, scenario library, schemas) is,
//! `<binary's dir>/../share/toolwire` (found through /proc/self/exe), whether or not it
//! exists; "" when the binary's own path cannot be read.
std::string installed_data_dir();

//! The catalog has no version number of its own, so its version is derived from what it
//! holds: "<cases> cases, content <12 hex digits>", the count of case files and a 64-bit
//! FNV-1a hash of their relative paths and bytes. Two catalogs with one version hold the
//! same cases, byte for byte, wherever they are installed.
protocol::outcome<std::string> catalog_version(const std::string& dir);

}  // namespace toolwire::conformance
