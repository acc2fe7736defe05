// A clock that moves only when told (SPEC section 7), and the real clock, behind one face.
#pragma once

#include "toolwire/protocol/types.hpp"

namespace toolwire::reference_server {

class core;

//! Where a driver of the core (the HTTP front end, a test) gets `now`.
class clock_source {
 public:
  virtual ~clock_source() = default;
  virtual protocol::time_ms now() const = 0;
  //! True when `advance` is available (CLOCK-1); otherwise the clock routes are 404.
  virtual bool is_virtual() const = 0;
  //! Moves a virtual clock by `ms`, firing the core's timers on the way (CLOCK-2).
  virtual protocol::time_ms advance(core& target, protocol::time_ms ms) = 0;
};

//! The latest instant a virtual clock reaches: 2^53 - 1 ms (about 285,000 years), the
//! largest integer every JSON reader keeps exact. An advance beyond it stops there (it
//! saturates), so `now_ms` never wraps and the core's `now + timeout` never overflows.
inline constexpr protocol::time_ms max_virtual_ms = (protocol::time_ms{1} << 53) - 1;

//! Starts at a given instant (CLOCK-3: the wall clock at start-up) and then moves only
//! by `advance`, which fires every timer due on the way at its own time, in time order,
//! before it returns (CLOCK-2). It saturates at `max_virtual_ms`.
class virtual_clock final : public clock_source {
 public:
  explicit virtual_clock(protocol::time_ms start) : now_(start) {}
  protocol::time_ms now() const override { return now_; }
  bool is_virtual() const override { return true; }
  protocol::time_ms advance(core& target, protocol::time_ms ms) override;

 private:
  protocol::time_ms now_;
};

//! Wall-clock milliseconds since the Unix epoch. Only the front end may use it.
class system_clock final : public clock_source {
 public:
  protocol::time_ms now() const override;
  bool is_virtual() const override { return false; }
  protocol::time_ms advance(core&, protocol::time_ms) override { return now(); }
};

}  // namespace toolwire::reference_server
