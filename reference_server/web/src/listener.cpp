// Accepts connections and starts an http_session for each; closes them all on shutdown.
#include "toolwire/reference_server/web/listener.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include <boost/asio/socket_base.hpp>
#include <boost/beast/core/bind_handler.hpp>

#include "toolwire/reference_server/web/http_session.hpp"

namespace toolwire::reference_server::web {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {
constexpr std::chrono::milliseconds accept_retry_delay{100};
}  // namespace

listener::listener(net::io_context& ioc, const tcp::endpoint& endpoint, request_handler& handler,
                   connection_limits limits, std::function<std::size_t()> streams_open)
    : ioc_(ioc),
      acceptor_(ioc),
      retry_timer_(ioc),
      handler_(handler),
      limits_(limits),
      streams_open_(std::move(streams_open)) {
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(net::socket_base::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(net::socket_base::max_listen_connections);
}

tcp::endpoint listener::local_endpoint() const {
  return acceptor_.local_endpoint();
}

void listener::run() {
  do_accept();
}

void listener::stop() {
  if (stopped_) return;
  stopped_ = true;
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  retry_timer_.cancel();
  for (const auto& weak : sessions_) {
    if (auto session = weak.lock()) session->close();
  }
  sessions_.clear();
}

void listener::do_accept() {
  acceptor_.async_accept(
      ioc_, boost::beast::bind_front_handler(&listener::on_accept, shared_from_this()));
}

void listener::on_accept(boost::system::error_code ec, served_socket socket) {
  if (stopped_) return;
  if (ec) {
    // Why go on, after a pause: a failed accept (e.g. out of descriptors) concerns one
    // connection; retrying at once would spin while the cause lasts.
    handler_.log("accept failed: " + ec.message());
    retry_timer_.expires_after(accept_retry_delay);
    retry_timer_.async_wait([self = shared_from_this()](boost::system::error_code wait_ec) {
      if (!wait_ec && !self->stopped_) self->do_accept();
    });
    return;
  }
  // Why no Nagle: an answer written in pieces (a chunked body, an event after its stream's
  // header) waited for the client's delayed ACK, 40 ms per answer, as nginx's tcp_nodelay
  // avoids. A socket that refuses the option still serves.
  boost::system::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  std::erase_if(sessions_, [](const auto& weak) { return weak.expired(); });
  const std::size_t open = sessions_.size() + (streams_open_ ? streams_open_() : 0);
  auto session = std::make_shared<http_session>(std::move(socket), handler_, limits_.idle_timeout,
                                                limits_.write_timeout);
  if (open >= limits_.max_connections) {
    // Why answer instead of dropping: a client learns it should come back later. The
    // refused connection lives only for its bounded write and linger.
    session->refuse_busy();
  } else {
    sessions_.push_back(session);
    session->run();
  }
  do_accept();
}

}  // namespace toolwire::reference_server::web
