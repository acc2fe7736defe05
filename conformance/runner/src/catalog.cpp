// Reading the catalog.
#include "toolwire/conformance/catalog.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "toolwire/protocol/spec_rules.hpp"
#include "toolwire/scenarios/loader.hpp"

#ifndef TOOLWIRE_CATALOG_DIR
#define TOOLWIRE_CATALOG_DIR "conformance/catalog"
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

std::string default_catalog_dir() {
  return TOOLWIRE_CATALOG_DIR;
}

}  // namespace toolwire::conformance
