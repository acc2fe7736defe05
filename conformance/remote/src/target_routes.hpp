// The target's routes that the suite reads its own requests by (which session or task a
// request is about), to know what a request means for the run's bookkeeping.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "toolwire/protocol/api.hpp"

namespace toolwire::conformance::detail {

//! `{sid}` of `METHOD /v1/sessions/{sid}<suffix>`, if the request is that route.
std::optional<std::string> session_route(const protocol::api_request& request,
                                         std::string_view method, std::string_view suffix);

//! `{uuid}` of `/api/tasks/{uuid}` and the routes below it, if the request is one.
std::optional<std::string> task_route(const protocol::api_request& request);

}  // namespace toolwire::conformance::detail
