// The virtual clock's advance (CLOCK-2) and the system clock.
#include "toolwire/reference_server/virtual_clock.hpp"

#include <algorithm>
#include <chrono>

#include "toolwire/reference_server/core.hpp"

namespace toolwire::reference_server {

protocol::time_ms virtual_clock::advance(core& target, protocol::time_ms ms) {
  // Saturates instead of wrapping (now_ + ms could overflow int64, and the core adds its
  // timeouts to now): the clock stops at max_virtual_ms, and never moves back.
  protocol::time_ms until = now_;
  if (ms > 0 && now_ < max_virtual_ms) {
    until = ms > max_virtual_ms - now_ ? max_virtual_ms : now_ + ms;
  }
  // Each timer fires at its own instant, in time order, so events carry their true times.
  while (auto due = target.next_deadline()) {
    if (*due > until) break;
    now_ = std::max(now_, *due);
    target.on_timeout(now_);
  }
  now_ = until;
  return now_;
}

protocol::time_ms system_clock::now() const {
  using namespace std::chrono;
  return duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace toolwire::reference_server
