// CORS-1..3, top to bottom (docs/cors.md).
#include "cors.hpp"

#include <algorithm>
#include <string>

#include "toolwire/protocol/routes.hpp"

namespace toolwire::reference_server::detail {
namespace {

//! The request's `Origin` when the server allows it. Why exact: a browser sends the origin
//! serialized (`scheme://host[:port]`, lowercase, no path), and `serve --cors-origin`
//! stores it in that form; anything else is another origin.
std::optional<std::string> allowed_origin(const core_config& config,
                                          const protocol::api_request& request) {
  const auto origin = request.cors.find("origin");
  if (origin == request.cors.end()) return std::nullopt;
  const auto& allowed = config.cors_origins;
  if (std::find(allowed.begin(), allowed.end(), origin->second) == allowed.end()) return {};
  return origin->second;
}

std::string joined(const std::vector<std::string_view>& items) {
  std::string text;
  for (const auto item : items)
    text += (text.empty() ? "" : ", ") + std::string(item);
  return text;
}

}  // namespace

std::optional<protocol::api_response> preflight(const core_config& config,
                                                const protocol::api_request& request) {
  if (config.cors_origins.empty() || request.method != "OPTIONS") return std::nullopt;
  const auto methods = protocol::methods_at(request.path);
  if (methods.empty()) return std::nullopt;  // no route here: 404 as for any method
  // CORS-1: no credential is asked for (a browser sends none with a preflight), and the
  // answer allows every method of the path and every header the API reads.
  protocol::api_response response;
  response.status = 204;
  response.body = nullptr;
  response.allow = joined(methods);
  if (const auto origin = allowed_origin(config, request)) {
    response.cors = {{"access-control-allow-origin", *origin},
                     {"access-control-allow-methods", response.allow},
                     {"access-control-allow-headers", "Authorization, Content-Type, Last-Event-ID"},
                     {"access-control-max-age", "600"}};
  }
  // Why Vary on every answer: what is allowed depends on Origin, so a cache must not give
  // one origin's answer to another.
  response.cors["vary"] = "Origin";
  return response;
}

void allow_origin(const core_config& config, const protocol::api_request& request,
                  protocol::api_response& response) {
  if (config.cors_origins.empty() || request.method == "OPTIONS") return;
  // CORS-2: errors and the event stream too, so the page can read why it was refused and
  // its EventSource opens. CORS-3: any other origin gets no allow at all, never `*`.
  if (!request.cors.contains("origin")) return;  // not a browser's cross-origin request
  if (const auto origin = allowed_origin(config, request))
    response.cors["access-control-allow-origin"] = *origin;
  response.cors["vary"] = "Origin";
}

}  // namespace toolwire::reference_server::detail
