// What runs a scenario's browser clients: one command to a real tab, one reply. The
// harness knows only this interface; the driver process (headless Chromium through
// browser/driver/driver.mjs) lives in browser/, so actors/ starts no process.
#pragma once

#include <string>

#include "toolwire/protocol/outcome.hpp"
#include "toolwire/protocol/types.hpp"

namespace toolwire::actors {

class tab_driver {
 public:
  virtual ~tab_driver() = default;
  //! Sends one command (docs/browser.md, "The driver": {"cmd": "open", "tab": T, ...}) and
  //! waits, bounded, for its reply. The reply's fields when the driver said ok; an error
  //! whose code is `invalid_request` when it answered that the tab could not do it (the
  //! page did not register, a screen's PUT was refused: the target's doing, judged as a
  //! step that could not run), and `unavailable` when the driver itself failed (it died,
  //! missed its deadline, or never started: the run is an error, nothing is judged).
  virtual protocol::outcome<protocol::json> command(const protocol::json& command) = 0;
};

}  // namespace toolwire::actors
