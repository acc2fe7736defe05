// "Did you mean" for the command line, on top of the scenario language's edit distance.
#include "suggest.hpp"

#include "toolwire/reference_server/faults.hpp"
#include "toolwire/reference_server/variations/variations.hpp"
#include "toolwire/scenarios/vocabulary.hpp"

namespace toolwire::cli {

namespace {

//! The subcommand the user typed last: unknown tokens after it are its flags.
const CLI::App* deepest_parsed(const CLI::App& app) {
  for (const auto* sub : app.get_subcommands()) {
    if (sub->parsed()) return deepest_parsed(*sub);
  }
  return &app;
}

std::vector<std::string> flags_of(const CLI::App& app) {
  std::vector<std::string> flags;
  for (const auto* option : app.get_options()) {
    for (const auto& name : option->get_lnames())
      flags.push_back("--" + name);
  }
  return flags;
}

std::vector<std::string> subcommands_of(const CLI::App& app) {
  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands({}))
    names.push_back(sub->get_name());
  return names;
}

}  // namespace

std::string did_you_mean(std::string_view word, const std::vector<std::string>& known) {
  const std::vector<std::string_view> views(known.begin(), known.end());
  const auto best = scenarios::vocabulary::closest(word, views);
  if (best.empty()) return "";
  std::string hint = " (did you mean '";
  hint.append(best).append("'?)");
  return hint;
}

std::string unknown_fault_message(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& info : reference_server::all_faults())
    names.emplace_back(info.name);
  std::string message = "unknown fault '";
  message.append(name).append("'").append(did_you_mean(name, names));
  // Why three and not all: the catalogue has over a hundred names, too many for one line.
  const std::vector<std::string_view> views(names.begin(), names.end());
  message.append("; the nearest: ");
  const auto near = scenarios::vocabulary::nearest(name, views, 3);
  for (std::size_t i = 0; i < near.size(); ++i)
    message.append(i == 0 ? "" : ", ").append(near[i]);
  message.append("; toolwire serve --list-faults lists all ")
      .append(std::to_string(names.size()))
      .append(" with the rule each breaks");
  return message;
}

std::string unknown_variation_message(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& info : reference_server::variations::all_variations())
    names.emplace_back(info.name);
  std::string message = "unknown variation '";
  message.append(name).append("'").append(did_you_mean(name, names));
  message.append("; toolwire serve --list-variations lists them");
  return message;
}

std::vector<std::string> hints_for_extras(const CLI::App& app) {
  const CLI::App& where = *deepest_parsed(app);
  const auto flags = flags_of(where);
  const auto subcommands = subcommands_of(where);
  std::vector<std::string> hints;
  for (const auto& token : app.remaining(true)) {
    std::string hint;
    if (token.starts_with("--")) {
      hint = did_you_mean(token.substr(0, token.find('=')), flags);
    } else if (!token.starts_with("-") && !subcommands.empty()) {
      hint = did_you_mean(token, subcommands);
    }
    if (hint.empty()) continue;
    // " (did you mean 'x'?)" → "did you mean 'x'? (for 'token')"
    std::string line = hint.substr(2, hint.size() - 3);
    line.append(" (for '").append(token).append("')");
    hints.push_back(std::move(line));
  }
  return hints;
}

}  // namespace toolwire::cli
