// Error codes, their HTTP statuses and wire names, and the C-2 error body.
#include "toolwire/protocol/error.hpp"

#include <utility>

#include <nlohmann/json.hpp>

namespace toolwire::protocol {

int http_status(error_code code) {
  switch (code) {
    case error_code::invalid_request:
      return 400;
    case error_code::unauthenticated:
      return 401;
    case error_code::forbidden:
      return 403;
    case error_code::not_found:
      return 404;
    case error_code::method_not_allowed:
      return 405;
    case error_code::conflict:
      return 409;
    case error_code::payload_too_large:
      return 413;
    case error_code::internal:
      return 500;
    case error_code::unavailable:
      return 503;
  }
  // Why: an out-of-range enum value can only come from a cast; treat it as a server fault.
  return 500;
}

std::string_view to_string(error_code code) {
  switch (code) {
    case error_code::invalid_request:
      return "invalid_request";
    case error_code::unauthenticated:
      return "unauthenticated";
    case error_code::forbidden:
      return "forbidden";
    case error_code::not_found:
      return "not_found";
    case error_code::method_not_allowed:
      return "method_not_allowed";
    case error_code::conflict:
      return "conflict";
    case error_code::payload_too_large:
      return "payload_too_large";
    case error_code::internal:
      return "internal_error";
    case error_code::unavailable:
      return "unavailable";
  }
  return "internal_error";
}

api_error invalid_request(std::string message) {
  return {error_code::invalid_request, std::move(message)};
}

api_error not_found(std::string message) {
  return {error_code::not_found, std::move(message)};
}

api_error conflict(std::string message) {
  return {error_code::conflict, std::move(message)};
}

api_error forbidden(std::string message) {
  return {error_code::forbidden, std::move(message)};
}

api_error unauthenticated(std::string message) {
  return {error_code::unauthenticated, std::move(message)};
}

nlohmann::json to_json(const api_error& error) {
  return {{"error", {{"type", std::string(to_string(error.code))}, {"message", error.message}}}};
}

}  // namespace toolwire::protocol
