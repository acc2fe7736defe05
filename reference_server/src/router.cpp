// Routing of SPEC's HTTP routes to the core: match the path, authenticate (401, then
// 403, then 404: AUTH-2), parse the body, call the core, choose the status.
#include "toolwire/reference_server/router.hpp"

#include <string_view>
#include <vector>

#include "cors.hpp"
#include "toolwire/protocol/routes.hpp"
#include "toolwire/protocol/validation.hpp"
#include "toolwire/reference_server/core.hpp"
#include "toolwire/reference_server/virtual_clock.hpp"
#include "wire_faults.hpp"

namespace toolwire::reference_server {

using protocol::api_request;
using protocol::api_response;
using protocol::json;

namespace {

api_response error_response(const protocol::api_error& error) {
  return {protocol::http_status(error.code), protocol::to_json(error), std::nullopt, {}, {}};
}

api_response json_response(int status, protocol::outcome<json> result) {
  if (!result) return error_response(result.error());
  return {status, std::move(*result), std::nullopt, {}, {}};
}

//! The credential of a request: the Authorization header, or for the events route the
//! `access_token` query parameter (AUTH-5).
std::optional<std::string> credential_of(const api_request& request, bool allow_query) {
  if (request.credential) return request.credential;
  if (allow_query) {
    auto token = request.query.find("access_token");
    if (token != request.query.end()) return token->second;
  }
  return std::nullopt;
}

//! What a handler gets: the request, the `{}` segments of its path, and the moment.
struct context {
  core& target;
  clock_source& clock;
  const api_request& request;
  const std::vector<std::string>& captures;
  protocol::time_ms now;

