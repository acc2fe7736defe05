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
  for (int number = 1; std::getline(in, line); ++number) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const auto last = line.find_last_not_of(" \t\r");
    const std::string id = line.substr(first, last - first + 1);
    if (id.find_first_of(" \t") != std::string::npos) {
      return protocol::invalid_request(path + ":" + std::to_string(number) +
                                       ": one case id per line, got '" + id + "'");
    }
    listed.expected_failures.insert(id);
  }
  return listed;
}

std::vector<std::string> apply_baseline(const baseline& listed, std::vector<case_result>& results) {
  std::vector<std::string> stale;
  for (auto& r : results) {
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
      << "# A listed case that fails does not fail the run; a listed case that passes does.\n";
  for (const auto& r : results) {
    if (r.verdict == verdict::fail) out << r.id << "\n";
  }
  return out.str();
}

}  // namespace toolwire::conformance
