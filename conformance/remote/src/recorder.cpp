// The recorder: the target side of a remote run's trace.
#include "recorder.hpp"

#include <caf/actor_system.hpp>

namespace toolwire::conformance::detail {

void recorder::start(caf::actor_system& system, actors::run_context* context) {
  system_ = &system;
  context_ = context;
  started_ = std::chrono::steady_clock::now();
}

void recorder::stop() {
  context_ = nullptr;
  system_ = nullptr;
}

void recorder::hide(const std::string& secret) const {
  if (recording()) context_->trace->add_secret(secret);
}

bool recorder::recording() const {
  return context_ != nullptr && context_->trace != nullptr;
}

actors::time_ms recorder::elapsed() const {
  using namespace std::chrono;
  if (system_ == nullptr) return 0;
  return duration_cast<milliseconds>(system_->clock().now().time_since_epoch()).count();
}

void recorder::record(const std::string& kind, protocol::json data) const {
  record_at(elapsed(), kind, std::move(data));
}

void recorder::record_at(actors::time_ms at, const std::string& kind, protocol::json data) const {
  if (recording()) context_->trace->add(at, "target", kind, std::move(data));
}

}  // namespace toolwire::conformance::detail
