// The faults that live on the wire (see wire_faults.hpp). Each is one realistic defect of
// a server's HTTP layer: credentials checked per route, bodies parsed by hand, error types
// spelt its own way, a clock route that rounds.
#include "wire_faults.hpp"

#include <algorithm>
#include <string_view>
#include <tuple>
#include <vector>

#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/routes.hpp"
#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/protocol/validation.hpp"

namespace toolwire::reference_server::detail {

using protocol::api_request;
using protocol::api_response;
using protocol::json;

namespace {

using protocol::route_id;

//! The ids in the request's path when it is the route `id` (protocol/routes.hpp).
std::optional<std::vector<std::string>> route(const api_request& request, route_id id) {
  auto found = protocol::match_route(request.method, request.path);
  if (!found || found->route->id != id) return std::nullopt;
  return std::move(found->ids);
}

//! The row of the request's route, or null.
const protocol::route_info* route_of(const api_request& request) {
  const auto found = protocol::match_route(request.method, request.path);
  return found ? found->route : nullptr;
}

api_response error(int status, std::string_view type, std::string message) {
  return {status,
          json{{"error", {{"type", type}, {"message", std::move(message)}}}},
          std::nullopt,
          {},
          {}};
}

//! The request's body as a JSON object, when it is one.
std::optional<json> object_body(const api_request& request) {
  if (request.body.empty()) return std::nullopt;
  auto body = protocol::parse_json_body(request.body);
  if (!body || !body->is_object()) return std::nullopt;
  return std::move(*body);
}

//! Whether the rules let `request` past authentication on session `sid`. A fault that
//! answers before the rules must not answer what they would refuse (AUTH-2's order).
bool passes_session_auth(const core& target, const api_request& request, const std::string& sid) {
  auto credential = request.credential;
  const auto query = request.query.find("access_token");
  if (!credential && query != request.query.end()) credential = query->second;
  return target.authorize_session(credential, sid).ok();
}

//! Whether call `call_id` of session `sid` was dispatched (its event is retained).
bool was_dispatched(const core& target, const std::string& sid, const std::string& call_id) {
  for (const auto& event : target.events_after(sid, 0).events) {
    if (protocol::parse_event_type(event.type) == protocol::event_type::client_tool_dispatched &&
        protocol::string_at(event.data, "call_id") == call_id) {
      return true;
    }
  }
  return false;
}

//! The workspace routes: Part B and the clock, which take any API key (AUTH-2).
bool is_workspace_route(const api_request& request) {
  const auto* info = route_of(request);
  return info != nullptr && info->access == protocol::route_access::any_api_key;
}

bool is_clock_route(const api_request& request) {
  const auto* info = route_of(request);
  return info != nullptr &&
         (info->id == route_id::get_clock || info->id == route_id::advance_clock);
}

//! The routes whose handler reads the body as JSON (not ping, ack or the clock advance,
//! which read none or their own, nor a session creation without a body).
bool reads_json_body(const api_request& request) {
  const auto* info = route_of(request);
  if (info == nullptr) return false;
  if (info->body == protocol::route_body::json_if_any) return !request.body.empty();
  return info->body == protocol::route_body::json;
}

//! The session of a client route (`/v1/sessions/{sid}/clients...`), if `request` is one.
std::optional<std::string> client_route_session(const api_request& request) {
  auto found = protocol::match_route(request.method, request.path);
  const auto& clients = protocol::route_of(route_id::register_client).pattern;
  if (!found || !found->route->pattern.starts_with(clients)) return std::nullopt;
  return found->ids[0];
}

}  // namespace

std::optional<api_response> wire_faults::before(api_request& request) {
  if (auto refused = reread_request(request)) return refused;
  if (auto refused = refuse_credential(request)) return refused;
  if (auto refused = refuse_body(request)) return refused;
  rewrite_clock_request(request);
  // Fault task_duplicate_tools_collapsed (TASK-1): the first declaration of a name wins.
  if (has(fault::task_duplicate_tools_collapsed) && route(request, route_id::create_task)) {
    auto body = object_body(request);
    if (body && body->contains("client_tools") && (*body)["client_tools"].is_array()) {
      json kept = json::array();
      std::set<std::string> names;
      for (const auto& tool : (*body)["client_tools"]) {
        const auto* name = tool.is_object() && tool.contains("name") ? &tool["name"] : nullptr;
        if (name && name->is_string() && !names.insert(name->get<std::string>()).second) continue;
        kept.push_back(tool);
      }
      (*body)["client_tools"] = std::move(kept);
      request.body = body->dump(-1, ' ', false, json::error_handler_t::replace);
    }
  }
  // Fault result_requires_ack (CALL-3): a result needs an ack first.
  if (has(fault::result_requires_ack)) {
    if (auto at = route(request, route_id::post_result)) {
      const auto& [sid, cid, call] = std::tie((*at)[0], (*at)[1], (*at)[2]);
      if (passes_session_auth(target_, request, sid) && was_dispatched(target_, sid, call) &&
          !acked_.contains({sid, call})) {
        return error(409, "conflict", "call " + call + " of " + cid + " must be acked first");
      }
    }
  }
  // Fault last_event_id_beyond_latest_rejected (SES-3): ids only up to the latest seq.
  if (has(fault::last_event_id_beyond_latest_rejected) && request.last_event_id) {
    if (auto at = route(request, route_id::open_events)) {
      const auto latest = target_.stream_start((*at)[0], std::nullopt);
      const auto asked = protocol::parse_last_event_id(*request.last_event_id);
      if (passes_session_auth(target_, request, (*at)[0]) && latest && asked && *asked > *latest) {
        return error(400, "invalid_request", "Last-Event-ID: beyond the latest event");
      }
    }
  }
  return std::nullopt;
}

std::optional<api_response> wire_faults::refuse_credential(const api_request& request) {
  const auto who = target_.identify(request.credential);
  const bool token = who.type == principal::kind::session_token;
  // Faults session_token_rejected_on_messages, _on_delete (AUTH-1): the token is checked
  // against a list of routes that forgot these two.
  if (token && has(fault::session_token_rejected_on_messages) &&
      route(request, route_id::post_message)) {
    return error(403, "forbidden", "messages need the API key");
  }
  if (token && has(fault::session_token_rejected_on_delete) &&
      route(request, route_id::delete_client)) {
    return error(403, "forbidden", "removing a client needs the API key");
  }
  // Fault limited_key_refused_on_workspace_routes (AUTH-2): session.manage asked everywhere.
  if (has(fault::limited_key_refused_on_workspace_routes) && is_workspace_route(request) &&
      who.type == principal::kind::api_key && !who.can_manage_sessions) {
    return error(403, "forbidden", "this key lacks session.manage");
  }
  return std::nullopt;
}

std::optional<api_response> wire_faults::reread_request(api_request& request) {
  // Fault malformed_json_treated_as_empty (C-1): a body that does not parse reads as {}.
  if (has(fault::malformed_json_treated_as_empty) && reads_json_body(request) &&
      !protocol::parse_json_body(request.body)) {
    request.body = "{}";
  }
  // Fault access_token_accepted_everywhere (C-5): every session route takes the token from
  // the query, as the events route does.
  if (has(fault::access_token_accepted_everywhere) && protocol::under_a_session(request.path) &&
      !request.credential) {
    if (auto token = request.query.find("access_token"); token != request.query.end()) {
      request.credential = token->second;
    }
  }
  // Fault api_key_rejected_on_client_routes (AUTH-1): /clients routes take only the token,
  // once the rules' own checks pass.
  if (has(fault::api_key_rejected_on_client_routes)) {
    const auto sid = client_route_session(request);
    if (sid && target_.authorize_session(request.credential, *sid) &&
        target_.identify(request.credential).type == principal::kind::api_key) {
      return error(403, "forbidden", "client routes take the session's token");
    }
  }
  // Fault unknown_fields_rejected (C-6): creation takes no fields, so any is unknown.
  if (has(fault::unknown_fields_rejected) && route(request, route_id::create_session) &&
      target_.authorize_create_session(request.credential)) {
    const auto body = object_body(request);
    if (body && !body->empty())
      return error(400, "invalid_request", body->begin().key() + ": unknown field");
  }
  if (!route(request, route_id::open_events)) return std::nullopt;
  // Fault access_token_query_ignored (AUTH-5): only the header counts, also here.
  if (has(fault::access_token_query_ignored)) request.query.erase("access_token");
  if (request.last_event_id) {
    const auto last = protocol::parse_last_event_id(*request.last_event_id);
    // Fault last_event_id_zero_rejected (SES-3): ids start at 1, so 0 is refused.
    if (last == 0u && has(fault::last_event_id_zero_rejected)) request.last_event_id = "-0";
    // Fault invalid_last_event_id_replays_all (SES-3): garbage means "from the start".
    if (!last && has(fault::invalid_last_event_id_replays_all)) request.last_event_id = "0";
  }
  return std::nullopt;
}

std::optional<api_response> wire_faults::refuse_body(api_request& request) {
  if (request.body.empty()) return std::nullopt;
  const auto body = protocol::parse_json_body(request.body);
  // Fault malformed_json_is_500 (C-2): the parser's exception escapes to a 500.
  if (!body && has(fault::malformed_json_is_500)) {
    return error(500, "internal", "unexpected character in the body");
  }
  // Fault non_object_body_is_422 (C-2): a well-formed body of the wrong kind is 422.
  if (body && !body->is_object() && has(fault::non_object_body_is_422)) {
    return error(422, "unprocessable_entity", "the body must be an object");
  }
  if (!body || !body->is_object() || !route(request, route_id::register_client)) {
    return std::nullopt;
  }
  // Fault client_name_length_exclusive (REG-4): 1 < length < 64 for client names.
  const auto* name = body->contains("name") ? &(*body)["name"] : nullptr;
  if (name && name->is_string() && has(fault::client_name_length_exclusive)) {
    const auto length = name->get<std::string>().size();
    if (length == 1 || length == 64) {
      return error(400, "invalid_request", "name: 2 to 63 characters");
    }
  }
  // Fault ttl_upper_bound_exclusive (REG-8): seconds < 86400.
  const json lifetime = body->value("lifetime", json());
  if (has(fault::ttl_upper_bound_exclusive) && lifetime.is_object() &&
      lifetime.value("type", json()) == "ttl" && lifetime.value("data", json()).is_object() &&
      lifetime["data"].value("seconds", json()) == 86400) {
    return error(400, "invalid_request", "lifetime.data.seconds: must be below 86400");
  }
  return std::nullopt;
}

void wire_faults::rewrite_clock_request(api_request& request) {
  if (!route(request, route_id::advance_clock)) return;
  const auto body = object_body(request);
  if (!body) return;
  const json ms = body->value("ms", json());
  // Fault zero_advance_rejected (CLOCK-1): "a positive number of ms".
  if (has(fault::zero_advance_rejected) && ms == 0) {
    request.body = R"({"ms":-1})";
  }
  // Fault negative_advance_accepted (CLOCK-1): a negative advance is clamped to 0.
  if (has(fault::negative_advance_accepted) && ms.is_number_integer() &&
      ms.get<std::int64_t>() < 0) {
    request.body = R"({"ms":0})";
  }
  // Fault advance_fires_timers_late (CLOCK-2): the rules see the previous advance's ms, so
  // what this one reaches fires with the next. Only an advance the rules accept is taken
  // over: a rejected one changes nothing (C-3), now or later.
  if (has(fault::advance_fires_timers_late) && clock_.is_virtual() &&
      target_.authorize_workspace(request.credential) && protocol::parse_advance_request(*body)) {
    request.body = json{{"ms", unseen_advance_ms_}}.dump();
    unseen_advance_ms_ = ms.get<protocol::time_ms>();
  }
}

void wire_faults::before_model_reply() {
  // Fault model_steps_take_virtual_time (CLOCK-3): the reply is applied a second later.
  if (has(fault::model_steps_take_virtual_time) && clock_.is_virtual())
    clock_.advance(target_, 1000);
}

void wire_faults::after(const api_request& request, api_response& response) {
  const bool ok = response.status >= 200 && response.status < 300;
  if (ok && has(fault::result_requires_ack)) {
    if (auto at = route(request, route_id::ack)) {
      acked_.insert({(*at)[0], (*at)[2]});
    }
  }
  // Fault put_tools_extends_ttl (LIFE-6): the handler of PUT also "touches" the client.
  if (ok && has(fault::put_tools_extends_ttl)) {
    if (auto at = route(request, route_id::put_tools)) {
      (void)target_.ping((*at)[0], (*at)[1], clock_.now());
    }
  }
  if (ok && is_clock_route(request) && response.body.is_object() &&
      response.body.contains("now_ms") && response.body["now_ms"].is_number_integer()) {
    auto& now_ms = response.body["now_ms"];
    if (has(fault::advance_fires_timers_late)) {
      // Saturates as the clock does (virtual_clock.cpp): ms may be near INT64_MAX.
      const auto now = std::min(now_ms.get<protocol::time_ms>(), max_virtual_ms);
      now_ms = now + std::min(unseen_advance_ms_, max_virtual_ms - now);
    }
  }
  // Fault result_after_timeout_accepted (CALL-6): a late result is answered 200, although
  // the failure stands.
  if (response.status == 409 && has(fault::result_after_timeout_accepted)) {
    if (auto at = route(request, route_id::post_result)) {
      for (const auto& event : target_.events_after((*at)[0], 0).events) {
        const std::string reason = protocol::string_at(event.data, "reason");
        if (protocol::parse_event_type(event.type) == protocol::event_type::client_tool_failed &&
            protocol::string_at(event.data, "call_id") == (*at)[2] &&
            (reason == "ack_timeout" || reason == "result_timeout")) {
          response = {
              200, json{{"call_id", (*at)[2]}, {"status", "completed"}}, std::nullopt, {}, {}};
          break;
        }
      }
    }
  }
  change_state_of_rejected(request, response);
  retype_errors(request, response);
  break_cors(request, response);
}

void wire_faults::break_cors(const api_request& request, api_response& response) const {
  const bool preflight = request.method == "OPTIONS" && response.status == 204;
  // Fault cors_any_origin_allowed (CORS-3): whatever Origin came is echoed, as a server
  // that copies the header instead of checking it against its list.
  if (has(fault::cors_any_origin_allowed) && request.cors.contains("origin")) {
    response.cors["access-control-allow-origin"] = request.cors.at("origin");
    if (preflight) {
      response.cors["access-control-allow-methods"] = response.allow;
      response.cors["access-control-allow-headers"] = "Authorization, Content-Type, Last-Event-ID";
    }
  }
  // Fault cors_authorization_header_not_allowed (CORS-1): the list forgets the credential.
  if (has(fault::cors_authorization_header_not_allowed) &&
      response.cors.contains("access-control-allow-headers")) {
    response.cors["access-control-allow-headers"] = "Content-Type, Last-Event-ID";
  }
  // Fault cors_errors_not_allowed (CORS-2): the CORS fields are added on success only.
  if (has(fault::cors_errors_not_allowed) && response.status >= 400) {
    response.cors.erase("access-control-allow-origin");
  }
  // Fault cors_preflight_needs_credential (CORS-1): authentication runs before the preflight
  // is recognised, so a browser's preflight (never with a credential) is 401.
  if (has(fault::cors_preflight_needs_credential) && preflight && !request.credential) {
    auto cors = std::move(response.cors);
    response = error(401, "unauthenticated", "missing credential");
    response.cors = std::move(cors);
  }
}

void wire_faults::change_state_of_rejected(const api_request& request,
                                           const api_response& response) {
  if (response.status != 400) return;
  const auto body = object_body(request);
  if (!body) return;
  // Fault rejected_message_starts_turn (C-3): the turn starts before the content is checked.
  if (has(fault::rejected_message_starts_turn)) {
    if (auto at = route(request, route_id::post_message)) {
      (void)target_.post_message((*at)[0], json{{"content", body->dump()}}, clock_.now());
    }
  }
  // Fault rejected_registration_registers_client (C-3): the client is stored before its
  // tools and lifetime are checked.
  if (has(fault::rejected_registration_registers_client) && body->contains("name") &&
      (*body)["name"].is_string()) {
    if (auto at = route(request, route_id::register_client)) {
      const json bare{
          {"name", (*body)["name"]}, {"lifetime", {{"type", "never"}}}, {"tools", json::array()}};
      (void)target_.register_client((*at)[0], bare, clock_.now());
    }
  }
}

void wire_faults::retype_errors(const api_request& request, api_response& response) {
  // Fault missing_credential_is_400 (AUTH-2): "no credential" counts as a bad request.
  if (response.status == 401 && !request.credential && !request.query.contains("access_token") &&
      has(fault::missing_credential_is_400)) {
    response = error(400, "invalid_request", "the Authorization header is missing");
  }
  const bool has_type = response.body.is_object() && response.body.contains("error") &&
                        response.body["error"].is_object();
  // Faults conflict_typed_invalid_state, not_found_typed_unknown_resource (C-2).
  if (has_type && response.status == 409 && has(fault::conflict_typed_invalid_state)) {
    response.body["error"]["type"] = "invalid_state";
  }
  if (has_type && response.status == 404 && has(fault::not_found_typed_unknown_resource)) {
    response.body["error"]["type"] = "unknown_resource";
  }
  // Fault error_body_is_string (C-2): the error object flattened to its message.
  if (has_type && response.status >= 400 && has(fault::error_body_is_string)) {
    response.body = json{{"error", protocol::string_at(response.body["error"], "message")}};
  }
  // Faults session_created_with_200, second_session_answered_200 (SES-1).
  if (response.status == 201 && route(request, route_id::create_session)) {
    const bool second = ++sessions_created_ > 1 && has(fault::second_session_answered_200);
    if (second || has(fault::session_created_with_200)) response.status = 200;
  }
  // Fault api_key_registration_201_without_name (REG-9).
  if (response.status == 201 && has(fault::api_key_registration_201_without_name) &&
      response.body.is_object() && route(request, route_id::register_client) &&
      target_.identify(request.credential).type == principal::kind::api_key) {
    response.body.erase("name");
  }
}

}  // namespace toolwire::reference_server::detail
