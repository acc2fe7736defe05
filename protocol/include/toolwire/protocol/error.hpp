// Protocol errors as values: a closed set of codes, each with its HTTP status (SPEC C-2).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace toolwire::protocol {

//! The error types of SPEC C-2, plus the transport-level ones a front end needs.
enum class error_code {
  invalid_request,     // 400
  unauthenticated,     // 401
  forbidden,           // 403
  not_found,           // 404
  method_not_allowed,  // 405
  conflict,            // 409
  payload_too_large,   // 413
  internal,     // 500: a core bug, after the core undid the command; or a front end's last resort
  unavailable,  // 503: over a cap (connections, event streams, sessions kept)
};

//! The HTTP status that goes with a code ("status hint", as h11 calls it).
int http_status(error_code code);

//! The wire spelling of a code, e.g. "invalid_request".
std::string_view to_string(error_code code);

//! An error returned by validation, the core or the router. Never thrown across the core boundary.
struct api_error {
  error_code code = error_code::invalid_request;
  std::string message;

  friend bool operator==(const api_error&, const api_error&) = default;
};

api_error invalid_request(std::string message);
api_error not_found(std::string message);
api_error conflict(std::string message);
api_error forbidden(std::string message);
api_error unauthenticated(std::string message);

//! `{"error": {"type": "<code>", "message": "<text>"}}` (SPEC C-2).
nlohmann::json to_json(const api_error& error);

}  // namespace toolwire::protocol
