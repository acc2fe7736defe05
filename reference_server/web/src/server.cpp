// The reference server's front end: core, clock, router and model backend on one io_context.
#include "toolwire/reference_server/web/server.hpp"

#include <iostream>
#include <set>
#include <utility>

#include "toolwire/reference_server/web/listener.hpp"
#include "toolwire/reference_server/web/sse_hub.hpp"
#include "toolwire/reference_server/web/sse_session.hpp"

namespace toolwire::reference_server::web {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;

std::unique_ptr<reference_server::clock_source> make_clock(clock_kind kind) {
  if (kind == clock_kind::real) return std::make_unique<reference_server::system_clock>();
  // CLOCK-3: the virtual clock starts at the wall-clock time of start-up.
  return std::make_unique<reference_server::virtual_clock>(reference_server::system_clock{}.now());
}

tcp::endpoint resolve_endpoint(net::io_context& ioc, const std::string& host, std::uint16_t port) {
  boost::system::error_code ec;
  const auto address = net::ip::make_address(host, ec);
  if (!ec) return {address, port};
  tcp::resolver resolver(ioc);
  return *resolver.resolve(host, std::to_string(port)).begin();
}

std::string describe(const server_config& config) {
  std::string faults;
  for (const fault f : config.core.faults) {
    faults += (faults.empty() ? "" : ", ") + std::string(describe(f).name);
  }
  return std::string("clock ") + (config.clock == clock_kind::real ? "real" : "virtual") + ", " +
         std::to_string(config.core.api_keys.size()) +
         " API key(s), faults: " + (faults.empty() ? "none" : faults);
}

protocol::api_response unavailable(std::string message) {
  protocol::api_response response;
  response.status = 503;
  response.body =
      protocol::to_json(protocol::api_error{protocol::error_code::unavailable, std::move(message)});
  return response;
}

protocol::api_response internal_error() {
  protocol::api_response response;
  response.status = 500;
  response.body = protocol::to_json(protocol::api_error{protocol::error_code::internal,
                                                        "internal error in the reference server"});
  return response;
}

}  // namespace

server::server(net::io_context& ioc, server_config config, std::unique_ptr<model_backend> backend)
    : ioc_(ioc),
      config_(std::move(config)),
      wire_(config_.wire ? config_.wire : std::make_shared<wire_policy>()),
      clock_(make_clock(config_.clock)),
      core_(config_.core),
      router_(core_, *clock_),
      backend_(std::move(backend)),
      hub_(std::make_unique<sse_hub>()),
      deadline_timer_(ioc) {}

server::~server() = default;

tcp::endpoint server::start() {
  request_handler& handler = *this;  // the base is private: only the server hands it out
  const connection_limits limits{config_.idle_timeout, config_.write_timeout,
                                 config_.max_connections};
  listener_ = std::make_shared<listener>(ioc_, resolve_endpoint(ioc_, config_.host, config_.port),
                                         handler, limits, [this] { return hub_->count_all(); });
  listener_->run();
  const tcp::endpoint local = listener_->local_endpoint();
  log("reference server: listening on " + local.address().to_string() + ":" +
      std::to_string(local.port()) + " (" + describe(config_) + ")");
  arm_deadline();
  return local;
}

void server::stop() {
  if (stopping_) return;
  stopping_ = true;
  log("reference server: shutting down");
  if (listener_) listener_->stop();
  hub_->close_all();
  deadline_timer_.cancel();
  for (auto& timer : model_call_timers_)
    timer.cancel();
  backend_->close();
}

std::chrono::milliseconds server::handling_delay() {
  return stopping_ ? std::chrono::milliseconds(0) : wire_->delay(slowness::response);
}

std::optional<http_response> server::page(std::string_view path, unsigned version) {
  auto found = config_.pages.find(std::string(path));
  if (found == config_.pages.end()) return std::nullopt;
  http_response message{boost::beast::http::status::ok, version};
  message.set(boost::beast::http::field::content_type, found->second.content_type);
  message.set(boost::beast::http::field::cache_control, "no-store");
  message.body() = found->second.body;
  message.prepare_payload();
  return message;
}

protocol::outcome<reference_server::session_created> server::create_session() {
  auto created = core_.create_session(clock_->now());
  drain();
  return created;
}

protocol::api_response server::handle(protocol::api_request request) {
  try {
    wire_->inbound(request);  // a wire fault may rewrite what the router sees
    protocol::api_response response = router_.handle(request);
    if (response.stream && response.status == 200) {
      if (auto refused = refuse_stream(response.stream->session_id)) {
        refused->cors = std::move(response.cors);
        response = std::move(*refused);
      }
    }
    drain();
    wire_->outbound(request, response);
    return response;
  } catch (const std::exception&) {
    // The core undoes a failed command itself (journal.hpp); what throws here is the
    // front end's. Why not log what(): a parser's message can quote the body. The method
    // and path are as the router saw them.
    log("internal error while handling " + request.method + " " + request.path);
    drain();
    return internal_error();
  }
}

