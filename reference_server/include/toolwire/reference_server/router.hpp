// Maps transport-neutral requests (SPEC routes) to core calls: authentication order,
// body parsing, status codes. Pure: no sockets, no clock reads. The HTTP front end and
// the in-process target both go through it, so they cannot drift apart.
#pragma once

#include <memory>

#include "toolwire/protocol/api.hpp"

namespace toolwire::reference_server {

class core;
class clock_source;

namespace detail {
class wire_faults;
}

class router {
 public:
  //! `clock` gives `now` and, when virtual, serves the CLOCK-1 routes.
  router(core& target, clock_source& clock);
  ~router();
  router(const router&) = delete;
  router& operator=(const router&) = delete;

  //! Answers one request. A successful events request comes back with `stream` set;
  //! the transport then streams `core.events_after(...)` itself.
  protocol::api_response handle(const protocol::api_request& request);
  //! Called by a transport just before it applies a model reply (core::model_replied):
  //! what the wire does then (only a fault acts here, on a virtual clock).
  void before_model_reply();

 private:
  //! The request as the rules see it (after any wire fault rewrote it): CORS preflight,
  //! then the rules.
  protocol::api_response handle_as_seen(const protocol::api_request& seen);

  core& core_;
  clock_source& clock_;
  //! The faults planted on the wire, around the rules (none unless the core has them).
  std::unique_ptr<detail::wire_faults> wire_faults_;
};

//! The maximum accepted body size (C-2: larger is 413).
inline constexpr std::size_t max_body_bytes = 1 << 20;

}  // namespace toolwire::reference_server
