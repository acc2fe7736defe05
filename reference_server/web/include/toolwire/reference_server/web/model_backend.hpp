// Where the server's model steps go: an OpenAI-compatible endpoint or a script.
#pragma once

#include <functional>

#include "toolwire/reference_server/core.hpp"

namespace toolwire::reference_server::web {

//! Runs model steps for the server. Why asynchronous even for a script: the server calls
//! `start` while it drains the core, and an answer delivered inside that call would
//! re-enter the core mid-drain.
class model_backend {
 public:
  virtual ~model_backend() = default;

  //! Starts one model step. `done` is called exactly once, later, on the io_context's
  //! thread and never inside `start`, with an answer or a failure that says what went
  //! wrong (MODEL-4); unless `close` comes first.
  virtual void start(const reference_server::model_step_request& request,
                     std::function<void(reference_server::model_reply)> done) = 0;

  //! Abandons every step in flight (server shutdown): their `done` is never called.
  virtual void close() = 0;
};

}  // namespace toolwire::reference_server::web
