// The target's routes that the suite reads its own requests by (which session or task a
// request is about), to know what a request means for the run's bookkeeping. The routes
// themselves are protocol/routes.hpp's.
#pragma once

#include <optional>
#include <string>

#include "toolwire/protocol/api.hpp"
#include "toolwire/protocol/routes.hpp"

namespace toolwire::conformance::detail {

//! `{sid}` of the request when it is the route `id`, one of a session's.
std::optional<std::string> session_of(const protocol::api_request& request, protocol::route_id id);

//! An event that a successful answer to a request implies: of `session`, when the answer
//! has status `on_status`, of `type`, the field `key` of its data naming what it is about.
struct implied_event {
  std::string session;
  int on_status = 0;
  std::string type;
  std::string key;
};

//! What a successful answer to `request` implies, if anything (route_info's
//! implies_event_on): a registration's 201 (client_registered, REG-9), a client's DELETE
//! 204 (client_unregistered, LIFE-4), a result's 200 (client_tool_completed, CALL-4).
std::optional<implied_event> implied_event_of(const protocol::api_request& request);

//! The id the implied event's `key` has, once the answer is there (implied_event_id).
std::string implied_event_id(const protocol::api_request& request, const protocol::json& answer);

//! Whether the answer to `request` means the target owes a model request (route_info's
//! starts_model_work_on).
bool starts_model_work(const protocol::api_request& request, int status);

//! `{uuid}` of a task's routes (`/api/tasks/{uuid}` and below), if the request is one.
std::optional<std::string> task_route(const protocol::api_request& request);

}  // namespace toolwire::conformance::detail
