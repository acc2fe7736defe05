// The routes of SPEC.md in one table: method, path pattern, body, who may call them, what
// a success implies (an event on the stream, a model request) and the rules a response
// proves. The router, the wire faults, the remote harness, the script actions and the
// observations ask it; none of them spells a path.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/protocol/types.hpp"

namespace toolwire::protocol {

enum class route_id : std::uint8_t {
  create_session,     // POST   /v1/sessions                                   SES-1
  register_client,    // POST   /v1/sessions/{sid}/clients                     REG-*
  delete_client,      // DELETE /v1/sessions/{sid}/clients/{cid}               LIFE-1
  ping,               // POST   /v1/sessions/{sid}/clients/{cid}/ping          LIFE-2
  put_tools,          // PUT    /v1/sessions/{sid}/clients/{cid}/tools         TOOLS-1
  ack,                // POST   /v1/sessions/{sid}/clients/{cid}/calls/{id}/ack     CALL-3
  post_result,        // POST   /v1/sessions/{sid}/clients/{cid}/calls/{id}/result  CALL-4
  post_message,       // POST   /v1/sessions/{sid}/messages                    SES-2
  open_events,        // GET    /v1/sessions/{sid}/events                      SES-3
  create_task,        // POST   /api/tasks                                     TASK-1
  get_task,           // GET    /api/tasks/{uuid}                              TASK-2
  post_tool_results,  // POST   /api/tasks/{uuid}/tool-results                 TASK-4
  get_clock,          // GET    /v1/_test/clock                                CLOCK-1
  advance_clock,      // POST   /v1/_test/clock/advance                        CLOCK-1
};

//! Who may call a route (AUTH-1, AUTH-2, AUTH-4).
enum class route_access : std::uint8_t {
  manage_key,             // an API key with session.manage; a session token is 403 (AUTH-4)
  session_or_manage_key,  // the session's token or a session.manage key (AUTH-1)
  any_api_key,            // any workspace API key; a session token is 403 (AUTH-2)
};

//! What a route reads from its body.
enum class route_body : std::uint8_t {
  none,         // nothing (ping, ack, the GETs, a DELETE)
  json,         // a JSON object, always
  json_if_any,  // a JSON object when there is a body (SES-1's `{}` may be left out)
  own,          // its own form, read by its handler (the clock's advance)
};

struct route_info {
  route_id id;
  std::string_view method;
  //! The path, one `{name}` per id it carries (session, client, call, task), in that
  //! order: "/v1/sessions/{sid}/clients/{cid}/ping". Also what messages show.
  std::string_view pattern;
  route_body body;
  route_access access;
  //! The status of a success that implies an event on the session's stream (REG-9's
  //! client_registered, LIFE-4's client_unregistered, CALL-4's client_tool_completed),
  //! or 0. Not a PUT of tools: SPEC names client_tools_updated but ties it to no answer.
  int implies_event_on = 0;
  //! That event's type, and the field of its data that names what it is about: a
  //! registration's client_registered and a DELETE's client_unregistered by `client_id`, a
  //! result's client_tool_completed by `call_id` (see implied_event_id).
  std::string_view implied_event_type;
  std::string_view implied_event_key;
  //! The status of a success after which the target owes a model request: a message
  //! starts a turn (SES-2), a task starts processing (TASK-1), accepted results send the
  //! task back to the model (TASK-4); or 0.
  int starts_model_work_on = 0;
  //! The rules a response of this route proves (what a compared answer cites).
  std::vector<std::string_view> rules;
};

//! Every route, in the order a 405's `Allow` lists the methods of one path.
const std::vector<route_info>& routes();

//! The row of `id`.
const route_info& route_of(route_id id);

//! A request's route and the ids its path carries (its `{…}` segments, in order).
struct route_match {
  const route_info* route = nullptr;
  std::vector<std::string> ids;
};

//! The route `method path` is (`path` without its query), or nullopt: no pattern fits,
//! or one fits with another method (see methods_at). A `{…}` never matches an empty segment.
std::optional<route_match> match_route(std::string_view method, std::string_view path);

//! The methods of the routes whose pattern fits `path`, in table order (for a 405).
std::vector<std::string_view> methods_at(std::string_view path);

//! The path of `id` with its `{…}` filled by `ids`, in order (a placeholder without an id
//! stays as written).
std::string route_path(route_id id, std::initializer_list<std::string_view> ids = {});
std::string route_path(route_id id, const std::vector<std::string_view>& ids);

//! "POST /v1/sessions/{sid}/messages": the route as messages name it.
std::string route_shown(route_id id);

//! The id that names the event a success of `match` implies (route_info's
//! implied_event_key): the answer's body field of that name when it has one (a
//! registration's 201 names the new client), else the last id of the path.
std::string implied_event_id(const route_match& match, const json& answer);

//! Whether `path` lies below `/v1/sessions/{sid}/` (a session's routes, known or not).
bool under_a_session(std::string_view path);

}  // namespace toolwire::protocol
