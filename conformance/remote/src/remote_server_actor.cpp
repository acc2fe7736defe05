// The target actor of a remote run: each message becomes a call on the host's state.
// Requests are answered synchronously (the harness waits while the server works), which
// is how an outstanding request stays pending work for the harness (DESIGN, data flow).
#include "remote_state.hpp"

namespace toolwire::conformance {

namespace {

struct pending_advance {
  actors::time_ms due = 0;
  caf::typed_response_promise<std::int64_t> promise;
};

struct remote_server_state {
  remote_host::state* host = nullptr;
  std::vector<pending_advance> advances;
  static inline const char* name = "target";
};

using self_pointer = actors::server_actor::stateful_pointer<remote_server_state>;

caf::actor sender_of(self_pointer self) {
  return caf::actor_cast<caf::actor>(self->current_sender());
}

//! `advance` waits on the actor clock (whose moves the harness passes on to the target
//! through clock_moves), then answers the target's own now; -1 when it cannot be read.
caf::typed_response_promise<std::int64_t> advance(self_pointer self, std::int64_t ms) {
  auto promise = self->make_response_promise<std::int64_t>();
  const actors::time_ms due = self->state.host->trace.elapsed() + ms;
  self->state.advances.push_back({due, promise});
  self->delayed_send(self, std::chrono::milliseconds(ms), actors::tick_atom::value, due);
  return promise;
}

void on_tick(self_pointer self) {
  auto& advances = self->state.advances;
  const actors::time_ms now = self->state.host->trace.elapsed();
  std::erase_if(advances, [&](pending_advance& pending) {
    if (pending.due > now) return false;
    pending.promise.deliver(std::int64_t{self->state.host->link.target_now().value_or(-1)});
    return true;
  });
}

actors::server_actor::behavior_type remote_server_actor(self_pointer self,
                                                        remote_host::state* host) {
  self->state.host = host;
  return {
      [=](actors::request_atom, const protocol::api_request& request) -> protocol::api_response {
        return self->state.host->request(sender_of(self), request);
      },
      [=](actors::close_stream_atom, const std::string& session_id) {
        self->state.host->streams.close(sender_of(self), session_id);
      },
      [=](actors::attach_model_atom, caf::actor model) {
        self->state.host->model = std::move(model);
      },
      [=](actors::model_reply_atom, std::uint64_t step_id,
          const reference_server::model_reply& reply) {
        self->state.host->router.model_replied(step_id, reply);
      },
      [=](actors::advance_atom, std::int64_t ms) { return advance(self, ms); },
      [=](actors::tick_atom, std::int64_t) { on_tick(self); },
  };
}

}  // namespace

actors::server_actor spawn_remote_server_actor(caf::actor_system& system,
                                               remote_host::state* host) {
  return system.spawn(remote_server_actor, host);
}

}  // namespace toolwire::conformance
