// Sending requests to the target and recording both ends in the trace.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "toolwire/actors/run_context.hpp"
#include "toolwire/actors/server_actor.hpp"
#include "toolwire/protocol/routes.hpp"

namespace toolwire::actors::detail {

protocol::api_request make_request(std::string method, std::string path, const json& body,
                                   std::optional<std::string> credential);

//! The request of route `id` (protocol/routes.hpp), the ids of its path filled in order.
protocol::api_request make_request(protocol::route_id id,
                                   std::initializer_list<std::string_view> ids, const json& body,
                                   std::optional<std::string> credential);

//! The request as recorded: body parsed when it is JSON, the credential only as a mark.
json describe(const protocol::api_request& request);

//! Sends `request` to `target` as `actor`; records the request and its response and
//! then calls `on_response(response)`.
//! `step`, when set, is the scripted step the request performs: both records carry it, so
//! the step's expectations find its response.
//! If no response comes (the target actor failed), the failure is recorded and
//! `on_failure(why)` called, when given: a script waiting on the answer must go on (or
//! end) with a recorded step error, never silently stop.
template <typename Self, typename OnResponse>
void send_request(Self* self, const server_actor& target, run_context* context,
                  const std::string& actor, protocol::api_request request, OnResponse on_response,
                  std::optional<std::size_t> step = std::nullopt,
                  std::function<void(const std::string&)> on_failure = nullptr) {
  context->record(self, actor, "request", [&] {
    json described = describe(request);
    if (step) described["step"] = *step;
    return described;
  });
  const std::string method = request.method;
  const std::string path = request.path;
  const auto asked = request.cors;
  self->request(target, caf::infinite, request_atom::value, std::move(request))
      .then(
          [=](const protocol::api_response& response) {
            context->record(self, actor, "response", [&] {
              json described = {{"method", method},
                                {"path", path},
                                {"status", response.status},
                                {"body", response.body}};
              // What a browser would decide by (CORS-1..3): only where a CORS field went
              // out or came back, so other runs' traces stay as they were.
              if (!asked.empty() || !response.cors.empty())
                described["cors"] = {{"asked", asked}, {"answered", response.cors}};
              if (step) described["step"] = *step;
              return described;
            });
            on_response(response);
          },
          [=](const caf::error& error) {
            const std::string why = self->system().render(error);
            context->record(self, actor, "request_error", [&] {
              return json{{"method", method}, {"path", path}, {"error", why}};
            });
            if (on_failure) on_failure(why);
          });
}

}  // namespace toolwire::actors::detail
