// Clients of a session: registration and name assignment (REG-5, REG-6), pings and
// TTLs (LIFE-1..3, LIFE-6), tool-list replacement (TOOLS-1, TOOLS-2), departures (LIFE-4,
// LIFE-5).
#include <algorithm>
#include <utility>

#include "core_state.hpp"
#include "policy.hpp"
#include "toolwire/protocol/codec.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::reference_server::detail {

using protocol::outcome;

namespace {

//! When a TTL client's lifetime ends, counted from `now` (LIFE-1).
time_ms ttl_end(const client_record& client, time_ms now) {
  return now + client.lifetime.seconds * 1000;
}

void schedule_expiry(state& s, const session_record& session, const client_record& client) {
  schedule(s, client.serial, s.policy->expiry_due(*client.expires_at),
           {timer_kind::client_expiry, session.id, client.id});
}

//! Starts the TTL of a client that is not yet in the session (registration).
void arm_expiry(state& s, const session_record& session, client_record& client, time_ms now) {
  client.expires_at = ttl_end(client, now);
  schedule_expiry(s, session, client);
}

json expires_at_json(const client_record& client) {
  return client.expires_at ? json(*client.expires_at) : json(nullptr);
}

std::vector<std::string> tool_names(const std::vector<tool_spec>& tools) {
  std::vector<std::string> names;
  for (const auto& tool : tools)
    names.push_back(tool.name);
  return names;
}

//! For a policy that fails the calls of withdrawn tools (TOOLS-4, TOOLS-6): fails the
//! client's open calls of tools that `kept` no longer offers.
void fail_withdrawn_calls(state& s, session_record& session, client_record& client,
                          const std::vector<tool_spec>& kept, time_ms now) {
  std::vector<std::string> withdrawn;
  for (const auto& [serial, call_id] : client.open_calls) {
    auto call = session.calls.find(call_id);
    // Only where the call table lets tool_unavailable apply (an un-acked call): an acked
    // one stays open, since no policy makes a move the table refuses.
    if (call != session.calls.end() && !declares_tool(kept, call->second.tool) &&
        allows(call->second.status, call_event::tool_unavailable)) {
      withdrawn.push_back(call_id);
    }
  }
  for (const auto& call_id : withdrawn)
    fail_call(s, session, session.calls.at(call_id), failure_reason::tool_unavailable, now);
}

}  // namespace

// -- the clean answers of the client rules' decision points (policy.hpp) ------------------

outcome<protocol::register_request> rule_policy::read_registration(const session_record&,
                                                                   const json& body) const {
  return protocol::parse_register_request(body);
}

outcome<protocol::put_tools_request> rule_policy::read_tool_list(const session_record&,
                                                                 const client_record&,
                                                                 const json& body) const {
  return protocol::parse_put_tools_request(body);
}

std::string rule_policy::assign_name(const state&, const session_record& session,
                                     const std::string& requested) const {
  return first_free_name(requested,
                         [&](const std::string& name) { return name_taken(session, name); });
}

protocol::lifetime rule_policy::kept_lifetime(const protocol::lifetime& requested) const {
  return requested;
}

time_ms rule_policy::expiry_due(time_ms expires_at) const {
  return expires_at;
}

bool rule_policy::ping_restarts_ttl() const {
  return true;
}

bool rule_policy::call_traffic_restarts_ttl() const {
  return false;
}

bool rule_policy::refused_put_keeps_tools() const {
  return true;
}

std::vector<tool_spec> rule_policy::next_tool_list(const std::vector<tool_spec>&,
                                                   std::vector<tool_spec> requested) const {
  return requested;
}

bool rule_policy::tools_replaced_in_one_step() const {
  return true;
}

bool rule_policy::withdrawn_tools_forgotten() const {
  return true;
}

bool rule_policy::withdrawn_tool_calls_go_on() const {
  return true;
}

bool rule_policy::departed_client_calls_fail() const {
  return true;
}

bool rule_policy::departed_client_forgotten() const {
  return true;
}

// -- the client rules ----------------------------------------------------------------------

bool name_taken(const session_record& session, const std::string& name) {
  return session.live_names.count(name) != 0;
}

outcome<session_record*> find_session(state& s, const std::string& sid) {
  auto found = s.sessions.find(sid);
  if (found == s.sessions.end()) return protocol::not_found("no session '" + sid + "'");
  return &found->second;
}

bool declares_tool(const std::vector<tool_spec>& tools, const std::string& name) {
  return std::any_of(tools.begin(), tools.end(),
                     [&](const tool_spec& t) { return t.name == name; });
}

const client_record* find_live_client(const session_record& session, const std::string& cid) {
  auto serial = session.client_serials.find(cid);
  if (serial == session.client_serials.end()) return nullptr;
  auto client = session.clients.find(serial->second);
  return client == session.clients.end() ? nullptr : &client->second;
}

outcome<const client_record*> find_client(const session_record& session, const std::string& cid) {
  if (const client_record* client = find_live_client(session, cid)) return client;
  return protocol::not_found("no live client '" + cid + "' in session '" + session.id + "'");
}

outcome<client_record*> find_client(session_record& session, const std::string& cid) {
  auto found = find_client(std::as_const(session), cid);
  if (!found) return found.error();
  return &session.clients.at((*found)->serial);  // notes the record, to be written
}

