// The arrivals queue: producers on I/O threads, one consumer on the harness thread.
#include "arrivals.hpp"

namespace toolwire::conformance::detail {

void arrivals::push(arrival item) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(item));
    last_change_ = clock_type::now();
  }
  changed_.notify_all();
}

void arrivals::note_activity() {
  std::lock_guard lock(mutex_);
  last_change_ = clock_type::now();
}

std::vector<arrival> arrivals::take_when_quiet(std::chrono::milliseconds settle,
                                               std::chrono::milliseconds bound) {
  std::unique_lock lock(mutex_);
  const auto give_up = clock_type::now() + bound;
  for (;;) {
    const auto quiet_at = last_change_ + settle;
    const auto now = clock_type::now();
    if (now >= quiet_at || now >= give_up) break;
    changed_.wait_until(lock, std::min(quiet_at, give_up));
  }
  std::vector<arrival> taken(std::make_move_iterator(queue_.begin()),
                             std::make_move_iterator(queue_.end()));
  queue_.clear();
  return taken;
}

std::vector<arrival> arrivals::take_all() {
  std::lock_guard lock(mutex_);
  std::vector<arrival> taken(std::make_move_iterator(queue_.begin()),
                             std::make_move_iterator(queue_.end()));
  queue_.clear();
  return taken;
}

}  // namespace toolwire::conformance::detail
