// SIGINT and SIGTERM during a long run: a run that is cut short must still leave its
// reports (CI's job timeout sends SIGTERM; a user presses Ctrl-C).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace toolwire::cli {

//! From construction to destruction, SIGINT and SIGTERM are blocked in the constructing
//! thread and in every thread it starts afterwards, and a thread of this watch waits for
//! them. On one, it calls `on_signal(name, exit_code)` ("SIGINT", 130 or "SIGTERM", 143),
//! which must end the process (e.g. write the reports, then std::_Exit(exit_code)). Why a
//! thread, not a handler: writing reports is not async-signal-safe.
//! Threads started before the watch keep the default action (the process ends).
class signal_watch {
 public:
  explicit signal_watch(std::function<void(const std::string& name, int exit_code)> on_signal);
  ~signal_watch();
  signal_watch(const signal_watch&) = delete;
  signal_watch& operator=(const signal_watch&) = delete;

 private:
  std::function<void(const std::string&, int)> on_signal_;
  std::atomic<bool> done_{false};
  std::thread watcher_;
};

}  // namespace toolwire::cli
