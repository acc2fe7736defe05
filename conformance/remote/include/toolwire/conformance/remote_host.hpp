// A run's target over HTTP: the target actor the participants talk to, backed by a real
// server that the suite reaches through a synchronous client, event streams read on an
// I/O thread, and the shared model stand-in that routes the server's model requests back
// to this run's scripted model. The harness hands over what arrived whenever the actors
// are idle, and moves the server's virtual clock along with its own (SPEC 7).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "toolwire/actors/simulator.hpp"
#include "toolwire/conformance/target_profile.hpp"
#include "toolwire/protocol/outcome.hpp"

namespace toolwire::conformance {

//! Serves one run (`spawn` once). Records into the run's trace what the in-process
//! target records: target/"event" for every event of a session the run created (read
//! from a monitor stream of its own) and target/"model_step" for every model request;
//! plus target/"transport_error" for what the transport got wrong (malformed SSE, a
//! stream that dropped, a failed clock move). Never throws at the actors; every wait
//! is bounded by the profile's request_timeout_ms (or settle_ms).
class remote_host final : public actors::server_host {
 public:
  //! Joins (or starts) the model stand-in at the profile's address and routes requests
  //! tagged `message_tag` (run_options.message_tag) to this run. Fails when the stand-in
  //! cannot listen, the tag is taken, or the target's address does not resolve.
  static protocol::outcome<std::unique_ptr<remote_host>> start(target_profile profile,
                                                               std::string message_tag);
  ~remote_host() override;
  remote_host(const remote_host&) = delete;
  remote_host& operator=(const remote_host&) = delete;

  actors::server_actor spawn(caf::actor_system& system, actors::run_context* context) override;
  bool deliver_arrivals() override;
  bool await_arrival() override;
  void clock_moves(actors::time_ms ms) override;
  std::string api_key() const override;
  std::string limited_key() const override;
  std::string cors_origin() const override;
  std::string base_url() const override;
  std::int64_t assistant_id() const override;
  bool settle_out() const override { return false; }
  bool real_time() const override;
  actors::time_ms wall_elapsed() const override;
  void wait_until(actors::time_ms ms) override;
  void await_quiet() override;
  void record_late_events(actors::time_ms ms) override;
  std::optional<actors::time_ms> latest_arrival_before(actors::time_ms before) override;
  bool deliver_arrived_by(actors::time_ms by) override;
  void stop() override;

  const target_profile& profile() const;
  //! The stand-in's requests that no run could take (shared by the process's runs).
  std::vector<json> unrouted_model_requests() const;

  //! The inside (src/remote_state.hpp); public only so the target actor can name it.
  struct state;

 private:
  explicit remote_host(std::unique_ptr<state> s);
  std::unique_ptr<state> state_;
};

}  // namespace toolwire::conformance
