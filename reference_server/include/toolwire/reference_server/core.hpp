// The reference server's core: a sans-I/O state machine for SPEC Parts A and B.
//
// Theory of operation. Every input is a method call that carries `now`; before acting
// on it the core fires every timer due at or before `now` (so a ping at exactly a
// client's expiry meets an expired client, LIFE-3, whoever drives the clock). Outputs
// are drained with `drain()`: session events (also retained for SSE replay) and model
// step requests, whose answers come back through `model_replied`. The only view of time
// the core gives out is `next_deadline()`; `on_timeout(now)` is harmless when early.
// No clock reads, no I/O, no threads, and no unordered iteration: the same inputs give
// the same outputs, byte for byte.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "toolwire/protocol/outcome.hpp"
#include "toolwire/protocol/types.hpp"
#include "toolwire/protocol/validation.hpp"
#include "toolwire/reference_server/faults.hpp"
#include "toolwire/reference_server/offered_tools.hpp"

namespace toolwire::reference_server {

using protocol::json;
using protocol::outcome;
using protocol::time_ms;

namespace detail {
struct state;
}

//! A workspace API key and its scopes (AUTH-1).
struct api_key {
  std::string key;
  std::set<std::string> scopes;
};

inline constexpr const char* scope_session_manage = "session.manage";

struct core_config {
  std::vector<api_key> api_keys;
  std::int64_t assistant_id = 1;
  time_ms ack_timeout_ms = 10'000;
  time_ms result_timeout_ms = 300'000;
  time_ms interrupt_timeout_ms = 600'000;
  std::size_t event_retention = 4096;  // SES-3 asks for at least 1024
  std::size_t max_model_steps = 64;    // a turn or task that exceeds it fails
  //! Where the 128 secret bits of each session token come from (AUTH-3). The core never
  //! reads the OS itself: `toolwire serve` injects the OS CSPRNG here. When empty, tokens
  //! are derived from `secret_seed`: reproducible, for tests and the simulator only, and
  //! unsafe anywhere else (one token reveals the seed, hence every other token).
  std::function<std::array<std::uint64_t, 2>()> token_entropy;
  std::uint64_t secret_seed = 0;  // used only without token_entropy
  std::string model_name = "toolwire-reference";
  //! Test instrumentation, empty otherwise: called before each move of a record along its
  //! life cycle. A throw there stands for a core bug half-way through a command, which
  //! the core must undo whole (tests/core/atomic_commands_test.cpp).
  std::function<void()> before_move;
  //! The origins (`scheme://host[:port]`) whose pages may call this server from a browser
  //! (the CORS capability, CORS-1..3, docs/cors.md). Empty: no CORS, as SPEC has none.
  std::vector<std::string> cors_origins;
  //! How long a session with nothing live (no live client, no turn in progress) and no
  //! request or event is kept before it, its token and its retained events are forgotten;
  //! likewise a task that completed or failed and is no longer read. 0: kept forever, the
  //! core's default, so the simulator and explore's oracle never forget; `toolwire serve`
  //! sets an hour (a server left running for days must not grow without bound).
  time_ms idle_expiry_ms = 0;
  //! Sessions kept at once; creating one more is answered 503 until one is forgotten.
  //! 0: no limit.
  std::size_t max_sessions = 0;
  fault_set faults;
};

//! One event of a session's stream (SES-3, SES-4).
struct session_event {
  std::string session_id;
  std::uint64_t seq = 0;
  std::string type;
  json data;
  time_ms at = 0;
};

//! "Run a model step with these messages and these tools": the chat-completions
//! request body (MODEL-1) for a turn of a session or for a task.
struct model_step_request {
  std::uint64_t step_id = 0;
  enum class owner_kind { turn, task } owner = owner_kind::turn;
  std::string owner_id;  // session id (turn) or task uuid
  //! For turns: the session's last event seq when the step was issued, which places the
  //! step exactly in the event stream (the tools offered reflect every event up to it).
  std::uint64_t after_seq = 0;
  //! The request's body but for its tools: `model` and `messages` (MODEL-1).
  json conversation;
  //! The tools offered (TOOLS-6); none means no `tools` member: OpenAI-compatible servers
  //! reject an empty `tools` array.
  offered_tools tools;

