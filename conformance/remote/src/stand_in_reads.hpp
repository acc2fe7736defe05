// What the model stand-in has received but not yet handed over, asked from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace toolwire::conformance::detail {

//! The harness's view of the stand-in's sockets. A target that sends a model request the
//! harness does not owe (a step taken early, CALL-9) is caught only if the harness waits for
//! it before moving the clock on; on loopback a request written before the target answered
//! is on the stand-in's sockets by the time that answer is read, but the stand-in's thread
//! may not have read it yet. Every change is made under one lock, and a connection is
//! accepted and registered under it: a request is always seen, in the listener's backlog,
//! as bytes its connection received and did not hand over, or handed over.
class stand_in_reads {
 public:
  //! One accepted connection, as the I/O thread reports it.
  struct connection {
    int fd = -1;
    std::uint64_t handed_over = 0;  // bytes of requests decided (routed or answered)
    bool closed = false;
  };

  //! `listener_fd`: the acceptor's socket (its backlog holds connections not accepted yet).
  explicit stand_in_reads(int listener_fd) : listener_fd_(listener_fd) {}

  //! Held by the I/O thread while it accepts and registers a connection.
  std::unique_lock<std::mutex> hold() { return std::unique_lock(mutex_); }
  //! Registers an accepted connection's socket; the caller holds hold().
  std::shared_ptr<connection> add(int fd);
  //! A request of `bytes` on `of` was decided: routed to its run or answered.
  void handed_over(connection& of, std::uint64_t bytes);
  //! `of` closes (call before its socket does: the number may be reused at once).
  void closed(connection& of);

  //! Whether a request reached the sockets and was not handed over yet.
  bool unread();
  //! Waits until nothing is unread or `bound` passed; true when nothing is.
  bool await_read(std::chrono::microseconds bound);

 private:
  bool unread_locked();
  void forget_closed();

  int listener_fd_;
  std::mutex mutex_;
  std::condition_variable progressed_;
  std::vector<std::shared_ptr<connection>> connections_;
};

}  // namespace toolwire::conformance::detail
