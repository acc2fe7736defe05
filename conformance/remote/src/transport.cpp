// The transport: requests, the clock routes, and the I/O thread that event streams use.
#include "transport.hpp"

#include <algorithm>
#include <future>

#include <boost/asio/post.hpp>

#include "recorder.hpp"
#include "toolwire/protocol/routes.hpp"

namespace toolwire::conformance::detail {

namespace net = boost::asio;
using std::chrono::milliseconds;

transport::transport(target_profile profile, std::shared_ptr<arrivals> inbox, const recorder& trace)
    : profile_(std::move(profile)),
      inbox_(std::move(inbox)),
      trace_(trace),
      client_(profile_.base, milliseconds(profile_.request_timeout_ms)) {
  streams_at_.server = profile_.base;
  streams_at_.open_timeout = milliseconds(profile_.request_timeout_ms);
}

transport::~transport() {
  stop();
}

protocol::outcome<protocol::done> transport::resolve() {
  try {
    net::ip::tcp::resolver resolver(io_);
    streams_at_.endpoints =
        resolver.resolve(profile_.base.host, std::to_string(profile_.base.port));
    return protocol::done{};
  } catch (const boost::system::system_error& e) {
    return protocol::invalid_request("cannot resolve the target's host " + profile_.base.host +
                                     ": " + e.code().message());
  }
}

void transport::start() {
  io_thread_ = std::thread([io = &io_] {
    for (;;) {
      try {
        io->run();
        return;
      } catch (const std::exception&) {
        // a stream whose handler threw is abandoned; the run's other streams go on
      }
    }
  });
}

void transport::stop() {
  if (!io_work_.owns_work()) return;
  // Why post the stop: the closes posted before it run first, in order, on the I/O thread.
  net::post(io_, [this] { io_.stop(); });
  io_work_.reset();
  if (io_thread_.joinable()) io_thread_.join();
}

protocol::api_response transport::send(const protocol::api_request& request) {
  return client_.send(request);
}

transport::opened_stream transport::open_stream(const protocol::api_request& request,
                                                std::uint64_t id, const std::string& session_id) {
  auto stream = std::make_shared<event_stream>(io_, streams_at_, id, session_id, inbox_);
  auto answer = std::make_shared<std::promise<protocol::api_response>>();
  auto answered = answer->get_future();
  net::post(io_, [stream, request, answer] {
    stream->open(request, [answer](protocol::api_response response) {
      answer->set_value(std::move(response));
    });
  });
  // Why a margin: the stream's own deadline answers first; this one only guards the wait.
  const auto bound = milliseconds(profile_.request_timeout_ms) + milliseconds(500);
  if (answered.wait_for(bound) != std::future_status::ready) {
    stream->close();
    return {transport_failure("the events request got no answer within " +
                                  std::to_string(profile_.request_timeout_ms) + " ms",
                              transport_cause::unreachable),
            nullptr};
  }
  return {answered.get(), std::move(stream)};
}

bool transport::unread(const std::vector<std::shared_ptr<event_stream>>& streams,
                       milliseconds bound) {
  if (streams.empty()) return false;
  // Asked from this thread first: a round trip to the I/O thread at every quiet point was
  // a twentieth of explore's time over HTTP (perf, 2026-12-06), and nearly every answer is
  // "nothing". Why the I/O thread is still asked when something is unread: a post wakes it
  // onto this thread's core at once, to read and queue what is there; left to wake by
  // itself, it waited for a busy core's time slice (1.2 ms on average with 2 jobs on
  // 2 cores), which made explore slower in wall time though it spent less CPU.
  const bool all_quiet = std::all_of(streams.begin(), streams.end(), [](const auto& stream) {
    return stream->has_unread_from_any_thread() == std::optional<bool>(false);
  });
  if (all_quiet) return false;
  auto answer = std::make_shared<std::promise<bool>>();
  auto answered = answer->get_future();
  net::post(io_, [streams, answer] {
    answer->set_value(std::any_of(streams.begin(), streams.end(),
                                  [](const auto& stream) { return stream->has_unread(); }));
  });
  if (answered.wait_for(bound) != std::future_status::ready) return true;
  return answered.get();
}

std::optional<protocol::time_ms> transport::target_now() {
  using namespace std::chrono;
  if (!profile_.virtual_clock) {
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  }
  const auto response = client_.send({"GET",
                                      protocol::route_path(protocol::route_id::get_clock),
                                      {},
                                      profile_.api_key,
                                      std::nullopt,
                                      "",
                                      {}});
  inbox_->note_activity();
  if (response.status == 200 && response.body.is_object() &&
      response.body.value("now_ms", json()).is_number_integer()) {
    return response.body["now_ms"].get<protocol::time_ms>();
  }
  trace_.record("transport_error",
                {{"what", "reading the target's clock (CLOCK-1): " + describe_answer(response)}});
  return std::nullopt;
}

void transport::advance_clock(protocol::time_ms ms) {
  const auto response = client_.send({"POST",
                                      protocol::route_path(protocol::route_id::advance_clock),
                                      {},
                                      profile_.api_key,
                                      std::nullopt,
                                      json{{"ms", ms}}.dump(),
                                      {}});
  inbox_->note_activity();
  if (response.status != 200) {
    trace_.record("transport_error",
                  {{"what", "moving the target's clock by " + std::to_string(ms) +
                                " ms (CLOCK-1): " + describe_answer(response)}});
  }
}

}  // namespace toolwire::conformance::detail