  //! The whole chat-completions request body, for a model in-process.
  json body() const;
  //! The same as sent over HTTP: `conversation` serialized with the tools' text spliced in
  //! (never a tree of them); invalid UTF-8 in the conversation becomes U+FFFD, so it fails
  //! one step at the model, not the server.
  std::string body_text() const;
};

//! What happened in the model backend: an answer, or why there is none (MODEL-4).
struct model_reply {
  std::optional<protocol::model_answer> answer;
  std::string failure;  // set when answer is empty
};

struct core_outputs {
  std::vector<session_event> events;
  std::vector<model_step_request> model_steps;
  //! Sessions forgotten after their idle time (core_config::idle_expiry_ms): a front end
  //! closes their event streams, which would otherwise wait for events that never come.
  std::vector<std::string> forgotten_sessions;
  //! Failures of the core's own work where no request waits for an answer (a timer, a
  //! model reply, a turn's next step): each undone (all or nothing) and said here, for
  //! the front end's log. A request's failure is its answer instead (500).
  std::vector<std::string> internal_errors;
};

//! The retained events of a session after a given seq (SES-3). When events after `after`
//! are gone, `gap_oldest_seq` holds the oldest retained seq and a `stream_gap` goes first.
struct event_window {
  std::optional<std::uint64_t> gap_oldest_seq;
  std::vector<session_event> events;
};

struct session_created {
  std::string id;
  std::string token;
};

//! Who a credential is (AUTH-1..4). Never copied into outputs.
struct principal {
  enum class kind { none, unknown, api_key, session_token } type = kind::none;
  bool can_manage_sessions = false;
  std::string session_id;  // for session tokens
};

//! A row of the core's life-cycle tables (a call, task, turn or client moving on an event),
//! or a refusal SPEC answers with 409 (an ack of a settled call): what a run reached, the
//! unit of coverage explore reports.
struct life_cycle_point {
  std::string life_cycle;  // call, task, turn, client
  std::string from, on;
  std::string to;     // "refused" for a refusal
  std::string rules;  // the SPEC IDs of the move
  //! "call dispatched --deadline_passed--> failed (CALL-5)"
  std::string describe() const;
};

//! Every point, in the order core::life_cycle_reached numbers them.
const std::vector<life_cycle_point>& life_cycle_points();

class core {
 public:
  explicit core(core_config config);
  ~core();
  core(core&&) noexcept;
  core& operator=(core&&) noexcept;

  const core_config& config() const;
  bool has_fault(fault f) const;
  //! Which life_cycle_points() this core has reached so far (index for index).
  std::vector<bool> life_cycle_reached() const;

  // -- authentication (section 1) ---------------------------------------------------
  principal identify(const std::optional<std::string>& credential) const;
  //! AUTH-1..3: a session route; 401, then 403, then 404 for an unknown session.
  outcome<protocol::done> authorize_session(const std::optional<std::string>& credential,
                                            const std::string& session_id) const;
  //! AUTH-4: creating a session needs an API key with session.manage.
  outcome<protocol::done> authorize_create_session(
      const std::optional<std::string>& credential) const;
  //! AUTH-2: clock routes and Part B take any workspace API key.
  outcome<protocol::done> authorize_workspace(const std::optional<std::string>& credential) const;

  // -- Part A: sessions and clients (sections 2-6) ------------------------------------
  //! 503 (`unavailable`) when core_config::max_sessions are kept already.
  outcome<session_created> create_session(time_ms now);
  //! Sessions and tasks kept now (forgotten ones are gone: core_config::idle_expiry_ms).
  std::size_t session_count() const;
  std::size_t task_count() const;
  outcome<json> register_client(const std::string& sid, const json& body, time_ms now);
  outcome<json> ping(const std::string& sid, const std::string& cid, time_ms now);
  outcome<json> put_tools(const std::string& sid, const std::string& cid, const json& body,
                          time_ms now);
  outcome<protocol::done> delete_client(const std::string& sid, const std::string& cid,
                                        time_ms now);
  outcome<json> ack(const std::string& sid, const std::string& cid, const std::string& call_id,
                    time_ms now);
  outcome<json> post_result(const std::string& sid, const std::string& cid,
                            const std::string& call_id, const json& body, time_ms now);
  outcome<json> post_message(const std::string& sid, const json& body, time_ms now);

  //! Where a new stream starts (SES-3): after the current last seq, or after
  //! `last_event_id` when given.
  outcome<std::uint64_t> stream_start(const std::string& sid,
                                      std::optional<std::uint64_t> last_event_id) const;
  event_window events_after(const std::string& sid, std::uint64_t after) const;

  // -- Part B: tasks (section 9) ------------------------------------------------------
  outcome<json> create_task(const json& body, time_ms now);
  outcome<json> get_task(const std::string& uuid, time_ms now);
  outcome<json> post_tool_results(const std::string& uuid, const json& body, time_ms now);

  // -- model steps --------------------------------------------------------------------
  //! The answer to a model step request. An unknown or stale step id is ignored.
  void model_replied(std::uint64_t step_id, const model_reply& reply, time_ms now);

  // -- time ---------------------------------------------------------------------------
  std::optional<time_ms> next_deadline() const;
  //! Fires every timer due at or before `now`, in (time, creation) order.
  void on_timeout(time_ms now);

  //! Takes the events and model step requests produced since the last drain.
  core_outputs drain();

 private:
  std::unique_ptr<detail::state> state_;
};

}  // namespace toolwire::reference_server
