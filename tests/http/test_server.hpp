// The reference server in-process on its own thread, for loopback tests.
#pragma once

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "http_test_client.hpp"
#include "toolwire/reference_server/web/server.hpp"

namespace toolwire::test {

//! The workspace keys every test server knows (AUTH-1, AUTH-2).
inline const std::string admin_key = "admin-key";  // scope session.manage
inline const std::string plain_key = "plain-key";  // no scope

struct test_server_options {
  json script = json{{"rules", json::array()}};  // the scripted model, unless model_url
  std::optional<std::string> model_url;          // use the OpenAI backend instead
  std::optional<std::string> model_api_key;
  std::chrono::milliseconds model_timeout{5'000};
  std::chrono::milliseconds keepalive{15'000};
  bool log_requests = true;
  std::size_t event_retention = 4096;
  reference_server::web::clock_kind clock = reference_server::web::clock_kind::virtual_time;
  std::chrono::milliseconds idle_timeout{60'000};
  std::chrono::milliseconds write_timeout{30'000};
  std::size_t max_connections = 1024;
  std::size_t max_streams_per_session = 64;
  std::size_t reserved_connections = 64;
  reference_server::time_ms idle_expiry_ms = 0;
};

struct test_session {
  std::string id;
  std::string token;
};

//! Starts listening on 127.0.0.1, port 0, before the constructor returns; the destructor
//! stops the server and joins its thread.
class test_server {
 public:
  explicit test_server(test_server_options options = {});
  ~test_server();
  test_server(const test_server&) = delete;
  test_server& operator=(const test_server&) = delete;

  const tcp::endpoint& endpoint() const { return endpoint_; }

  //! Every log line so far.
  std::vector<std::string> log_lines() const;

  //! POST /v1/sessions with the admin key (SES-1); fails the test when it is not 201.
  test_session create_session() const;

  //! Runs `read(core)` on the server's thread and returns its result: the one safe way
  //! for a test to look at the core while the server runs.
  template <typename Read>
  auto inspect(Read read) const -> decltype(read(std::declval<const reference_server::core&>())) {
    std::packaged_task<decltype(read(std::declval<const reference_server::core&>()))()> task(
        [this, &read] { return read(server_->core()); });
    auto result = task.get_future();
    boost::asio::post(const_cast<boost::asio::io_context&>(ioc_), [&task] { task(); });
    if (result.wait_for(default_deadline) != std::future_status::ready) {
      throw std::runtime_error("the server thread did not answer in time");
    }
    return result.get();
  }

  //! Whether the server thread has stopped (it stops only if something escaped it).
  bool thread_done() const { return done_; }

 private:
  boost::asio::io_context ioc_;
  std::unique_ptr<reference_server::web::server> server_;
  tcp::endpoint endpoint_;
  std::thread thread_;
  std::atomic<bool> done_{false};
  mutable std::mutex log_mutex_;
  std::vector<std::string> log_;
};

//! A tool as REG-1 wants it.
json tool(const std::string& name);

//! A registration body (section 3): `ttl_seconds` 0 gives lifetime `never`.
json client_body(const std::string& name, const std::vector<std::string>& tools,
                 int ttl_seconds = 0);

}  // namespace toolwire::test
