// The remote host: a run's target over HTTP, as the harness sees it (target_host).
#include "toolwire/conformance/remote_host.hpp"

#include <thread>

#include "remote_state.hpp"

namespace toolwire::conformance {

namespace {

namespace net = boost::asio;
using std::chrono::milliseconds;

//! Event streams connect to these, resolved once: a run does not re-resolve per stream.
protocol::outcome<net::ip::tcp::resolver::results_type> resolve(net::io_context& io,
                                                                const host_port& target) {
  try {
    net::ip::tcp::resolver resolver(io);
    return resolver.resolve(target.host, std::to_string(target.port));
  } catch (const boost::system::system_error& e) {
    return protocol::invalid_request("cannot resolve the target's host " + target.host + ": " +
                                     e.code().message());
  }
}

}  // namespace

protocol::outcome<std::unique_ptr<remote_host>> remote_host::start(target_profile profile,
                                                                   std::string message_tag) {
  if (message_tag.empty()) {
    return protocol::invalid_request(
        "a remote run needs a message tag, so the model stand-in can route its model "
        "requests (MODEL-3)");
  }
  auto stand_in = model_stand_in::at(profile.model_stand_in);
  if (!stand_in) return stand_in.error();
  auto s = std::make_unique<state>();
  auto endpoints = resolve(s->io, profile.base);
  if (!endpoints) return endpoints.error();
  s->streams_at.endpoints = std::move(*endpoints);
  s->streams_at.server = profile.base;
  s->streams_at.open_timeout = milliseconds(profile.request_timeout_ms);
  s->client = std::make_unique<http_client>(profile.base, milliseconds(profile.request_timeout_ms));
  auto route = [inbox = s->inbox](json body, model_stand_in::respond_fn respond) {
    inbox->push(detail::model_arrival{std::move(body), std::move(respond)});
  };
  if (!(*stand_in)->add_route(message_tag, route)) {
    return protocol::invalid_request("the message tag '" + message_tag +
                                     "' is already in use by another run");
  }
  s->stand_in = std::move(*stand_in);
  s->profile = std::move(profile);
  s->tag = std::move(message_tag);
  s->io_thread = std::thread([io = &s->io] {
    for (;;) {
      try {
        io->run();
        return;
      } catch (const std::exception&) {
        // a stream whose handler threw is abandoned; the run's other streams go on
      }
    }
  });
  return std::unique_ptr<remote_host>(new remote_host(std::move(s)));
}

remote_host::remote_host(std::unique_ptr<state> s) : state_(std::move(s)) {}

remote_host::~remote_host() {
  stop();
}

actors::target_actor remote_host::spawn(caf::actor_system& system, actors::run_context* context) {
  state_->system = &system;
  state_->context = context;
  if (context != nullptr && context->trace != nullptr) {
    context->trace->add_secret(state_->profile.api_key);
    if (!state_->profile.limited_api_key.empty()) {
      context->trace->add_secret(state_->profile.limited_api_key);
    }
  }
  state_->started = std::chrono::steady_clock::now();
  return spawn_remote_target(system, state_.get());
}

bool remote_host::deliver_arrivals() {
  auto& s = *state_;
  if (s.stopped) return false;
  return s.deliver_all(s.inbox->take_when_quiet(milliseconds(s.profile.settle_ms),
                                                milliseconds(s.profile.request_timeout_ms)));
}

bool remote_host::await_arrival() {
  auto& s = *state_;
  if (s.stopped) return false;
  s.inbox->wait_for_item(std::chrono::steady_clock::now() +
                         milliseconds(s.profile.request_timeout_ms));
  return deliver_arrivals();
}

std::optional<actors::time_ms> remote_host::latest_arrival_before(actors::time_ms before) {
  auto& s = *state_;
  if (s.stopped) return std::nullopt;
  // Why the clamp: `before` may be "no bound" (the largest time_ms), which would overflow.
  const auto bound =
      before >= std::chrono::duration_cast<milliseconds>(std::chrono::hours(24 * 365)).count()
          ? std::chrono::steady_clock::time_point::max()
          : s.started + milliseconds(before);
  const auto latest = s.inbox->latest_before(bound);
  if (!latest) return std::nullopt;
  return std::chrono::duration_cast<milliseconds>(*latest - s.started).count();
}

bool remote_host::deliver_arrived_by(actors::time_ms by) {
  auto& s = *state_;
  if (s.stopped) return false;
  // Why +1 ms: `by` is a whole millisecond; an item that arrived within it belongs to it.
  return s.deliver_all(s.inbox->take_arrived_by(s.started + milliseconds(by + 1)));
}

bool remote_host::state::deliver_all(std::vector<detail::arrival> items) {
  auto& s = *this;
  if (items.empty()) return false;
  for (auto& item : items) {
    if (auto* event = std::get_if<detail::stream_arrival>(&item)) s.deliver(*event);
    if (auto* trouble = std::get_if<detail::transport_arrival>(&item)) s.deliver(*trouble);
  }
  // Why model requests after the events of the same batch: nothing the run did can have
  // happened between them (the harness waited), so every event that arrived with a model
  // request was caused before it; recording them first puts each step after the events
  // that shaped its tool list, as in-process (TOOLS-3), whichever socket was faster.
  for (auto& item : items) {
    if (auto* step = std::get_if<detail::model_arrival>(&item)) s.deliver(*step);
  }
  return true;
}

void remote_host::clock_moves(actors::time_ms ms) {
  auto& s = *state_;
  if (ms <= 0 || s.stopped) return;
  if (!s.profile.virtual_clock) return;  // real time: the harness waits (wait_until)
  s.await_answers_applied();
  const auto response = s.client->send({"POST",
                                        "/v1/_test/clock/advance",
                                        {},
                                        s.profile.api_key,
                                        std::nullopt,
                                        json{{"ms", ms}}.dump()});
  s.inbox->note_activity();
  if (response.status != 200) {
    s.record("transport_error", {{"what", "moving the target's clock by " + std::to_string(ms) +
                                              " ms (CLOCK-1): " + describe_answer(response)}});
  }
}

bool remote_host::real_time() const {
  return !state_->profile.virtual_clock;
}

actors::time_ms remote_host::wall_elapsed() const {
  return std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() -
                                                  state_->started)
      .count();
}

void remote_host::await_quiet() {
  auto& s = *state_;
  if (s.stopped) return;
  s.inbox->wait_quiet(milliseconds(s.profile.settle_ms),
                      milliseconds(s.profile.request_timeout_ms));
}

void remote_host::wait_until(actors::time_ms ms) {
  auto& s = *state_;
  if (s.stopped) return;
  s.inbox->wait_for_item(s.started + milliseconds(ms));
}

std::string remote_host::api_key() const {
  return state_->profile.api_key;
}

std::string remote_host::limited_key() const {
  return state_->profile.limited_api_key;
}

std::int64_t remote_host::assistant_id() const {
  return state_->profile.assistant_id;
}

void remote_host::stop() {
  state_->shut_down();
}

const target_profile& remote_host::profile() const {
  return state_->profile;
}

std::vector<json> remote_host::unrouted_model_requests() const {
  return state_->stand_in ? state_->stand_in->unrouted() : std::vector<json>{};
}

}  // namespace toolwire::conformance
