// What every actor of one run shares: the trace and the mapping from the actor clock to
// target time. Runs are single-threaded on the test coordinator, so no locking.
#pragma once

#include <caf/all.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "toolwire/actors/trace.hpp"

namespace toolwire::actors {

struct scenario;

//! What scripted steps refer to by name, learned as the run goes: the session, the ids
//! the target assigned, the calls dispatched so far and the tasks' latest views.
struct script_state {
  std::string session_id;
  std::string token;
  std::string other_session_id;  // a second session, for AUTH-3 cases
  std::string other_token;
  std::string api_key;
  std::string limited_key;  // an API key without session.manage, when the target has one
  std::int64_t assistant_id = 1;
  std::string message_tag;                        // prepended to user messages (MODEL-3)
  std::map<std::string, std::string> client_ids;  // actor -> client_id
  std::vector<json> dispatched;                   // client_tool_dispatched data, in order
  std::map<std::string, std::string> tasks;       // label -> uuid
  std::map<std::string, json> task_views;         // label -> latest GET /api/tasks body
  //! Task uuid -> [{name, arguments}] of the model's latest answer in that task, in the
  //! model's order; the model actor writes it. Why: SPEC leaves the order of
  //! pending_tool_calls open, so a task's {call: N} is matched to the model's N-th call.
  std::map<std::string, json> task_model_calls;
  std::map<std::string, std::uint64_t> last_seen;  // actor -> last event seq it received
};

struct run_context {
  actors::trace* trace = nullptr;        // null: record nothing (benchmarks)
  time_ms epoch_ms = 1'700'000'000'000;  // target time when the run starts (CLOCK-3)
  const scenario* plan = nullptr;        // what is running
  script_state script;

  //! Virtual milliseconds since the run started, from the actor system's clock.
  static time_ms elapsed(const caf::local_actor* self) {
    using namespace std::chrono;
    return duration_cast<milliseconds>(self->clock().now().time_since_epoch()).count();
  }
  time_ms target_now(const caf::local_actor* self) const { return epoch_ms + elapsed(self); }

  //! Records `make_data()` when recording; builds nothing otherwise (the hot path of
  //! benchmarks and property runs).
  template <typename MakeData>
  void record(const caf::local_actor* self, std::string_view actor, std::string_view kind,
              MakeData make_data) {
    if (trace != nullptr) {
      trace->add(elapsed(self), std::string(actor), std::string(kind), make_data());
    }
  }
  bool recording() const { return trace != nullptr; }
};

}  // namespace toolwire::actors
