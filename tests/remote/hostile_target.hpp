// A hostile target for the suite (issue 10, item 7): a tiny raw-socket HTTP server on
// loopback that misbehaves in one chosen way, so that tests can show the suite still
// gives every case a verdict within its deadlines, writes its reports and keeps its
// memory bounded.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "toolwire/conformance/target_profile.hpp"

namespace toolwire::remote_test {

enum class misbehaviour {
  invalid_utf8,          // JSON strings with 0xFF, C3 28, overlong C0 AF, a surrogate
  deep_json,             // a body of 100,000 nested arrays
  huge_body,             // Content-Length 100 MB, and the bytes, as fast as they go
  slowloris,             // the answer one byte a second
  silent,                // reads the request, never answers
  reset_mid_response,    // half an answer, then a TCP reset
  garbage_sse,           // plausible answers; the event stream sends garbage
  huge_sse_line,         // plausible answers; the event stream sends a 10 MB line
  wrong_content_length,  // Content-Length 1000, 40 bytes, then close
  http09,                // a body without a status line (HTTP/0.9)
  te_identity,           // Transfer-Encoding: identity, no length (smuggling framing)
  te_with_length,        // Transfer-Encoding: chunked and Content-Length together
  wrong_json_types,      // well-formed answers and events whose fields have the wrong types
};

//! Every misbehaviour, for tests that go through them all.
const std::vector<misbehaviour>& all_misbehaviours();
std::string to_string(misbehaviour how);

class hostile_target {
 public:
  explicit hostile_target(misbehaviour how);
  ~hostile_target();
  hostile_target(const hostile_target&) = delete;
  hostile_target& operator=(const hostile_target&) = delete;

  conformance::host_port address() const { return {"127.0.0.1", port_}; }
  //! Bytes the kernel took from it on all connections: what a reader could have read.
  std::uint64_t bytes_sent() const { return sent_; }
  //! Connections accepted so far.
  int connections() const { return accepted_; }

 private:
  void accept_loop();
  void serve(int fd);
  //! Writes all of `bytes` unless the peer goes or the target stops; false then.
  bool send_all(int fd, std::string_view bytes);
  //! Waits `ms` or until the target stops; false when it stopped.
  bool pause(int ms);
  void hold(int fd);

  misbehaviour how_;
  int listener_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> sent_{0};
  std::atomic<int> accepted_{0};
  std::mutex mutex_;
  std::condition_variable stopped_;
  std::vector<std::thread> threads_;  // guarded by mutex_
  std::thread acceptor_;
};

}  // namespace toolwire::remote_test