  const std::string& sid() const { return captures[0]; }
  const std::string& cid() const { return captures[1]; }
};

//! The request's JSON body (C-1).
protocol::outcome<json> body_of(const context& ctx) {
  return protocol::parse_json_body(ctx.request.body);
}

//! The credential of a session route: the Authorization header only (AUTH-5).
std::optional<std::string> session_credential(const context& ctx) {
  return credential_of(ctx.request, /*allow_query=*/false);
}

//! Authenticates for a session route, parses the JSON body, then runs `act(body)`.
template <typename Act>
api_response session_with_body(const context& ctx, Act act) {
  if (auto ok = ctx.target.authorize_session(session_credential(ctx), ctx.sid()); !ok) {
    return error_response(ok.error());
  }
  auto body = body_of(ctx);
  if (!body) return error_response(body.error());
  return act(*body);
}

//! Authenticates for a session route (no body), then runs `act()`.
template <typename Act>
api_response session_only(const context& ctx, Act act) {
  if (auto ok = ctx.target.authorize_session(session_credential(ctx), ctx.sid()); !ok) {
    return error_response(ok.error());
  }
  return act();
}

//! Authenticates with a workspace API key (Part B, clock), then runs `act()`.
template <typename Act>
api_response workspace(const context& ctx, Act act) {
  if (auto ok = ctx.target.authorize_workspace(ctx.request.credential); !ok) {
    return error_response(ok.error());
  }
  return act();
}

api_response create_session(const context& ctx) {
  if (auto ok = ctx.target.authorize_create_session(ctx.request.credential); !ok) {
    return error_response(ok.error());
  }
  if (!ctx.request.body.empty()) {
    auto body = body_of(ctx);
    if (!body) return error_response(body.error());
    if (!body->is_object()) {
      return error_response(protocol::invalid_request("body: must be a JSON object"));
    }
  }
  auto created = ctx.target.create_session(ctx.now);
  if (!created) return error_response(created.error());
  return {201, json{{"id", created->id}, {"token", created->token}}, std::nullopt, {}, {}};
}

api_response register_client(const context& ctx) {
  return session_with_body(ctx, [&](const json& body) {
    return json_response(201, ctx.target.register_client(ctx.sid(), body, ctx.now));
  });
}

api_response delete_client(const context& ctx) {
  return session_only(ctx, [&]() -> api_response {
    auto deleted = ctx.target.delete_client(ctx.sid(), ctx.cid(), ctx.now);
    if (!deleted) return error_response(deleted.error());
    return {204, json(nullptr), std::nullopt, {}, {}};
  });
}

api_response ping(const context& ctx) {
  return session_only(
      ctx, [&] { return json_response(200, ctx.target.ping(ctx.sid(), ctx.cid(), ctx.now)); });
}

api_response put_tools(const context& ctx) {
  return session_with_body(ctx, [&](const json& body) {
    return json_response(200, ctx.target.put_tools(ctx.sid(), ctx.cid(), body, ctx.now));
  });
}

api_response ack(const context& ctx) {
  return session_only(ctx, [&] {
    return json_response(200, ctx.target.ack(ctx.sid(), ctx.cid(), ctx.captures[2], ctx.now));
  });
}

api_response post_result(const context& ctx) {
  return session_with_body(ctx, [&](const json& body) {
    return json_response(
        200, ctx.target.post_result(ctx.sid(), ctx.cid(), ctx.captures[2], body, ctx.now));
  });
}

api_response post_message(const context& ctx) {
  return session_with_body(ctx, [&](const json& body) {
    return json_response(202, ctx.target.post_message(ctx.sid(), body, ctx.now));
  });
}

api_response open_events(const context& ctx) {
  const auto credential = credential_of(ctx.request, /*allow_query=*/true);
  if (auto ok = ctx.target.authorize_session(credential, ctx.sid()); !ok) {
    return error_response(ok.error());
  }
  std::optional<std::uint64_t> last;
  if (ctx.request.last_event_id) {
    last = protocol::parse_last_event_id(*ctx.request.last_event_id);
    if (!last) {
      return error_response(
          protocol::invalid_request("Last-Event-ID: must be a non-negative integer (SES-3)"));
    }
  }
  auto start = ctx.target.stream_start(ctx.sid(), last);
  if (!start) return error_response(start.error());
  return {200, json(nullptr), protocol::stream_directive{ctx.sid(), *start, {}}, {}, {}};
}

api_response create_task(const context& ctx) {
  return workspace(ctx, [&]() -> api_response {
    auto body = body_of(ctx);
    if (!body) return error_response(body.error());
    return json_response(201, ctx.target.create_task(*body, ctx.now));
  });
}

api_response get_task(const context& ctx) {
  return workspace(
      ctx, [&] { return json_response(200, ctx.target.get_task(ctx.captures[0], ctx.now)); });
}

api_response post_tool_results(const context& ctx) {
  return workspace(ctx, [&]() -> api_response {
    auto body = body_of(ctx);
    if (!body) return error_response(body.error());
    return json_response(200, ctx.target.post_tool_results(ctx.captures[0], *body, ctx.now));
  });
}

//! CLOCK-1: the clock routes exist only with the virtual clock.
template <typename Act>
api_response clock_route(const context& ctx, Act act) {
  if (!ctx.clock.is_virtual()) {
    return error_response(protocol::not_found("this server runs on the real clock"));
  }
  return workspace(ctx, act);
}

api_response get_clock(const context& ctx) {
  return clock_route(ctx, [&]() -> api_response {
    return {200, json{{"now_ms", ctx.clock.now()}}, std::nullopt, {}, {}};
  });
}

api_response advance_clock(const context& ctx) {
  return clock_route(ctx, [&]() -> api_response {
    auto body = protocol::parse_json_body(ctx.request.body);
    if (!body) return error_response(body.error());
    auto advance = protocol::parse_advance_request(*body);
    if (!advance) return error_response(advance.error());
    return {
        200, json{{"now_ms", ctx.clock.advance(ctx.target, advance->ms)}}, std::nullopt, {}, {}};
  });
}

//! The handler of each route of the table (protocol/routes.hpp).
api_response (*handler_of(protocol::route_id id))(const context&) {
  using protocol::route_id;
  switch (id) {
    case route_id::create_session:
      return create_session;
    case route_id::register_client:
      return register_client;
    case route_id::delete_client:
      return delete_client;
    case route_id::ping:
      return ping;
    case route_id::put_tools:
      return put_tools;
    case route_id::ack:
      return ack;
    case route_id::post_result:
      return post_result;
    case route_id::post_message:
      return post_message;
    case route_id::open_events:
      return open_events;
    case route_id::create_task:
      return create_task;
    case route_id::get_task:
      return get_task;
    case route_id::post_tool_results:
      return post_tool_results;
    case route_id::get_clock:
      return get_clock;
    case route_id::advance_clock:
      return advance_clock;
  }
  return nullptr;
}

api_response handle_by_rules(core& target, clock_source& clock, const api_request& request) {
  if (const auto found = protocol::match_route(request.method, request.path)) {
    return handler_of(found->route->id)(context{target, clock, request, found->ids, clock.now()});
  }
  std::string allowed;
  for (const auto method : protocol::methods_at(request.path)) {
    allowed += (allowed.empty() ? "" : ", ") + std::string(method);
  }
  if (!allowed.empty()) {
    auto response = error_response(
        {protocol::error_code::method_not_allowed,
         request.method + " is not allowed on " + request.path + " (allowed: " + allowed + ")"});
    response.allow = allowed;
    return response;
  }
  return error_response(protocol::not_found("no route " + request.method + " " + request.path));
}

}  // namespace

router::router(core& target, clock_source& clock)
    : core_(target),
      clock_(clock),
      wire_faults_(std::make_unique<detail::wire_faults>(target, clock)) {}
router::~router() = default;

api_response router::handle(const api_request& request) {
  // Why apart: a core without faults (the usual case) has no wire fault to rewrite the
  // request, so it is neither copied nor looked at for them.
  if (!wire_faults_->any_planted()) return handle_as_seen(request);
  api_request seen = request;
  if (auto answered = wire_faults_->before(seen)) return *answered;
  api_response response = handle_as_seen(seen);
  wire_faults_->after(seen, response);
  return response;
}

api_response router::handle_as_seen(const api_request& seen) {
  if (auto answered = detail::preflight(core_.config(), seen)) return std::move(*answered);
  api_response response = handle_by_rules(core_, clock_, seen);
  detail::allow_origin(core_.config(), seen, response);
  return response;
}

void router::before_model_reply() {
  wire_faults_->before_model_reply();
}

}  // namespace toolwire::reference_server
