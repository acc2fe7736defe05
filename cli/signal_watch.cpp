// The signal watch: sigtimedwait in a thread of its own.
#include "signal_watch.hpp"

#include <pthread.h>
#include <signal.h>

#include <ctime>

namespace toolwire::cli {

namespace {

sigset_t watched() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

signal_watch::signal_watch(std::function<void(const std::string&, int)> on_signal)
    : on_signal_(std::move(on_signal)) {
  const sigset_t set = watched();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  watcher_ = std::thread([this, set] {
    // Why a timeout: the watch ends with the run, and nothing else would wake the wait.
    const timespec tick{0, 100'000'000};
    while (!done_) {
      const int signal = sigtimedwait(&set, nullptr, &tick);
      if (signal == SIGINT) on_signal_("SIGINT", 130);
      if (signal == SIGTERM) on_signal_("SIGTERM", 143);
    }
  });
}

signal_watch::~signal_watch() {
  done_ = true;
  watcher_.join();
  const sigset_t set = watched();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace toolwire::cli
