// Waiting for what another thread or the kernel does, bounded: for tests that read loopback
// sockets, where delivery is not instant everywhere (a busy machine's softirq thread).
#pragma once

#include <chrono>
#include <thread>

namespace toolwire::testing {

//! Asks again until `holds` or 5 s pass; whether it held.
template <typename Condition>
bool eventually(Condition holds) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!holds()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace toolwire::testing
