// The reference server in-process, wired to a model stand-in, with a profile that points
// a remote_host at both: an HTTP target for end-to-end runs without leaving the process.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "toolwire/conformance/model_stand_in.hpp"
#include "toolwire/conformance/target_profile.hpp"
#include "toolwire/reference_server/web/server.hpp"

namespace toolwire::remote_test {

using conformance::json;
using conformance::time_ms;

//! The keys the fixture's server knows; distinctive, so a leak in a trace would show.
inline const std::string admin_key = "remote-test-admin-key-7f3a";
inline const std::string limited_key = "remote-test-limited-key-91c2";

struct fixture_options {
  time_ms ack_timeout_ms = 10'000;
  time_ms result_timeout_ms = 300'000;
  time_ms interrupt_timeout_ms = 600'000;
  //! Wall milliseconds the server waits before each model request goes out: a loaded
  //! machine's lag, which a virtual-clock verdict must not depend on.
  int model_lag_ms = 0;
  //! Wall milliseconds the server waits before it applies each model answer it got.
  int answer_lag_ms = 0;
  //! How the server presents itself and how slow it is (web::wire_policy); the
  //! reference's own when null.
  std::shared_ptr<reference_server::web::wire_policy> wire;
  //! The server keeps wall time (no SPEC 7 test clock), and the profile says so with this
  //! tolerance window; else the server's clock is virtual.
  bool real_clock = false;
  time_ms timing_tolerance_ms = 200;
};

//! Starts a stand-in on a free port, then the server calling it (virtual clock unless
//! `real_clock`); both
//! stop when the fixture goes.
class reference_target {
 public:
  explicit reference_target(fixture_options options = {});
  ~reference_target();
  reference_target(const reference_target&) = delete;
  reference_target& operator=(const reference_target&) = delete;

  //! A profile for this server and stand-in, as a user would write it.
  conformance::target_profile profile() const;
  const std::shared_ptr<conformance::model_stand_in>& stand_in() const { return stand_in_; }

 private:
  std::shared_ptr<conformance::model_stand_in> stand_in_;
  boost::asio::io_context ioc_;
  std::unique_ptr<reference_server::web::server> server_;
  boost::asio::ip::tcp::endpoint endpoint_;
  std::thread thread_;
  fixture_options options_;
};

//! A raw TCP listener on 127.0.0.1, port 0, whose connections `serve` handles one after
//! another on its own thread; for targets that misbehave on purpose. When `serve` returns
//! true the connection is held open, unanswered, until the target goes.
class raw_target {
 public:
  using handler = std::function<bool(boost::asio::ip::tcp::socket&)>;
  explicit raw_target(handler serve);
  ~raw_target();
  raw_target(const raw_target&) = delete;
  raw_target& operator=(const raw_target&) = delete;

  conformance::host_port address() const;

 private:
  void do_accept();

  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  handler serve_;
  std::vector<boost::asio::ip::tcp::socket> held_;  // the I/O thread's
  std::thread thread_;
};

}  // namespace toolwire::remote_test
