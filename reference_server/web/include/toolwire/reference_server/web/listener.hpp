// Accepts connections and starts an http_session for each; closes them all on shutdown.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "toolwire/reference_server/web/request_handler.hpp"

namespace toolwire::reference_server::web {

class http_session;

//! The bounds every connection lives under (docs/reference-server.md, "Limits").
struct connection_limits {
  std::chrono::milliseconds idle_timeout{60'000};   // to receive a whole request
  std::chrono::milliseconds write_timeout{30'000};  // to write a response or an SSE batch
  //! Connections open at once, event streams included; one more is answered 503 and closed.
  std::size_t max_connections = 1024;
};

class listener : public std::enable_shared_from_this<listener> {
 public:
  //! Opens, binds and listens at once, so that the caller learns the real port (when 0
  //! was asked for) before anything runs. Throws boost::system::system_error on failure.
  //! `streams_open` counts the connections handed over to event streams, which the
  //! listener no longer sees but the cap must include.
  listener(boost::asio::io_context& ioc, const boost::asio::ip::tcp::endpoint& endpoint,
           request_handler& handler, connection_limits limits,
           std::function<std::size_t()> streams_open = {});

  boost::asio::ip::tcp::endpoint local_endpoint() const;

  //! Starts accepting. Call once, on the io_context's thread.
  void run();

  //! Stops accepting and closes every connection still open (streams handed over to SSE
  //! are the server's to close).
  void stop();

 private:
  void do_accept();
  void on_accept(boost::system::error_code ec, served_socket socket);

  boost::asio::io_context& ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_timer_;
  request_handler& handler_;
  connection_limits limits_;
  std::function<std::size_t()> streams_open_;
  // Why weak: a connection lives as long as its own pending operations; the listener only
  // needs to reach the live ones at shutdown.
  std::vector<std::weak_ptr<http_session>> sessions_;
  bool stopped_ = false;
};

}  // namespace toolwire::reference_server::web
