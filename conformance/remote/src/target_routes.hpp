// The target's routes that the suite reads its own requests by (which session or task a
// request is about), to know what a request means for the run's bookkeeping. The routes
// themselves are protocol/routes.hpp's.
#pragma once

#include <optional>
#include <string>

#include "toolwire/protocol/api.hpp"
#include "toolwire/protocol/routes.hpp"

namespace toolwire::conformance::detail {

//! An event that a successful answer to a request implies: of `session`, when the answer
//! has status `on_status`, of `type`, the field `key` of its data naming what it is about.
struct implied_event {
  std::string session;
  int on_status = 0;
  std::string type;
  std::string key;
};

//! One of the suite's requests, matched against the route table once; an unknown route
//! means nothing for the bookkeeping (every question below answers "no").
class request_route {
 public:
  explicit request_route(const protocol::api_request& request);

  //! Which route it is, if any.
  std::optional<protocol::route_id> id() const;

  //! `{sid}` of the request when it is the route `id`, one of a session's.
  std::optional<std::string> session_if(protocol::route_id id) const;

  //! What a successful answer implies, if anything (route_info's implies_event_on): a
  //! registration's 201 (client_registered, REG-9), a client's DELETE 204
  //! (client_unregistered, LIFE-4), a result's 200 (client_tool_completed, CALL-4).
  std::optional<implied_event> implied() const;

  //! The id the implied event's `key` has, once the answer is there (implied_event_id).
  std::string implied_event_id(const protocol::json& answer) const;

  //! Whether an answer with `status` means the target owes a model request (route_info's
  //! starts_model_work_on).
  bool starts_model_work(int status) const;

  //! `{uuid}` of a task's routes (`/api/tasks/{uuid}` and below), if it is one.
  std::optional<std::string> task() const;

 private:
  std::optional<protocol::route_match> found_;
};

}  // namespace toolwire::conformance::detail
