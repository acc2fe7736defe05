// Scenario lookup for the simulate and replay commands.
#include "scenario_source.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "suggest.hpp"
#include "toolwire/conformance/catalog.hpp"
#include "toolwire/scenarios/loader.hpp"

namespace toolwire::cli {

namespace {

const std::string library_prefix = "library:";
const std::string list_hint = "toolwire simulate --list lists them";

bool is_scenario_file(const std::string& spec) {
  return spec.ends_with(".yaml") || spec.ends_with(".yml");
}

//! The names of the library's *.yaml files, sorted: a file's stem, and DIR/STEM for a file
//! in a folder of the library (browser/ holds the scenarios with real tabs); an error when
//! there is no library directory.
protocol::outcome<std::vector<std::string>> library_names(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return protocol::invalid_request("no scenario library at " + dir +
                                     " (a directory of NAME.yaml scenarios)");
  }
  std::vector<std::string> names;
  const auto add_files = [&](const std::filesystem::path& folder, const std::string& prefix) {
    std::error_code folder_ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder, folder_ec)) {
      if (entry.is_regular_file() && entry.path().extension() == ".yaml") {
        names.push_back(prefix + entry.path().stem().string());
      }
    }
  };
  add_files(dir, "");
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_directory()) add_files(entry.path(), entry.path().filename().string() + "/");
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> with_prefix(const std::vector<std::string>& names) {
  std::vector<std::string> prefixed;
  for (const auto& name : names)
    prefixed.push_back(library_prefix + name);
  return prefixed;
}

//! Where the library tells the story a removed built-in told ("library:A and library:B"),
//! "" for a name that never was a built-in.
// Why keep the old names: traces and scripts written before issue 13 say builtin:NAME, and
// four of the seven stories have other names in the library.
std::string successor_of(const std::string& builtin) {
  static const std::vector<std::pair<std::string, std::string>> successors = {
      {"tab_closes_mid_call", "library:tab_closes_mid_call"},
      {"parallel_calls_two_clients", "library:parallel_reverse_order"},
      {"reload_collision", "library:tab_reload_name_counter"},
      {"navigating_tab_screens", "library:navigating_tab_screens"},
      {"forgetful_and_duplicating", "library:no_ack_timeout and library:duplicating_client"},
      {"erroring_client_and_leaver",
       "library:error_result_reaches_model and library:tab_deleted_mid_call"},
      {"task_three_rounds", "library:task_three_rounds"}};
  for (const auto& [old_name, library] : successors) {
    if (old_name == builtin) return library;
  }
  return "";
}

protocol::outcome<located_scenario> from_library(const std::string& name) {
  const std::string dir = conformance::default_library_dir();
  auto names = library_names(dir);
  if (!names) return names.error();
  // Why look the name up rather than open dir/NAME.yaml: a name with '/' or '..' in it
  // must not reach outside the library.
  if (std::find(names->begin(), names->end(), name) == names->end()) {
    return protocol::invalid_request("no scenario 'library:" + name + "' in the library at " + dir +
                                     did_you_mean(library_prefix + name, with_prefix(*names)) +
                                     "; " + list_hint);
  }
  const std::string file = (std::filesystem::path(dir) / (name + ".yaml")).string();
  auto loaded = scenarios::load_file(file);
  if (!loaded) return loaded.error();
  return located_scenario{std::move(*loaded), library_prefix + name, file};
}

}  // namespace

protocol::outcome<located_scenario> locate_scenario(const std::string& spec) {
  if (is_scenario_file(spec)) {
    auto loaded = scenarios::load_file(spec);
    if (!loaded) return loaded.error();
    return located_scenario{std::move(*loaded), spec, spec};
  }
  if (spec.starts_with(library_prefix)) return from_library(spec.substr(library_prefix.size()));
  const std::string builtin_prefix = "builtin:";
  if (spec.starts_with(builtin_prefix)) {
    const auto successor = successor_of(spec.substr(builtin_prefix.size()));
    return protocol::invalid_request(
        "'" + spec + "': the built-in scenarios are gone; " +
        (successor.empty() ? "run a scenario of the library as library:NAME"
                           : "the scenario library tells this story in " + successor) +
        " (" + list_hint + ")");
  }
  std::string hint;
  if (auto names = library_names(conformance::default_library_dir())) {
    hint = did_you_mean(library_prefix + spec, with_prefix(*names));
  }
  return protocol::invalid_request("no scenario '" + spec + "'" + hint +
                                   ": give a FILE.yaml or library:NAME; " + list_hint);
}

protocol::outcome<std::string> library_table() {
  const std::string dir = conformance::default_library_dir();
  auto names = library_names(dir);
  if (!names) return names.error();
  std::size_t width = 0;
  for (const auto& name : *names)
    width = std::max(width, name.size());
  std::string table;
  for (const auto& name : *names) {
    auto plan = scenarios::load_file((std::filesystem::path(dir) / (name + ".yaml")).string());
    if (!plan) return plan.error();
    std::string ids;
    for (const auto& id : plan->spec_ids)
      ids += (ids.empty() ? "" : ",") + id;
    table += library_prefix + name + std::string(width + 2 - name.size(), ' ') + ids + "\n    " +
             plan->purpose + "\n";
  }
  return table;
}

}  // namespace toolwire::cli