void restart_ttl(state& s, session_record& session, const client_record& client, time_ms now) {
  session.clients.set_member(client.serial, &client_record::expires_at,
                             std::optional<time_ms>(ttl_end(client, now)));
  schedule_expiry(s, session, client);
}

outcome<json> register_client(state& s, session_record& session, const json& body, time_ms now) {
  auto request = s.policy->read_registration(session, body);
  if (!request) return request.error();

  client_record client;
  client.serial = s.serial();
  client.id = "cli_" + std::to_string(s.next_client++);
  client.requested_name = request->name;
  client.name = s.policy->assign_name(s, session, request->name);
  client.lifetime = s.policy->kept_lifetime(request->lifetime);
  client.tools = std::move(request->tools);
  if (client.lifetime.type == protocol::lifetime::kind::ttl) arm_expiry(s, session, client, now);

  emit(s, session, protocol::client_registered{client.id, client.name, client.requested_name}, now);

  json response = {{"client_id", client.id},
                   {"name", client.name},
                   {"requested_name", client.requested_name},
                   {"lifetime", protocol::to_json(request->lifetime)},
                   {"tools", protocol::to_json(client.tools)},
                   {"expires_at_ms", expires_at_json(client)}};
  session.client_serials.emplace(client.id, client.serial);
  ++session.live_names.emplace(client.name, 0).first->second;
  session.clients.emplace(client.serial, std::move(client));
  return response;
}

outcome<json> ping(state& s, session_record& session, const std::string& cid, time_ms now) {
  auto client = find_client(std::as_const(session), cid);
  if (!client) return client.error();
  const client_record& c = **client;
  if (c.lifetime.type == protocol::lifetime::kind::ttl && s.policy->ping_restarts_ttl()) {
    restart_ttl(s, session, c, now);
  }
  // Why not json{{...}}: the initializer list builds a pair array first and then the
  // object, three allocations more on the busiest route (a client pings every few seconds).
  json answer = json::object();
  answer["expires_at_ms"] = expires_at_json(c);
  return answer;
}

outcome<json> put_tools(state& s, session_record& session, const std::string& cid, const json& body,
                        time_ms now) {
  auto client = find_client(session, cid);
  if (!client) return client.error();
  client_record& c = **client;
  auto request = s.policy->read_tool_list(session, c, body);
  if (!request) {
    if (!s.policy->refused_put_keeps_tools()) c.tools.clear();  // C-3
    return request.error();
  }
  // TOOLS-6: one step. A policy that withdraws first fails the withdrawn tools' calls
  // (which may start the next model step) before the new list lands.
  if (!s.policy->tools_replaced_in_one_step()) {
    std::erase_if(c.tools,
                  [&](const tool_spec& t) { return !declares_tool(request->tools, t.name); });
    fail_withdrawn_calls(s, session, c, c.tools, now);
  }
  std::vector<tool_spec> previous =
      std::exchange(c.tools, s.policy->next_tool_list(c.tools, std::move(request->tools)));
  emit(s, session, protocol::client_tools_updated{c.id, tool_names(c.tools)}, now);
  if (!s.policy->withdrawn_tools_forgotten()) {  // TOOLS-1: kept to be offered
    for (const auto& old_tool : previous)
      if (!declares_tool(c.tools, old_tool.name)) c.withdrawn_tools.push_back(old_tool);
  }
  if (!s.policy->withdrawn_tool_calls_go_on()) fail_withdrawn_calls(s, session, c, c.tools, now);
  return json{{"client_id", c.id}, {"tools", protocol::to_json(c.tools)}};
}

void end_client(state& s, session_record& session, std::uint64_t serial, departure why,
                time_ms now) {
  client_record client = std::move(session.clients.extract(serial).mapped());
  move_noted(s, client.status,
             why == departure::left ? client_event::deleted : client_event::ttl_lapsed);
  session.client_serials.erase(client.id);
  if (auto held = session.live_names.find(client.name);
      held != session.live_names.end() && --held->second == 0) {
    session.live_names.erase(held);
  }
  cancel(s, client.serial);
  const char* reason = why == departure::left ? "left" : "expired";
  emit(s, session, protocol::client_unregistered{client.id, client.name, reason}, now);
  if (s.policy->departed_client_calls_fail()) {  // LIFE-5
    const auto reason =
        why == departure::left ? failure_reason::client_left : failure_reason::client_expired;
    for (const auto& [call_serial, call_id] : client.open_calls) {
      auto call = session.calls.find(call_id);
      if (call != session.calls.end()) fail_call(s, session, call->second, reason, now);
    }
  }
  if (!s.policy->departed_client_forgotten()) {  // LIFE-4: kept, its tools still offered
    client.open_calls.clear();
    const auto kept = client.serial;
    session.departed.emplace(kept, std::move(client));
  }
}

void touch_ttl_on_call_traffic(state& s, session_record& session, const client_record& client,
                               time_ms now) {
  if (s.policy->call_traffic_restarts_ttl() &&
      client.lifetime.type == protocol::lifetime::kind::ttl) {
    restart_ttl(s, session, client, now);
  }
}

}  // namespace toolwire::reference_server::detail
