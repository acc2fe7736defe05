// Faults of access (credentials, scopes, which session a token grants, deletes, resumed
// streams): each a layer over the policy beneath it (policy_layer.hpp), named with the
// rule it breaks.
#include <algorithm>

#include "policy_layer.hpp"
#include "toolwire/protocol/events.hpp"

namespace toolwire::reference_server::detail {

namespace {

//! Fault api_key_scopes_ignored (AUTH-2): any workspace key may manage sessions.
class api_key_scopes_ignored final : public policy_layer {
  using policy_layer::policy_layer;
  bool key_manages_sessions(const api_key&) const override { return true; }
};

//! Fault unknown_credential_is_403 (AUTH-2): an unknown credential is "forbidden".
class unknown_credential_is_403 final : public policy_layer {
  using policy_layer::policy_layer;
  api_error unknown_credential_refusal() const override {
    return protocol::forbidden("this credential grants nothing here");
  }
};

//! Fault foreign_session_token_accepted (AUTH-2): a token grants every session.
class foreign_session_token_accepted final : public policy_layer {
  using policy_layer::policy_layer;
  bool token_grants(const principal&, const std::string&) const override { return true; }
};

//! Fault unknown_session_is_403 (AUTH-2): a missing session reads as one without access.
class unknown_session_is_403 final : public policy_layer {
  using policy_layer::policy_layer;
  api_error missing_session_refusal(const std::string& session_id) const override {
    return protocol::forbidden("no access to session '" + session_id + "'");
  }
};

//! Fault session_token_creates_session (AUTH-4): any known credential may create sessions.
class session_token_creates_session final : public policy_layer {
  using policy_layer::policy_layer;
  std::optional<api_error> refuse_session_creation(const principal& who) const override {
    if (who.type == principal::kind::session_token) return std::nullopt;
    return inner().refuse_session_creation(who);
  }
};

//! Fault session_token_accepted_on_tasks (AUTH-2): a session token passes as a workspace key.
class session_token_accepted_on_tasks final : public policy_layer {
  using policy_layer::policy_layer;
  std::optional<api_error> refuse_workspace_route(const principal& who) const override {
    if (who.type == principal::kind::session_token) return std::nullopt;
    return inner().refuse_workspace_route(who);
  }
};

//! Fault second_delete_accepted (LIFE-4): deleting a client that already left (as the
//! retained log shows) is "idempotent".
class second_delete_accepted final : public policy_layer {
  using policy_layer::policy_layer;
  protocol::outcome<protocol::done> delete_of_absent_client(const session_record& session,
                                                            const std::string& client_id,
                                                            api_error not_found) const override {
    const bool left = std::any_of(session.log.begin(), session.log.end(), [&](const auto& event) {
      return protocol::parse_event_type(event.type) == protocol::event_type::client_unregistered &&
             event.data.value("client_id", "") == client_id;
    });
    if (left) return protocol::done{};
    return inner().delete_of_absent_client(session, client_id, std::move(not_found));
  }
};

//! Fault last_event_id_ignored (SES-3): a resumed stream silently starts at "now".
class last_event_id_ignored final : public policy_layer {
  using policy_layer::policy_layer;
  std::optional<std::uint64_t> resume_after(std::optional<std::uint64_t>) const override {
    return std::nullopt;
  }
};

constexpr fault_layer access_layers[]{
    {fault::api_key_scopes_ignored, layered<api_key_scopes_ignored>},
    {fault::unknown_credential_is_403, layered<unknown_credential_is_403>},
    {fault::foreign_session_token_accepted, layered<foreign_session_token_accepted>},
    {fault::unknown_session_is_403, layered<unknown_session_is_403>},
    {fault::session_token_creates_session, layered<session_token_creates_session>},
    {fault::session_token_accepted_on_tasks, layered<session_token_accepted_on_tasks>},
    {fault::second_delete_accepted, layered<second_delete_accepted>},
    {fault::last_event_id_ignored, layered<last_event_id_ignored>},
};

}  // namespace

std::span<const fault_layer> access_fault_layers() {
  return access_layers;
}

}  // namespace toolwire::reference_server::detail
