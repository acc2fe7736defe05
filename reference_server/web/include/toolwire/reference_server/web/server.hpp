// The reference server's front end: core, clock, router and model backend on one io_context.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "toolwire/reference_server/core.hpp"
#include "toolwire/reference_server/router.hpp"
#include "toolwire/reference_server/virtual_clock.hpp"
#include "toolwire/reference_server/web/model_backend.hpp"
#include "toolwire/reference_server/web/request_handler.hpp"
#include "toolwire/reference_server/web/wire_policy.hpp"

namespace toolwire::reference_server::web {

class listener;
class sse_hub;

enum class clock_kind { real, virtual_time };

//! A file served as it is (the demo app).
struct static_page {
  std::string content_type;
  std::string body;
};

struct server_config {
  std::string host = "127.0.0.1";  // an address, or a name resolved once at start
  std::uint16_t port = 0;          // 0: any free port (see `start`)
  reference_server::core_config core;
  clock_kind clock = clock_kind::real;
  std::chrono::milliseconds keepalive{15'000};      // SES-3: a comment after this silence
  std::chrono::milliseconds idle_timeout{60'000};   // to receive a whole request, else close
  std::chrono::milliseconds write_timeout{30'000};  // to write a response or SSE batch, else close
  std::size_t max_connections = 1024;  // open at once, streams included; beyond: 503, close
  //! Event streams one session may hold open; one more is answered 503. Why a cap: one
  //! credential holding every connection with idle streams would lock every user out.
  std::size_t max_streams_per_session = 64;
  //! Connections event streams may never take (of max_connections), so registrations,
  //! pings and results still get through while streams are saturated.
  std::size_t reserved_connections = 64;
  //! Where log lines go; stderr when empty. Lines never hold a credential or a body.
  std::function<void(std::string_view)> log;
  bool log_requests = true;  // one line per request; start-up and failures are always logged
  //! Static pages by exact path (e.g. "/demo/index.html"), served for GET before
  //! any protocol route; empty but for `toolwire serve --demo`. None may start with "/v1/"
  //! or "/api/".
  std::map<std::string, static_page> pages = {};
  //! How ids, fields, texts, headers and frames look on the wire where SPEC leaves it free;
  //! the reference's own presentation when empty.
  std::shared_ptr<wire_policy> wire;
};

//! Drives the core the way every driver must: after each call into it (a request, a model
//! reply, a timer) it drains the outputs, wakes the event streams of the sessions that
//! have new events and starts every requested model step. With the real clock one timer
//! stays armed at `core.next_deadline()`; with the virtual clock time moves only through
//! the router's clock routes (SPEC 7), so no timer is armed.
//!
//! Everything runs on the io_context's one thread; the server must outlive `ioc.run()`.
class server final : private request_handler {
 public:
  server(boost::asio::io_context& ioc, server_config config,
         std::unique_ptr<model_backend> backend);
  ~server() override;
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  //! Binds, listens and starts accepting. Returns the address it listens on, with the
  //! real port when port 0 was asked for. Throws boost::system::system_error when it
  //! cannot listen.
  boost::asio::ip::tcp::endpoint start();

  //! Graceful stop: no more connections, every connection and event stream closed, the
  //! deadline timer and model steps in flight abandoned; `ioc.run()` then runs out of
  //! work and returns. Call on the io_context's thread. Idempotent.
  void stop();

  const reference_server::core& core() const { return core_; }

  //! Creates a session as `POST /v1/sessions` would (for `toolwire serve --demo`, which
  //! wires its page to one). Call on the io_context's thread, or before `ioc.run()`.
  protocol::outcome<reference_server::session_created> create_session();

  //! Replaces the static pages (server_config::pages). Same thread rule as create_session.
  void set_pages(std::map<std::string, static_page> pages) { config_.pages = std::move(pages); }

 private:
  std::chrono::milliseconds handling_delay() override;
  std::optional<http_response> page(std::string_view path, unsigned version) override;
  protocol::api_response handle(protocol::api_request request) override;
  void open_stream(served_stream stream, const protocol::stream_directive& directive) override;
  void finish(http_response& message) override;
  void log(std::string_view line) override;
  bool logs_requests() const override { return config_.log_requests; }

  void drain();
  //! 503 when an event stream of `session_id` would go over a stream cap.
  std::optional<protocol::api_response> refuse_stream(const std::string& session_id);
  void start_model_step(reference_server::model_step_request step);
  void on_model_reply(std::uint64_t step_id, const reference_server::model_reply& reply);
  void arm_deadline();
  void on_deadline(boost::system::error_code ec);

  boost::asio::io_context& ioc_;
  server_config config_;
  std::shared_ptr<wire_policy> wire_;
  std::unique_ptr<reference_server::clock_source> clock_;
  reference_server::core core_;
  reference_server::router router_;
  std::unique_ptr<model_backend> backend_;
  std::unique_ptr<sse_hub> hub_;
  std::shared_ptr<listener> listener_;
  boost::asio::steady_timer deadline_timer_;
  std::optional<protocol::time_ms> armed_deadline_;
  //! A slow wire's model steps, waiting to start (wire_policy::delay(slowness::model_call)).
  std::list<boost::asio::steady_timer> model_call_timers_;
  bool stopping_ = false;
};

}  // namespace toolwire::reference_server::web
