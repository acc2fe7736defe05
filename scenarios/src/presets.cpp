// Client behaviour presets: each sets the knobs of one behaviour; they combine.
#include "toolwire/scenarios/scenario.hpp"

namespace toolwire::scenarios {

client_spec browser_tab(client_spec spec, std::int64_t ttl_seconds, time_ms ping_every) {
  spec.lifetime = {protocol::lifetime::kind::ttl, ttl_seconds};
  spec.ping_every = ping_every;
  return spec;
}

client_spec backend_worker(client_spec spec) {
  spec.lifetime = {protocol::lifetime::kind::never, 0};
  spec.ping_every.reset();
  return spec;
}

client_spec navigating_tab(client_spec spec, std::vector<screen_change> screens) {
  spec.screens = std::move(screens);
  return spec;
}

client_spec slow_client(client_spec spec, time_ms ack_delay, time_ms result_delay) {
  spec.ack_delay = ack_delay;
  spec.result_delay = result_delay;
  return spec;
}

client_spec forgetful_client(client_spec spec) {
  spec.acks = false;
  spec.answers = false;
  return spec;
}

client_spec duplicating_client(client_spec spec) {
  spec.duplicate_result = true;
  return spec;
}

client_spec erroring_client(client_spec spec) {
  spec.error_result = true;
  return spec;
}

}  // namespace toolwire::scenarios
