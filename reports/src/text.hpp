// Small text helpers the report writers share, so a case's group or a joined line is made
// one way in every format.
#pragma once

#include <string>
#include <vector>

namespace toolwire::reports::text {

//! A case id's group: "cors.preflight" is in "cors"; an id without a dot is the catalog's.
inline std::string group_of(const std::string& id) {
  const auto dot = id.find('.');
  return dot == std::string::npos ? "catalog" : id.substr(0, dot);
}

//! The parts one after another. Why not `"..." + s + "..."`: g++ 12 at -O3 reports a false
//! -Wrestrict in such chains (GCC PR 105329), which breaks the Release build with -Werror.
template <typename... Parts>
std::string concatenated(const Parts&... parts) {
  std::string text;
  (text.append(parts), ...);
  return text;
}

//! `items` with `separator` between them.
inline std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (const auto& item : items)
    text += (text.empty() ? "" : separator) + item;
  return text;
}

}  // namespace toolwire::reports::text
