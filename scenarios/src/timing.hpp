// Times in scenario files: durations and expressions over the target's timeouts, the
// TTLs a case chose and the timing tolerance (docs/scenario-language.md, "Time"). The
// loader resolves every time while it reads, against the target a run is timed for.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "toolwire/scenarios/loader.hpp"
#include "yaml_reader.hpp"

namespace toolwire::scenarios::detail {

//! What times resolve against while one file is read (one per load, on the loading
//! thread; see time_scope).
struct time_context {
  timing target;
  //! Pace: how literal-only times (the readability gaps of a script) scale. 1 unless the
  //! run is timed for a target (pace_of).
  double pace = 1.0;
  std::map<std::string, time_ms> ttls;    // actor -> its TTL in ms, as far as known
  std::map<std::string, time_ms> labels;  // a step's label -> its (resolved) time
  //! Set when an expression names a deadline with an offset smaller than the real
  //! clock's tolerance window (only judged on a real clock): the case then needs exact
  //! timing. The first such place, "line N: 'ack_timeout - 1ms'".
  std::string precision_at;
  //! Set once an expression names a deadline, a TTL or the tolerance: the file writes its
  //! times relative to the target, so its settings bind nothing.
  bool named_a_deadline = false;
};

//! Makes `context` the one as_time uses on this thread until the scope ends.
class time_scope {
 public:
  explicit time_scope(time_context& context);
  ~time_scope();
  time_scope(const time_scope&) = delete;
  time_scope& operator=(const time_scope&) = delete;

 private:
  time_context* previous_;
};

//! The context of the load in progress (a default one when there is none).
time_context& current_time();

//! A time as written: a duration or an expression (`ack_timeout - 1ms`, `ttl(tab) + 1s`,
//! `2*tol`), resolved against current_time(). Literal-only times scale by the pace; times
//! naming a deadline or `tol` are exact. Fails naming the line on a bad expression or a
//! negative result.
time_ms as_time(const value& v);

//! The same for an expression in a JSON body (`{time: EXPR}` in a request body).
time_ms time_of(std::string_view text, int line);

}  // namespace toolwire::scenarios::detail
