// Scenario lookup for the simulate and replay commands.
#include "scenario_source.hpp"

#include <algorithm>

#include "toolwire/actors/builtin_scenarios.hpp"
#include "toolwire/scenarios/loader.hpp"

namespace toolwire::cli {

namespace {

bool is_scenario_file(const std::string& spec) {
  return spec.ends_with(".yaml") || spec.ends_with(".yml");
}

}  // namespace

protocol::outcome<located_scenario> locate_scenario(const std::string& spec) {
  if (is_scenario_file(spec)) {
    auto loaded = scenarios::load_file(spec);
    if (!loaded) return loaded.error();
    return located_scenario{std::move(*loaded), spec};
  }
  const std::string prefix = "builtin:";
  const std::string name = spec.rfind(prefix, 0) == 0 ? spec.substr(prefix.size()) : spec;
  if (auto found = actors::find_builtin(name)) return located_scenario{*found, prefix + name};
  std::string known;
  for (const auto& s : actors::builtin_scenarios())
    known += "\n  builtin:" + s.name;
  return protocol::invalid_request("no scenario '" + spec +
                                   "' (give a FILE.yaml or builtin:NAME); the built-in "
                                   "scenarios are:" +
                                   known);
}

std::string builtin_table() {
  std::size_t width = 0;
  for (const auto& s : actors::builtin_scenarios())
    width = std::max(width, s.name.size());
  std::string table;
  for (const auto& s : actors::builtin_scenarios()) {
    std::string ids;
    for (const auto& id : s.spec_ids)
      ids += (ids.empty() ? "" : ",") + id;
    table += "builtin:" + s.name + std::string(width + 2 - s.name.size(), ' ') + ids + "\n    " +
             s.purpose + "\n";
  }
  return table;
}

}  // namespace toolwire::cli
