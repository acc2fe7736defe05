// Scenario lookup for the simulate and replay commands.
#include "scenario_source.hpp"

#include <algorithm>

#include "toolwire/actors/builtin_scenarios.hpp"

namespace toolwire::cli {

protocol::outcome<located_scenario> locate_scenario(const std::string& spec) {
  const std::string prefix = "builtin:";
  const std::string name = spec.rfind(prefix, 0) == 0 ? spec.substr(prefix.size()) : spec;
  if (auto found = actors::find_builtin(name)) return located_scenario{*found, prefix + name};
  std::string known;
  for (const auto& s : actors::builtin_scenarios())
    known += "\n  builtin:" + s.name;
  return protocol::invalid_request("no scenario '" + spec +
                                   "'; the built-in scenarios are:" + known);
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
