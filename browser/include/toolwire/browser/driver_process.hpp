// The browser driver as a child process: `node browser/driver/driver.mjs`, which runs
// headless Chromium through playwright-core and speaks JSON lines (docs/browser.md, "The
// driver"). The harness's browser clients reach it through actors::tab_driver.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "toolwire/actors/tab_driver.hpp"

namespace toolwire::browser {

struct driver_settings {
  //! browser/ of the source tree (driver/driver.mjs, tab/, node_modules/); the environment's
  //! TOOLWIRE_BROWSER_DIR, when set, wins.
  std::string browser_dir;
  //! The driver's own deadline for what it waits for in a tab (a registration, a PUT):
  //! its TOOLWIRE_DRIVER_TIMEOUT_MS. A page that cannot register fails its step this late.
  std::chrono::milliseconds tab_deadline{8'000};
  //! How long a reply may take before the driver counts as hung: above tab_deadline and
  //! Chromium's launch (30 s) on a loaded machine.
  std::chrono::milliseconds reply_deadline{60'000};
};

//! The browser directory `settings` point at, after TOOLWIRE_BROWSER_DIR.
std::string browser_dir(const driver_settings& settings);

//! What is missing to run browser clients (chromium, node, the driver, playwright-core), as
//! one sentence with the way to install it; "" when nothing is.
std::string missing_for_browser(const driver_settings& settings);

class driver_process final : public actors::tab_driver {
 public:
  //! Starts the driver; Chromium itself starts with the first tab. Fails with what is
  //! missing (missing_for_browser) or why the process could not start.
  static protocol::outcome<std::unique_ptr<driver_process>> start(const driver_settings& settings);
  ~driver_process() override;
  driver_process(const driver_process&) = delete;
  driver_process& operator=(const driver_process&) = delete;

  //! start(), then Chromium in it (the driver's `launch`): its launch takes seconds, which
  //! would make the first tab's `open` longer than every later one's, and runs compared
  //! with each other (--check-determinism, replay) would differ by it.
  static protocol::outcome<std::unique_ptr<driver_process>> start_with_chromium(
      const driver_settings& settings);

  protocol::outcome<protocol::json> command(const protocol::json& command) override;

 private:
  driver_process() = default;
  //! The last lines the driver wrote to its log, for an error message.
  std::string log_tail() const;
  void stop();

  int pid_ = -1;
  int to_driver_ = -1;
  int from_driver_ = -1;
  std::string pending_;  // read from the driver past the last whole line
  std::string log_path_;
  std::chrono::milliseconds reply_deadline_{60'000};
  std::string broken_;  // set once the driver failed: every later command fails at once
};

}  // namespace toolwire::browser
