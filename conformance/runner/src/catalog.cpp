// Reading the catalog.
#include "toolwire/conformance/catalog.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "toolwire/protocol/spec_rules.hpp"
#include "toolwire/scenarios/loader.hpp"

#ifndef TOOLWIRE_CATALOG_DIR
#define TOOLWIRE_CATALOG_DIR "conformance/catalog"
#endif
#ifndef TOOLWIRE_LIBRARY_DIR
#define TOOLWIRE_LIBRARY_DIR "scenarios/library"
#endif
// Where `cmake --install` puts the data (share/toolwire), relative to the installed binary's
// directory (CMake computes it from the install directories; see
// conformance/runner/CMakeLists.txt).
#ifndef TOOLWIRE_INSTALLED_DATA
#define TOOLWIRE_INSTALLED_DATA "../share/toolwire"
#endif

namespace toolwire::conformance {

std::string strongest_tag(const std::vector<std::string>& spec_ids) {
  char strongest = 'R';
  for (const auto& id : spec_ids) {
    const auto* rule = protocol::find_spec_rule(id);
    if (rule == nullptr) continue;
    if (rule->tag == 'S') strongest = 'S';
    if (rule->tag == 'P' && strongest == 'R') strongest = 'P';
  }
  return std::string("[") + strongest + "]";
}

protocol::outcome<std::vector<catalog_case>> load_catalog(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return protocol::invalid_request("no catalog at " + dir + " (a directory of *.yaml cases)");
  }
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, ec)) {
    const auto ext = entry.path().extension();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml")) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<catalog_case> cases;
  std::set<std::string> ids;
  for (const auto& file : files) {
    auto plan = scenarios::load_file(file);
    if (!plan) return plan.error();
    if (!ids.insert(plan->name).second) {
      return protocol::invalid_request(file + ": case id '" + plan->name + "' is used twice");
    }
    const auto tag = strongest_tag(plan->spec_ids);
    cases.push_back(
        {plan->name, file, std::move(*plan), tag == "[R]" ? grade::recommended : grade::required});
  }
  std::sort(cases.begin(), cases.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return cases;
}

std::vector<catalog_case> filter_cases(std::vector<catalog_case> cases, const std::string& glob) {
  if (glob.empty()) return cases;
  std::erase_if(cases,
                [&](const catalog_case& c) { return fnmatch(glob.c_str(), c.id.c_str(), 0) != 0; });
  return cases;
}

std::vector<catalog_case> shard_cases(std::vector<catalog_case> cases, int index, int count) {
  std::vector<catalog_case> mine;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (static_cast<int>(i % static_cast<std::size_t>(count)) == index - 1) {
      mine.push_back(std::move(cases[i]));
    }
  }
  return mine;
}

std::string installed_data_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return "";
  return (exe.parent_path() / TOOLWIRE_INSTALLED_DATA).lexically_normal().string();
}

namespace {

//! `<installed data>/<part>` when that is a directory, else `source_dir`.
std::string installed_or_source(const std::string& part, const std::string& source_dir) {
  // Why the installed one first: an installed binary must not depend on a source tree
  // that may be gone, or be another version's. A binary in the build tree has no
  // share/toolwire next to it, so it keeps reading the sources it was built from.
  const auto data = installed_data_dir();
  if (data.empty()) return source_dir;
  const auto installed = (std::filesystem::path(data) / part).string();
  std::error_code ec;
  return std::filesystem::is_directory(installed, ec) ? installed : source_dir;
}

}  // namespace

std::string installed_catalog_dir() {
  const auto data = installed_data_dir();
  return data.empty() ? "" : (std::filesystem::path(data) / "catalog").string();
}

std::string default_catalog_dir() {
  return installed_or_source("catalog", TOOLWIRE_CATALOG_DIR);
}

std::string source_catalog_dir() {
  return TOOLWIRE_CATALOG_DIR;
}

std::string default_library_dir() {
  // share/toolwire/scenarios holds what the source tree keeps in scenarios/library (see the
  // root CMakeLists.txt's install rules).
  return installed_or_source("scenarios", TOOLWIRE_LIBRARY_DIR);
}

protocol::outcome<std::string> catalog_version(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return protocol::invalid_request("no catalog at " + dir + " (a directory of *.yaml cases)");
  }
  // The same files load_catalog reads, in a fixed order, each as its relative path and
  // its bytes, so that the hash names the content wherever the catalog is installed.
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, ec)) {
    const auto ext = entry.path().extension();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml")) files.push_back(entry.path());
  }
  if (ec)
    return protocol::invalid_request("cannot read the catalog at " + dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  // FNV-1a, 64 bits: an identifier of the content, not a defence against tampering.
  std::uint64_t hash = 14695981039346656037ULL;
  const auto mix = [&hash](std::string_view bytes) {
    for (const unsigned char c : bytes) {
      hash ^= c;
      hash *= 1099511628211ULL;
    }
  };
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return protocol::invalid_request("cannot read " + file.string());
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Why the separators: "ab"+"c" and "a"+"bc" must not hash alike.
    mix(file.lexically_relative(dir).generic_string());
    mix(std::string_view("\0", 1));
    mix(std::to_string(bytes.size()));
    mix(std::string_view("\0", 1));
    mix(bytes);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  std::string version = std::to_string(files.size());
  version.append(" cases, content ").append(hex, 12);
  return version;
}

}  // namespace toolwire::conformance
