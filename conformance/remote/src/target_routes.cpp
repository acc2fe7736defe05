// The target's routes, read from the suite's requests.
#include "target_routes.hpp"

#include <vector>

namespace toolwire::conformance::detail {

std::optional<std::string> session_route(const protocol::api_request& request,
                                         std::string_view method, std::string_view suffix) {
  constexpr std::string_view prefix = "/v1/sessions/";
  const std::string& path = request.path;
  if (request.method != method || path.size() <= prefix.size() + suffix.size() ||
      !path.starts_with(prefix) || !path.ends_with(suffix)) {
    return std::nullopt;
  }
  std::string sid = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  if (sid.find('/') != std::string::npos) return std::nullopt;
  return sid;
}

namespace {

//! The path's segments after `/v1/sessions/`: {sid, "clients", cid, ...}; empty if the
//! path is not below it.
std::vector<std::string_view> session_path(std::string_view path) {
  constexpr std::string_view prefix = "/v1/sessions/";
  std::vector<std::string_view> segments;
  if (!path.starts_with(prefix)) return segments;
  path.remove_prefix(prefix.size());
  for (std::size_t slash; (slash = path.find('/')) != std::string_view::npos;) {
    segments.push_back(path.substr(0, slash));
    path.remove_prefix(slash + 1);
  }
  segments.push_back(path);
  return segments;
}

}  // namespace

std::optional<implied_event> implied_event_of(const protocol::api_request& request) {
  const auto at = session_path(request.path);
  if (at.size() < 2 || at[0].empty() || at[1] != "clients") return std::nullopt;
  const std::string session(at[0]);
  if (request.method == "POST" && at.size() == 2) return implied_event{session, 201};
  if (request.method == "DELETE" && at.size() == 3) return implied_event{session, 204};
  if (request.method == "POST" && at.size() == 6 && at[3] == "calls" && at[5] == "result")
    return implied_event{session, 200};
  return std::nullopt;
}

std::optional<std::string> task_route(const protocol::api_request& request) {
  constexpr std::string_view prefix = "/api/tasks/";
  if (!request.path.starts_with(prefix)) return std::nullopt;
  std::string id = request.path.substr(prefix.size());
  id = id.substr(0, id.find('/'));
  if (id.empty()) return std::nullopt;
  return id;
}

}  // namespace toolwire::conformance::detail
