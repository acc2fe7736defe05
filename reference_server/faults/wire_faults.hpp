// The faults that live on the wire: each rewrites a request before the router's rules see
// it, answers it alone, or changes the rules' answer. The router's rules never name them.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "toolwire/protocol/api.hpp"
#include "toolwire/reference_server/core.hpp"
#include "toolwire/reference_server/virtual_clock.hpp"

namespace toolwire::reference_server::detail {

class wire_faults {
 public:
  wire_faults(core& target, clock_source& clock)
      : target_(target), clock_(clock), any_planted_(!target.config().faults.empty()) {}

  //! Whether the core has any fault at all; without one, none of these acts.
  bool any_planted() const { return any_planted_; }

  //! Before the rules: may rewrite `request`, or answer it without them.
  std::optional<protocol::api_response> before(protocol::api_request& request);

  //! After the rules: may change their answer to `request` (as the rules saw it).
  void after(const protocol::api_request& request, protocol::api_response& response);

  //! Before a model reply is applied: may move a virtual clock.
  void before_model_reply();

 private:
  bool has(fault f) const { return target_.has_fault(f); }
  //! Faults of how the router reads a request (body, credential, Last-Event-ID).
  std::optional<protocol::api_response> reread_request(protocol::api_request& request);
  std::optional<protocol::api_response> refuse_credential(const protocol::api_request& request);
  std::optional<protocol::api_response> refuse_body(protocol::api_request& request);
  void rewrite_clock_request(protocol::api_request& request);
  void change_state_of_rejected(const protocol::api_request& request,
                                const protocol::api_response& response);
  void retype_errors(const protocol::api_request& request, protocol::api_response& response);
  void break_cors(const protocol::api_request& request, protocol::api_response& response) const;

  core& target_;
  clock_source& clock_;
  bool any_planted_;
  //! result_requires_ack: the (session, call) pairs acked with a 200.
  std::set<std::pair<std::string, std::string>> acked_;
  //! advance_fires_timers_late: the ms of the last advance, which the rules have not seen yet.
  protocol::time_ms unseen_advance_ms_ = 0;
  //! second_session_answered_200: the sessions created so far.
  int sessions_created_ = 0;
};

}  // namespace toolwire::reference_server::detail
