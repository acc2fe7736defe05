// What the model stand-in holds unread: every change and every question under one lock.
#include "stand_in_reads.hpp"

#include <algorithm>

#include "socket_counters.hpp"

namespace toolwire::conformance::detail {

std::shared_ptr<stand_in_reads::connection> stand_in_reads::add(int fd) {
  forget_closed();
  auto added = std::make_shared<connection>();
  added->fd = fd;
  connections_.push_back(added);
  progressed_.notify_all();
  return added;
}

void stand_in_reads::handed_over(connection& of, std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  of.handed_over += bytes;
  progressed_.notify_all();
}

void stand_in_reads::closed(connection& of) {
  std::lock_guard lock(mutex_);
  of.closed = true;
  progressed_.notify_all();
}

bool stand_in_reads::unread() {
  std::lock_guard lock(mutex_);
  return unread_locked();
}

bool stand_in_reads::await_read(std::chrono::microseconds bound) {
  std::unique_lock lock(mutex_);
  return progressed_.wait_for(lock, bound, [this] { return !unread_locked(); });
}

void stand_in_reads::forget_closed() {
  std::erase_if(connections_, [](const auto& c) { return c->closed; });
}

bool stand_in_reads::unread_locked() {
  forget_closed();
  if (accept_queue(listener_fd_).value_or(0) > 0) return true;
  // Where the kernel does not count, nothing is known to be unread: the harness then
  // relies on its settle time, as before.
  return std::any_of(connections_.begin(), connections_.end(), [](const auto& c) {
    return bytes_received(c->fd).value_or(0) > c->handed_over;
  });
}

}  // namespace toolwire::conformance::detail
