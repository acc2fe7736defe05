// The transport failure answer (api.hpp).
#include "toolwire/protocol/api.hpp"

namespace toolwire::protocol {

api_response transport_failure(std::string message, transport_cause cause) {
  api_response response;
  response.status = 0;
  response.body = {{"error", {{"type", "transport"}, {"message", std::move(message)}}}};
  if (cause == transport_cause::unreachable) response.body["error"]["unreachable"] = true;
  return response;
}

bool is_transport_failure(const api_response& response) {
  return response.status == 0;
}

bool says_unreachable(const nlohmann::json& body) {
  return body.is_object() && body.contains("error") && body["error"].is_object() &&
         body["error"].value("unreachable", false) == true;
}

}  // namespace toolwire::protocol
