// Faults of access (credentials, scopes, which session a token grants, deletes, resumed
// streams): the faulty answers of policy.hpp's access decision points. Each fault is named
// with the rule it breaks; without its fault, each override gives the clean answer.
#include <algorithm>

#include "faulty_policy.hpp"
#include "toolwire/protocol/events.hpp"

namespace toolwire::reference_server::detail {

bool faulty_policy::key_manages_sessions(const api_key& key) const {
  // Fault api_key_scopes_ignored (AUTH-2): any workspace key may manage sessions.
  return has(fault::api_key_scopes_ignored) || rule_policy::key_manages_sessions(key);
}

api_error faulty_policy::unknown_credential_refusal() const {
  // Fault unknown_credential_is_403 (AUTH-2): an unknown credential is "forbidden".
  if (has(fault::unknown_credential_is_403)) {
    return protocol::forbidden("this credential grants nothing here");
  }
  return rule_policy::unknown_credential_refusal();
}

bool faulty_policy::token_grants(const principal& who, const std::string& session_id) const {
  // Fault foreign_session_token_accepted (AUTH-2): a token grants every session.
  return has(fault::foreign_session_token_accepted) || rule_policy::token_grants(who, session_id);
}

api_error faulty_policy::missing_session_refusal(const std::string& session_id) const {
  // Fault unknown_session_is_403 (AUTH-2): a missing session reads as one without access.
  if (has(fault::unknown_session_is_403)) {
    return protocol::forbidden("no access to session '" + session_id + "'");
  }
  return rule_policy::missing_session_refusal(session_id);
}

std::optional<api_error> faulty_policy::refuse_session_creation(const principal& who) const {
  // Fault session_token_creates_session (AUTH-4): any known credential may create sessions.
  if (who.type == principal::kind::session_token && has(fault::session_token_creates_session)) {
    return std::nullopt;
  }
  return rule_policy::refuse_session_creation(who);
}

std::optional<api_error> faulty_policy::refuse_workspace_route(const principal& who) const {
  // Fault session_token_accepted_on_tasks (AUTH-2): a session token passes as a workspace key.
  if (who.type == principal::kind::session_token && has(fault::session_token_accepted_on_tasks)) {
    return std::nullopt;
  }
  return rule_policy::refuse_workspace_route(who);
}

protocol::outcome<protocol::done> faulty_policy::delete_of_absent_client(
    const session_record& session, const std::string& client_id, api_error not_found) const {
  // Fault second_delete_accepted (LIFE-4): deleting a client that already left (as the
  // retained log shows) is "idempotent".
  const bool left = std::any_of(session.log.begin(), session.log.end(), [&](const auto& event) {
    return protocol::parse_event_type(event.type) == protocol::event_type::client_unregistered &&
           event.data.value("client_id", "") == client_id;
  });
  if (has(fault::second_delete_accepted) && left) return protocol::done{};
  return rule_policy::delete_of_absent_client(session, client_id, std::move(not_found));
}

std::optional<std::uint64_t> faulty_policy::resume_after(
    std::optional<std::uint64_t> last_event_id) const {
  // Fault last_event_id_ignored (SES-3): a resumed stream silently starts at "now".
  if (has(fault::last_event_id_ignored)) return std::nullopt;
  return rule_policy::resume_after(last_event_id);
}

}  // namespace toolwire::reference_server::detail
