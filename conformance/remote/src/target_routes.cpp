// The target's routes, read from the suite's requests.
#include "target_routes.hpp"

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

std::optional<std::string> task_route(const protocol::api_request& request) {
  constexpr std::string_view prefix = "/api/tasks/";
  if (!request.path.starts_with(prefix)) return std::nullopt;
  std::string id = request.path.substr(prefix.size());
  id = id.substr(0, id.find('/'));
  if (id.empty()) return std::nullopt;
  return id;
}

}  // namespace toolwire::conformance::detail
