// Request construction and description for the trace.
#include "requests.hpp"

namespace toolwire::actors::detail {

protocol::api_request make_request(std::string method, std::string path, const json& body,
                                   std::optional<std::string> credential) {
  protocol::api_request request;
  request.method = std::move(method);
  request.path = std::move(path);
  request.credential = std::move(credential);
  request.body = body.is_null() ? "" : body.dump();
  return request;
}

protocol::api_request make_request(protocol::route_id id,
                                   std::initializer_list<std::string_view> ids, const json& body,
                                   std::optional<std::string> credential) {
  return make_request(std::string(protocol::route_of(id).method), protocol::route_path(id, ids),
                      body, std::move(credential));
}

json describe(const protocol::api_request& request) {
  json described = {{"method", request.method}, {"path", request.path}};
  if (!request.body.empty()) {
    json body = json::parse(request.body, nullptr, false);
    described["body"] = body.is_discarded() ? json(request.body) : body;
  }
  if (request.credential) described["credential"] = redacted;
  if (request.last_event_id) described["last_event_id"] = *request.last_event_id;
  if (!request.cors.empty()) described["cors"] = request.cors;
  return described;
}

}  // namespace toolwire::actors::detail
