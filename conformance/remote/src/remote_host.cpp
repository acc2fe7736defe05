// The remote host: a run's target over HTTP, as the harness sees it (server_host).
#include "toolwire/conformance/remote_host.hpp"

#include "remote_state.hpp"

namespace toolwire::conformance {

using std::chrono::milliseconds;

protocol::outcome<std::unique_ptr<remote_host>> remote_host::start(target_profile profile,
                                                                   std::string message_tag) {
  if (message_tag.empty()) {
    return protocol::invalid_request(
        "a remote run needs a message tag, so the model stand-in can route its model "
        "requests (MODEL-3)");
  }
  auto stand_in = model_stand_in::at(profile.model_stand_in);
  if (!stand_in) return stand_in.error();
  auto s = std::make_unique<state>(std::move(profile));
  if (auto resolved = s->link.resolve(); !resolved) return resolved.error();
  if (!s->route_model_requests(std::move(*stand_in), message_tag)) {
    return protocol::invalid_request("the message tag '" + message_tag +
                                     "' is already in use by another run");
  }
  s->link.start();
  return std::unique_ptr<remote_host>(new remote_host(std::move(s)));
}

remote_host::remote_host(std::unique_ptr<state> s) : state_(std::move(s)) {}

remote_host::~remote_host() {
  stop();
}

actors::server_actor remote_host::spawn(caf::actor_system& system, actors::run_context* context) {
  auto& s = *state_;
  s.trace.start(system, context);
  s.trace.hide(profile().api_key);
  if (!profile().limited_api_key.empty()) s.trace.hide(profile().limited_api_key);
  return spawn_remote_server_actor(system, state_.get());
}

bool remote_host::deliver_arrivals() {
  auto& s = *state_;
  if (s.stopped) return false;
  s.settle();
  return s.deliver_all(s.inbox->take_all());
}

bool remote_host::await_arrival() {
  auto& s = *state_;
  if (s.stopped) return false;
  s.inbox->wait_for_item(std::chrono::steady_clock::now() +
                         milliseconds(profile().request_timeout_ms));
  return deliver_arrivals();
}

std::optional<actors::time_ms> remote_host::latest_arrival_before(actors::time_ms before) {
  auto& s = *state_;
  if (s.stopped) return std::nullopt;
  // Why the clamp: `before` may be "no bound" (the largest time_ms), which would overflow.
  const auto bound =
      before >= std::chrono::duration_cast<milliseconds>(std::chrono::hours(24 * 365)).count()
          ? std::chrono::steady_clock::time_point::max()
          : s.trace.started() + milliseconds(before);
  const auto latest = s.inbox->latest_before(bound);
  if (!latest) return std::nullopt;
  return std::chrono::duration_cast<milliseconds>(*latest - s.trace.started()).count();
}

bool remote_host::deliver_arrived_by(actors::time_ms by) {
  auto& s = *state_;
  if (s.stopped) return false;
  // Why +1 ms: `by` is a whole millisecond; an item that arrived within it belongs to it.
  return s.deliver_all(s.inbox->take_arrived_by(s.trace.started() + milliseconds(by + 1)));
}

void remote_host::clock_moves(actors::time_ms ms) {
  auto& s = *state_;
  if (ms <= 0 || s.stopped) return;
  if (!profile().virtual_clock) return;  // real time: the harness waits (wait_until)
  s.router.await_answers_applied();
  s.link.advance_clock(ms);
}

bool remote_host::real_time() const {
  return !profile().virtual_clock;
}

actors::time_ms remote_host::wall_elapsed() const {
  return std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() -
                                                  state_->trace.started())
      .count();
}

void remote_host::await_quiet() {
  auto& s = *state_;
  if (s.stopped) return;
  s.settle();
}

void remote_host::record_late_events(actors::time_ms ms) {
  auto& s = *state_;
  if (s.stopped || ms <= 0) return;
  const auto until = std::chrono::steady_clock::now() + milliseconds(ms);
  for (;;) {
    const auto pushed = s.inbox->pushed();
    for (const auto& item : s.inbox->take_events()) {
      if (const auto* event = std::get_if<detail::stream_arrival>(&item)) {
        s.streams.record_after_end(*event, wall_elapsed());
      }
    }
    const auto left = until - std::chrono::steady_clock::now();
    if (left <= decltype(left)::zero()) return;
    s.inbox->wait_for_push(pushed, std::chrono::duration_cast<std::chrono::microseconds>(left));
  }
}

void remote_host::wait_until(actors::time_ms ms) {
  auto& s = *state_;
  if (s.stopped) return;
  s.inbox->wait_for_item(s.trace.started() + milliseconds(ms));
}

std::string remote_host::api_key() const {
  return profile().api_key;
}

std::string remote_host::limited_key() const {
  return profile().limited_api_key;
}

std::string remote_host::base_url() const {
  return "http://" + profile().base.to_string();
}

std::string remote_host::cors_origin() const {
  return profile().cors_origin;
}

std::int64_t remote_host::assistant_id() const {
  return profile().assistant_id;
}

void remote_host::stop() {
  state_->shut_down();
}

const target_profile& remote_host::profile() const {
  return state_->link.profile();
}

std::vector<json> remote_host::unrouted_model_requests() const {
  return state_->stand_in ? state_->stand_in->unrouted() : std::vector<json>{};
}

}  // namespace toolwire::conformance
