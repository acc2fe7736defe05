// The bundled reference server for `toolwire check`.
#include "bundled_reference.hpp"

#include <boost/asio/post.hpp>

#include "toolwire/reference_server/variations/assembled_server.hpp"
#include "toolwire/reference_server/web/openai_backend.hpp"

namespace toolwire::conformance::detail {

namespace web = reference_server::web;

//! The suite's own keys for the bundled server; redacted like any other credential.
const char* const bundled_api_key = "toolwire-check-key";
const char* const bundled_limited_key = "toolwire-check-limited-key";
//! The origin the bundled server lets browser pages call it from, so that the CORS cases
//! (CORS-1..3) run in the main job.
const char* const bundled_cors_origin = "http://app.toolwire.test";

struct bundled_reference::server {
  boost::asio::io_context ioc;
  std::unique_ptr<web::server> http;
  boost::asio::ip::tcp::endpoint endpoint;
  std::thread thread;

  ~server() {
    boost::asio::post(ioc, [this] { http->stop(); });
    if (thread.joinable()) thread.join();
  }
};

bundled_reference::bundled_reference(reference_server::fault_set faults,
                                     reference_server::variations::variation_set variations,
                                     bool real_clock, time_ms tolerance_ms,
                                     std::optional<time_ms> settle_ms)
    : faults_(std::move(faults)),
      variations_(std::move(variations)),
      real_clock_(real_clock),
      tolerance_ms_(tolerance_ms),
      settle_ms_(settle_ms) {}

bundled_reference::~bundled_reference() {
  servers_.clear();
}

protocol::outcome<target_profile> bundled_reference::profile_for(const timeouts& t) {
  if (!stand_in_) {
    auto stand_in = model_stand_in::at({"127.0.0.1", 0});
    if (!stand_in) return stand_in.error();
    stand_in_ = *stand_in;
  }
  auto& slot = servers_[t];
  if (!slot) {
    auto s = std::make_unique<server>();
    web::server_config config;
    config.core.api_keys = {{bundled_api_key, {reference_server::scope_session_manage}},
                            {bundled_limited_key, {}}};
    config.core.ack_timeout_ms = t.ack;
    config.core.result_timeout_ms = t.result;
    config.core.interrupt_timeout_ms = t.interrupt;
    config.core.cors_origins = {bundled_cors_origin};
    config.core.faults = faults_;
    config.clock = real_clock_ ? web::clock_kind::real : web::clock_kind::virtual_time;
    config.log_requests = false;
    config.log = [](std::string_view) {};
    auto url = web::parse_http_url("http://" + stand_in_->address().to_string() + "/v1");
    if (!url) return url.error();
    s->http = reference_server::variations::assemble_server(
        s->ioc, std::move(config),
        web::openai_config{*url, std::nullopt, std::chrono::milliseconds(10'000)}, variations_);
    try {
      s->endpoint = s->http->start();
    } catch (const std::exception& e) {
      return protocol::invalid_request(std::string("the bundled server cannot listen: ") +
                                       e.what());
    }
    s->thread = std::thread([raw = s.get()] { raw->ioc.run(); });
    slot = std::move(s);
  }
  target_profile profile;
  profile.name = "toolwire reference (bundled)";
  profile.base = {"127.0.0.1", slot->endpoint.port()};
  profile.api_key = bundled_api_key;
  profile.limited_api_key = bundled_limited_key;
  profile.cors_origin = bundled_cors_origin;
  profile.part_a = profile.part_b = true;
  profile.model_stand_in = stand_in_->address();
  profile.assistant_id = 1;
  profile.virtual_clock = !real_clock_;
  profile.timing_tolerance_ms = tolerance_ms_;
  profile.ack_timeout_ms = t.ack;
  profile.result_timeout_ms = t.result;
  profile.interrupt_timeout_ms = t.interrupt;
  if (settle_ms_) {
    profile.settle_ms = *settle_ms_;
  } else if (variations_.contains(reference_server::variations::variation::slow_events) ||
             variations_.contains(reference_server::variations::variation::slow_model_calls)) {
    // Events or model requests that lag up to 50 ms need a quiet time above that, as a
    // slow target's profile would state.
    profile.settle_ms = 60;
  } else if (!real_clock_) {
    // No quiet time on the bundled server's virtual clock: it writes every event a request
    // or a clock move causes before it answers, which the harness reads off the streams'
    // sockets, and the harness awaits the rest by name (model requests it owes, implied
    // events; docs/conformance.md). Clean explore: 3,000 programs at 0 without a divergence.
    profile.settle_ms = 0;
  }
  return profile;
}

}  // namespace toolwire::conformance::detail
