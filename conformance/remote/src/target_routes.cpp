// The target's routes, read from the suite's requests through the route table.
#include "target_routes.hpp"

namespace toolwire::conformance::detail {

using protocol::route_id;

std::optional<std::string> session_of(const protocol::api_request& request, route_id id) {
  auto found = protocol::match_route(request.method, request.path);
  if (!found || found->route->id != id || found->ids.empty()) return std::nullopt;
  return std::move(found->ids[0]);
}

std::optional<implied_event> implied_event_of(const protocol::api_request& request) {
  auto found = protocol::match_route(request.method, request.path);
  if (!found || found->route->implies_event_on == 0) return std::nullopt;
  return implied_event{std::move(found->ids[0]), found->route->implies_event_on,
                       std::string(found->route->implied_event_type),
                       std::string(found->route->implied_event_key)};
}

std::string implied_event_id(const protocol::api_request& request, const protocol::json& answer) {
  const auto found = protocol::match_route(request.method, request.path);
  return found ? protocol::implied_event_id(*found, answer) : "";
}

bool starts_model_work(const protocol::api_request& request, int status) {
  const auto found = protocol::match_route(request.method, request.path);
  return found && found->route->starts_model_work_on != 0 &&
         found->route->starts_model_work_on == status;
}

std::optional<std::string> task_route(const protocol::api_request& request) {
  auto found = protocol::match_route(request.method, request.path);
  if (!found ||
      (found->route->id != route_id::get_task && found->route->id != route_id::post_tool_results)) {
    return std::nullopt;
  }
  return std::move(found->ids[0]);
}

}  // namespace toolwire::conformance::detail
