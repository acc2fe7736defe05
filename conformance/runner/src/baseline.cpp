// Baselines of expected failures.
#include "toolwire/conformance/baseline.hpp"

#include <fstream>
#include <sstream>

namespace toolwire::conformance {

protocol::outcome<baseline> load_baseline(const std::string& path) {
  std::ifstream in(path);
  if (!in) return protocol::invalid_request("cannot read the baseline " + path);
  baseline listed;
  std::string line;
  const auto trimmed = [](const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos) return std::string();
    const auto last = text.find_last_not_of(" \t\r");
    return text.substr(first, last - first + 1);
  };
  for (int number = 1; std::getline(in, line); ++number) {
    bool flaky = false;
    const auto hash = line.find('#');
    if (hash != std::string::npos) {
      flaky = trimmed(line.substr(hash + 1)).starts_with("flaky");
      line.erase(hash);
    }
    std::string id = trimmed(line);
    if (id.empty()) continue;
    if (id.starts_with("flaky:")) {
      flaky = true;
      id = trimmed(id.substr(6));
    }
    if (id.find_first_of(" \t") != std::string::npos) {
      return protocol::invalid_request(path + ":" + std::to_string(number) +
                                       ": one case id per line, got '" + id + "'");
    }
    (flaky ? listed.flaky : listed.expected_failures).insert(id);
  }
  return listed;
}

std::vector<std::string> apply_baseline(const baseline& listed, std::vector<case_result>& results) {
  std::vector<std::string> stale;
  for (auto& r : results) {
    if (listed.flaky.contains(r.id)) {
      r.known_flaky = true;
      // Why not when consistent: --repeat showed it fails every time, so it is no flake.
      if (r.verdict == verdict::fail && r.repeat_label != "consistent") r.expected_failure = true;
      continue;
    }
    if (!listed.expected_failures.contains(r.id)) continue;
    if (r.verdict == verdict::fail) {
      r.expected_failure = true;
    } else if (r.verdict == verdict::pass) {
      stale.push_back(r.id);
    }
  }
  return stale;
}

std::string baseline_text(const std::vector<case_result>& results) {
  std::ostringstream out;
  out << "# toolwire check: expected failures (one case id per line; '#' starts a comment).\n"
      << "# A listed case that fails does not fail the run; a listed case that passes does.\n"
      << "# 'ID  # flaky' (or 'flaky: ID') marks a case known to fail now and then.\n";
  for (const auto& r : results) {
    if (r.verdict != verdict::fail) continue;
    out << r.id << (r.repeat_label == "intermittent" || r.known_flaky ? "  # flaky" : "") << "\n";
  }
  return out.str();
}

}  // namespace toolwire::conformance
