// Invariants checked on every trace, each naming the SPEC rule it protects.
#pragma once

#include <string>
#include <vector>

#include "toolwire/actors/trace.hpp"

namespace toolwire::actors {

struct violation {
  std::string spec_id;
  std::string message;
  std::size_t record = 0;  // index into trace.records() where it shows

  friend bool operator==(const violation&, const violation&) = default;
};

//! Checks, over the whole trace:
//! - CALL-5 every dispatched call is settled exactly once (never both, never twice, never lost);
//! - REG-6 assigned names are unique among a session's live clients at all times;
//! - TOOLS-3/TOOLS-6 each model step of a turn is offered exactly the live clients' tools;
//! - LIFE-5 the open calls of a client that ends fail with client_left / client_expired;
//! - SES-3 event seqs start at 1 and grow by 1, and each stream delivers them in order;
//! - TASK-5 observed task statuses move only along the task state machine.
std::vector<violation> check_invariants(const trace& run);

//! "CALL-5 at record 12: call_3 settled twice (completed, then completed)".
std::string describe(const violation& v);

}  // namespace toolwire::actors
