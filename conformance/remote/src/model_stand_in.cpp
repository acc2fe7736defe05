// The model stand-in: an acceptor and its connections on one I/O thread, a routing table
// shared with the runs, and a process-wide registry of stand-ins by address.
#include "toolwire/conformance/model_stand_in.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>

#include "stand_in_connection.hpp"

namespace toolwire::conformance {

namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;

//! Stand-ins by the address they listen at: runs of one process share them.
struct registry {
  std::mutex mutex;
  std::map<std::string, std::weak_ptr<model_stand_in>> by_address;
};

registry& stand_ins() {
  static registry instance;
  return instance;
}

//! Runs `ioc` until it stops: a handler that throws costs its own work, not the thread
//! (and with it every run of the process).
void run_catching(net::io_context& ioc) {
  for (;;) {
    try {
      ioc.run();
      return;
    } catch (const std::exception&) {
      // the connection whose handler threw is abandoned; the others go on
    }
  }
}

}  // namespace

struct model_stand_in::impl {
  // First, so that it outlives the connections the I/O context's handlers still hold.
  std::optional<detail::stand_in_reads> reads;  // once listening
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::chrono::milliseconds reply_timeout;
  detail::stand_in_routes routes;
  std::vector<std::weak_ptr<detail::stand_in_connection>> connections;  // the I/O thread's
  host_port bound;
  std::thread thread;

  explicit impl(std::chrono::milliseconds timeout) : reply_timeout(timeout) {}

  void listen(const host_port& address) {
    tcp::resolver resolver(ioc);
    const auto endpoint = *resolver.resolve(address.host, std::to_string(address.port)).begin();
    acceptor.open(endpoint.endpoint().protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(endpoint.endpoint());
    acceptor.listen();
    acceptor.non_blocking(true);
    bound = {address.host, acceptor.local_endpoint().port()};
    reads.emplace(acceptor.native_handle());
  }

  //! Why accepted by hand, not by async_accept: Asio takes a connection off the backlog in
  //! its reactor and runs the handler later, and a harness asking in between would find
  //! the request nowhere (stand_in_reads).
  void do_accept() {
    acceptor.async_wait(tcp::acceptor::wait_read, [this](boost::system::error_code ec) {
      if (ec) return;  // closed: the stand-in stops
      if (accept_waiting()) do_accept();
    });
  }

  //! Accepts every connection waiting; false when accepting failed (the stand-in stops
  //! accepting, as before).
  bool accept_waiting() {
    for (;;) {
      std::shared_ptr<detail::stand_in_connection> connection;
      {
        auto held = reads->hold();
        boost::system::error_code ec;
        tcp::socket socket = acceptor.accept(ec);
        if (ec == net::error::would_block || ec == net::error::try_again) return true;
        if (ec) return false;
        auto entry = reads->add(socket.native_handle());
        connection = std::make_shared<detail::stand_in_connection>(std::move(socket), routes,
                                                                   reply_timeout, *reads, entry);
      }
      std::erase_if(connections, [](const auto& c) { return c.expired(); });
      connections.push_back(connection);
      connection->start();
    }
  }

  void stop() {
    net::post(ioc, [this] {
      boost::system::error_code ignored;
      acceptor.close(ignored);
      for (const auto& weak : connections) {
        if (auto connection = weak.lock()) connection->close();
      }
    });
    thread.join();
  }
};

protocol::outcome<std::shared_ptr<model_stand_in>> model_stand_in::at(
    const host_port& address, std::chrono::milliseconds reply_timeout) {
  auto& known = stand_ins();
  std::lock_guard lock(known.mutex);
  if (address.port != 0) {
    if (auto existing = known.by_address[address.to_string()].lock()) return existing;
  }
  auto state = std::make_unique<impl>(reply_timeout);
  try {
    state->listen(address);
  } catch (const boost::system::system_error& e) {
    return protocol::invalid_request("the model stand-in cannot listen at " + address.to_string() +
                                     ": " + e.code().message());
  }
  state->do_accept();
  state->thread = std::thread([raw = state.get()] { run_catching(raw->ioc); });
  std::shared_ptr<model_stand_in> stand_in(new model_stand_in(std::move(state)));
  known.by_address[stand_in->address().to_string()] = stand_in;
  return stand_in;
}

model_stand_in::model_stand_in(std::unique_ptr<impl> state) : impl_(std::move(state)) {}

model_stand_in::~model_stand_in() {
  impl_->stop();
}

host_port model_stand_in::address() const {
  return impl_->bound;
}

bool model_stand_in::add_route(const std::string& tag, route to) {
  return impl_->routes.add(tag, std::move(to));
}

void model_stand_in::remove_route(const std::string& tag) {
  impl_->routes.remove(tag);
}

std::vector<json> model_stand_in::unrouted() const {
  return impl_->routes.evidence();
}

bool model_stand_in::unread() const {
  return impl_->reads->unread();
}

bool model_stand_in::await_read(std::chrono::microseconds bound) const {
  return impl_->reads->await_read(bound);
}

}  // namespace toolwire::conformance
