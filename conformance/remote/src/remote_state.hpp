// The inside of a remote_host, shared by the host (harness side) and its target actor.
// Everything but the I/O context's own work runs on the harness thread: the actors run
// there on the test coordinator, and so do deliver_arrivals and clock_moves.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "arrivals.hpp"
#include "model_router.hpp"
#include "recorder.hpp"
#include "stream_registry.hpp"
#include "toolwire/conformance/model_stand_in.hpp"
#include "toolwire/conformance/remote_host.hpp"
#include "transport.hpp"

namespace toolwire::conformance {

//! Composes the parts of a run (each with one job) and ends them together. The parts
//! reach each other by reference, so the members' order is their construction order.
struct remote_host::state {
  std::shared_ptr<model_stand_in> stand_in;
  std::string tag;
  std::shared_ptr<detail::arrivals> inbox = std::make_shared<detail::arrivals>();
  detail::recorder trace;
  detail::transport link;
  detail::stream_registry streams{link, *inbox, trace};
  detail::model_router router{link, *inbox, trace, streams};
  caf::actor model;  // the run's scripted model, once attached
  bool stopped = false;

  explicit state(target_profile profile);
  ~state();
  state(const state&) = delete;
  state& operator=(const state&) = delete;

  //! Routes the stand-in's requests tagged `message_tag` to this run; false when the tag
  //! is taken.
  bool route_model_requests(std::shared_ptr<model_stand_in> to, std::string message_tag);
  //! A participant's request: the client, or an event stream for an events route.
  protocol::api_response request(const caf::actor& sender, const protocol::api_request& request);
  protocol::api_response request_unguarded(const caf::actor& sender,
                                           const protocol::api_request& request);
  //! Waits until the target has been quiet for the profile's settle time, owes nothing the
  //! harness awaits (arrivals::wait_quiet), and neither an event stream nor the model
  //! stand-in holds bytes it already sent: on loopback what a target wrote before answering
  //! is on those sockets by the time the answer is read, however short the settle time.
  void settle();
  //! Hands `items` over (events first, then model requests); false when there are none.
  bool deliver_all(std::vector<detail::arrival> items);
  void shut_down();
};

//! The target actor of a remote run (see target.hpp), backed by `host`.
actors::server_actor spawn_remote_server_actor(caf::actor_system& system, remote_host::state* host);

}  // namespace toolwire::conformance
