// Whether an event stream holds what the target sent but the harness has not queued yet,
// asked from the harness's thread while the I/O thread is not running: the kernel's count
// of bytes received against what the stream took and queued (transport::unread).
#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include "arrivals.hpp"
#include "event_stream.hpp"
#include "support/eventually.hpp"

using namespace toolwire;
using namespace toolwire::conformance::detail;
using tcp = boost::asio::ip::tcp;
using steady = std::chrono::steady_clock;

namespace {

using toolwire::testing::eventually;

//! One event stream from the harness's side, its I/O run by hand, and the target's side
//! of the connection as a plain socket.
struct stream_fixture {
  boost::asio::io_context io;
  tcp::acceptor acceptor{io, {boost::asio::ip::make_address("127.0.0.1"), 0}};
  tcp::socket target{io};
  std::shared_ptr<arrivals> inbox = std::make_shared<arrivals>();
  std::shared_ptr<event_stream> stream;

  stream_fixture() {
    stream_settings settings;
    settings.server = {"127.0.0.1", acceptor.local_endpoint().port()};
    settings.endpoints =
        tcp::resolver(io).resolve("127.0.0.1", std::to_string(settings.server.port));
    stream = std::make_shared<event_stream>(io, settings, 1, "s1", inbox);
    bool opened = false;
    stream->open({"GET", "/v1/sessions/s1/events", {}, std::nullopt, std::nullopt, "", {}},
                 [&](protocol::api_response response) {
                   CHECK(response.status == 200);
                   opened = true;
                 });
    acceptor.accept(target);
    send("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n");
    REQUIRE(eventually([&] {
      io.poll();
      return opened;
    }));
  }

  void send(const std::string& bytes) { boost::asio::write(target, boost::asio::buffer(bytes)); }

  std::size_t queued() { return inbox->take_all().size(); }

  //! Runs the stream's I/O until one arrival is queued.
  bool queues_one() {
    std::size_t taken = 0;
    return eventually([&] {
      io.poll();
      taken += queued();
      return taken == 1;
    });
  }
};

}  // namespace

TEST_CASE("SES-3 a stream's unread bytes are seen without its I/O thread",
          "[remote][transport][sse]") {
  stream_fixture f;
  f.io.poll();
  CHECK(f.stream->has_unread_from_any_thread() == false);

  SECTION("a whole block is unread until the I/O thread has queued it") {
    f.send("id: 1\nevent: turn_started\ndata: {\"turn_id\":\"t1\"}\n\n");
    // The I/O thread has not run since: the block is only in the kernel's count.
    REQUIRE(eventually([&] { return f.stream->has_unread_from_any_thread() == true; }));
    CHECK(f.queued() == 0);
    REQUIRE(f.queues_one());
    CHECK(f.stream->has_unread_from_any_thread() == false);
  }

  SECTION("half a block taken off the socket is still unread") {
    f.send("id: 1\nevent: turn_started\n");
    REQUIRE(eventually([&] { return f.stream->has_unread_from_any_thread() == true; }));
    // However often the I/O thread runs, half a block is not an event yet.
    for (int i = 0; i < 100; ++i) {
      f.io.poll();
      CHECK(f.stream->has_unread_from_any_thread() == true);
    }
    CHECK(f.queued() == 0);
    f.send("data: {\"turn_id\":\"t1\"}\n\n");
    REQUIRE(f.queues_one());
    CHECK(f.stream->has_unread_from_any_thread() == false);
  }

  SECTION("a closed stream holds nothing, whatever its socket received") {
    f.send("id: 1\nevent: turn_started\n");
    f.stream->close();
    f.io.poll();
    CHECK(f.stream->has_unread_from_any_thread() == false);
  }
}
