// The target's routes, read from the suite's requests through the route table.
#include "target_routes.hpp"

namespace toolwire::conformance::detail {

using protocol::route_id;

request_route::request_route(const protocol::api_request& request)
    : found_(protocol::match_route(request.method, request.path)) {}

std::optional<route_id> request_route::id() const {
  if (!found_) return std::nullopt;
  return found_->route->id;
}

std::optional<std::string> request_route::session_if(route_id id) const {
  if (!found_ || found_->route->id != id || found_->ids.empty()) return std::nullopt;
  return found_->ids[0];
}

std::optional<implied_event> request_route::implied() const {
  if (!found_ || found_->route->implies_event_on == 0) return std::nullopt;
  return implied_event{found_->ids[0], found_->route->implies_event_on,
                       std::string(found_->route->implied_event_type),
                       std::string(found_->route->implied_event_key)};
}

std::string request_route::implied_event_id(const protocol::json& answer) const {
  return found_ ? protocol::implied_event_id(*found_, answer) : "";
}

bool request_route::starts_model_work(int status) const {
  return found_ && found_->route->starts_model_work_on != 0 &&
         found_->route->starts_model_work_on == status;
}

std::optional<std::string> request_route::task() const {
  if (!found_ || (found_->route->id != route_id::get_task &&
                  found_->route->id != route_id::post_tool_results)) {
    return std::nullopt;
  }
  return found_->ids[0];
}

}  // namespace toolwire::conformance::detail
