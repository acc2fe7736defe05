// The model stand-in (SPEC 8): an OpenAI-compatible chat-completions endpoint the suite
// hosts where the target expects its model. One per address, shared by every run of the
// process: each run's requests are told apart by the run's message tag in the first user
// message (MODEL-3) and routed to that run, which answers them from its scripted model.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "toolwire/conformance/target_profile.hpp"
#include "toolwire/protocol/outcome.hpp"

namespace toolwire::conformance {

class model_stand_in {
 public:
  //! Answers one routed request with an HTTP status and a JSON body text. Callable from
  //! any thread; only the first call counts, and none after the stand-in's wait expired.
  using respond_fn = std::function<void(int status, std::string body)>;
  //! Takes a routed request's parsed body. Called on the stand-in's thread; must not block.
  using route = std::function<void(json body, respond_fn respond)>;

  //! The stand-in at `address`: started by the first call for that address and shared by
  //! later ones while any holder keeps it. Port 0 always starts a new one on a free port
  //! (see `address()`). Fails, saying why, when it cannot listen there.
  static protocol::outcome<std::shared_ptr<model_stand_in>> at(
      const host_port& address,
      std::chrono::milliseconds reply_timeout = std::chrono::milliseconds(10'000));

  ~model_stand_in();
  model_stand_in(const model_stand_in&) = delete;
  model_stand_in& operator=(const model_stand_in&) = delete;

  //! Where it listens, with the real port.
  host_port address() const;

  //! Routes requests whose first user message contains `tag` to `to` (the longest tag
  //! wins when several match). False when the tag is already routed.
  bool add_route(const std::string& tag, route to);
  void remove_route(const std::string& tag);

  //! The requests no run could take (unknown tag, malformed JSON, another path), oldest
  //! first, as `{"reason", "method", "target", "excerpt"}`: evidence for a report.
  std::vector<json> unrouted() const;

  //! Whether a request reached the stand-in (a connection not yet accepted, or bytes
  //! received) that it has not yet routed or answered. Callable from any thread: a harness
  //! asks it before moving a virtual clock, so that a model request the target sent but the
  //! harness did not expect is not left behind (a step taken early, CALL-9).
  bool unread() const;
  //! Waits until nothing is unread or `bound` passed; true when nothing is.
  bool await_read(std::chrono::microseconds bound) const;

 private:
  struct impl;
  explicit model_stand_in(std::unique_ptr<impl> state);
  std::unique_ptr<impl> impl_;
};

}  // namespace toolwire::conformance
