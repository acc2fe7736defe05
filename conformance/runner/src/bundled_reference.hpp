// The bundled reference server, started in-process on loopback with the virtual clock
// (or the wall clock) when `toolwire check` has no --target, all calling the one model
// stand-in.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>

#include <boost/asio/io_context.hpp>

#include "toolwire/conformance/model_stand_in.hpp"
#include "toolwire/conformance/target_profile.hpp"
#include "toolwire/reference_server/faults.hpp"
#include "toolwire/reference_server/variations/variations.hpp"
#include "toolwire/reference_server/web/server.hpp"

namespace toolwire::conformance::detail {

struct timeouts {
  time_ms ack = 0, result = 0, interrupt = 0;
  auto operator<=>(const timeouts&) const = default;
};

class bundled_reference {
 public:
  bundled_reference(reference_server::fault_set faults,
                    reference_server::variations::variation_set variations, bool real_clock = false,
                    time_ms tolerance_ms = 200, std::optional<time_ms> settle_ms = std::nullopt);
  ~bundled_reference();
  bundled_reference(const bundled_reference&) = delete;
  bundled_reference& operator=(const bundled_reference&) = delete;

  //! The profile of a server with these timeouts, started on first use.
  protocol::outcome<target_profile> profile_for(const timeouts& t);

 private:
  struct server;
  reference_server::fault_set faults_;
  reference_server::variations::variation_set variations_;
  bool real_clock_ = false;
  time_ms tolerance_ms_ = 200;
  std::optional<time_ms> settle_ms_;  // the harness's quiet time; the profile default if unset
  std::shared_ptr<model_stand_in> stand_in_;
  std::map<timeouts, std::unique_ptr<server>> servers_;
};

}  // namespace toolwire::conformance::detail
