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

//! An event that a successful answer to a request implies: of `session`, when the answer
//! has status `on_status`.
struct implied_event {
  std::string session;
  int on_status = 0;
};

//! What a successful answer to `request` implies, if anything: a registration's 201
//! (client_registered, REG-9), a client's DELETE 204 (client_unregistered, LIFE-4), a
//! result's 200 (client_tool_completed, CALL-4). Not a PUT of tools: SPEC names
//! client_tools_updated (SES-4) but ties it to no answer.
std::optional<implied_event> implied_event_of(const protocol::api_request& request);

//! `{uuid}` of `/api/tasks/{uuid}` and the routes below it, if the request is one.
std::optional<std::string> task_route(const protocol::api_request& request);

}  // namespace toolwire::conformance::detail