void server::open_stream(served_stream stream, const protocol::stream_directive& directive) {
  if (stopping_) return;  // the stream closes as it goes out of scope
  auto session = std::make_shared<sse_session>(std::move(stream), core_, *wire_, directive,
                                               config_.keepalive, config_.write_timeout);
  hub_->join(session);
  session->start();
}

void server::finish(http_response& message) {
  wire_->message(message);
}

void server::log(std::string_view line) {
  if (config_.log) return config_.log(line);
  std::cerr << (std::string(line) + "\n") << std::flush;
}

std::optional<protocol::api_response> server::refuse_stream(const std::string& session_id) {
  if (hub_->count(session_id) >= config_.max_streams_per_session) {
    log("refused an event stream: over the per-session stream cap (503)");
    return unavailable("this session has " + std::to_string(config_.max_streams_per_session) +
                       " event streams open, the most one session may hold (toolwire serve "
                       "--max-streams-per-session); close one first");
  }
  const std::size_t stream_room = config_.max_connections > config_.reserved_connections
                                      ? config_.max_connections - config_.reserved_connections
                                      : 0;
  if (hub_->count_all() >= stream_room) {
    log("refused an event stream: the connections left are reserved for requests (503)");
    return unavailable("event streams hold every connection not reserved for requests (" +
                       std::to_string(stream_room) +
                       "; toolwire serve --max-connections, --reserved-connections); try later");
  }
  return std::nullopt;
}

void server::drain() {
  if (stopping_) return;
  reference_server::core_outputs outputs = core_.drain();
  for (const auto& error : outputs.internal_errors)
    log(error);
  for (const auto& session_id : outputs.forgotten_sessions)
    hub_->close_session(session_id);
  std::set<std::string> sessions;
  for (const auto& event : outputs.events)
    sessions.insert(event.session_id);
  for (const auto& session_id : sessions)
    hub_->notify(session_id);
  for (auto& step : outputs.model_steps)
    start_model_step(std::move(step));
  arm_deadline();
}

void server::start_model_step(reference_server::model_step_request step) {
  // Why shared: a step's body offers every live client's tools (about 1 MB with 10,000
  // clients); a copy per capture was a deep copy and a free on the dispatch path.
  const auto shared = std::make_shared<const reference_server::model_step_request>(std::move(step));
  const auto start = [this, shared] {
    backend_->start(*shared,
                    [this, step_id = shared->step_id](reference_server::model_reply reply) {
                      on_model_reply(step_id, reply);
                    });
  };
  const auto delay = wire_->delay(slowness::model_call);
  if (delay.count() <= 0) return start();
  auto& timer = model_call_timers_.emplace_back(ioc_);
  timer.expires_after(delay);
  timer.async_wait(
      [this, start, waiting = std::prev(model_call_timers_.end())](boost::system::error_code ec) {
        // Why erase here: the handler is already off the timer, so the timer may go.
        model_call_timers_.erase(waiting);
        if (!ec && !stopping_) start();
      });
}

void server::on_model_reply(std::uint64_t step_id, const reference_server::model_reply& reply) {
  if (stopping_) return;
  if (!reply.answer) log("model step " + std::to_string(step_id) + " failed: " + reply.failure);
  router_.before_model_reply();
  // A failure inside is the core's to undo and report (core_outputs::internal_errors,
  // logged by drain).
  core_.model_replied(step_id, reply, clock_->now());
  drain();
}

void server::arm_deadline() {
  if (stopping_ || config_.clock == clock_kind::virtual_time) return;
  const std::optional<protocol::time_ms> next = core_.next_deadline();
  if (next == armed_deadline_) return;
  armed_deadline_ = next;
  if (!next) {
    deadline_timer_.cancel();
    return;
  }
  // Why a steady timer for a wall-clock deadline: an early wake-up is harmless
  // (on_timeout fires nothing that is not due) and the timer is re-armed after it.
  const protocol::time_ms delay = std::max<protocol::time_ms>(0, *next - clock_->now());
  // A slow wire's lateness: the deadline passes, and its timer fires that much later.
  deadline_timer_.expires_after(std::chrono::milliseconds(delay) + wire_->delay(slowness::timer));
  deadline_timer_.async_wait([this](boost::system::error_code ec) { on_deadline(ec); });
}

void server::on_deadline(boost::system::error_code ec) {
  if (ec || stopping_) return;
  armed_deadline_.reset();
  core_.on_timeout(clock_->now());  // as model_replied: the core reports its own failures
  drain();
}

}  // namespace toolwire::reference_server::web
