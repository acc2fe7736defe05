// The virtual clock's advance (CLOCK-2) and the system clock.
#include "toolwire/reference_server/virtual_clock.hpp"

#include <chrono>

#include "toolwire/reference_server/core.hpp"

namespace toolwire::reference {

protocol::time_ms virtual_clock::advance(core& target, protocol::time_ms ms) {
  const protocol::time_ms until = now_ + ms;
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

}  // namespace toolwire::reference
