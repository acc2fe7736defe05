// The CORS capability (CORS-1..3, docs/cors.md): which browser pages may call the server.
// SPEC.md has no CORS; a server started with allowed origins (core_config::cors_origins)
// answers preflights and marks its answers so that a tab served from one of them can read
// them, and a page of any other origin cannot.
#pragma once

#include <optional>

#include "toolwire/protocol/api.hpp"
#include "toolwire/reference_server/core.hpp"

namespace toolwire::reference_server::detail {

//! CORS-1: the answer to an `OPTIONS` on a route's path when the server has allowed
//! origins; nullopt for any other request (or without the capability: OPTIONS is then
//! 405 like any method the path does not take).
std::optional<protocol::api_response> preflight(const core_config& config,
                                                const protocol::api_request& request);

//! CORS-2, CORS-3: marks `response` as readable by the request's origin when it is
//! allowed, and by no one else.
void allow_origin(const core_config& config, const protocol::api_request& request,
                  protocol::api_response& response);

}  // namespace toolwire::reference_server::detail
