// Matching a request path against a route pattern such as `/v1/sessions/{}/clients`: the
// router's table and the wire faults around it read paths the same way.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace toolwire::reference_server::detail {

//! The segments of `path` after its leading '/'.
inline std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 1;  // skip the leading '/'
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    parts.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

//! Matches a pre-split pattern against a path; captures the `{}` segments.
inline bool match(const std::vector<std::string>& pattern, const std::vector<std::string>& parts,
                  std::vector<std::string>& captures) {
  if (pattern.size() != parts.size()) return false;
  captures.clear();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (pattern[i] == "{}") {
      if (parts[i].empty()) return false;
      captures.push_back(parts[i]);
    } else if (pattern[i] != parts[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace toolwire::reference_server::detail
