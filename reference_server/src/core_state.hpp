// The core's private state and the functions of each area that act on it.
// Ordered containers only: iteration order reaches outputs, and outputs must be
// identical for identical inputs.
#pragma once

#include <bitset>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "journal.hpp"
#include "lifecycle.hpp"
#include "toolwire/protocol/events.hpp"
#include "toolwire/reference_server/core.hpp"

namespace toolwire::reference_server {

using protocol::api_error;
using protocol::tool_outcome;
using protocol::tool_spec;

namespace detail {

struct client_record {
  std::uint64_t serial = 0;  // registration order; also the client's timer key
  std::string id;
  std::string name;  // assigned (REG-5)
  std::string requested_name;
  client_status status = client_status::live;  // lifecycle.hpp
  protocol::lifetime lifetime;
  std::vector<tool_spec> tools;
  //! Empty under SPEC's rules (TOOLS-1): what a PUT withdrew, kept only by a policy that
  //! still offers it (faults/client_faults.cpp).
  std::vector<tool_spec> withdrawn_tools;
  std::optional<time_ms> expires_at;                // ttl clients only
  std::map<std::uint64_t, std::string> open_calls;  // call serial -> call id, dispatch order
};

struct call_record {
  std::uint64_t serial = 0;  // dispatch order; also the call's timer key
  std::string id;
  std::string client_id;
  std::string tool;
  std::string turn_id;
  call_status status = call_status::dispatched;  // lifecycle.hpp
  time_ms dispatched_at = 0;
  time_ms deadline = 0;
  std::size_t step = 0;  // the turn step that made the call
  std::size_t slot = 0;  // index of that step's slot this call answers
};

//! The messages of a turn or a task so far, shared by its copies until one of them adds a
//! message. Why: a turn is copied into the undo journal at every command on its session
//! (a ping, an ack), and a task at every command on it; a deep copy of a long conversation
//! per command made a session's requests slower the longer its turn ran.
class conversation_log {
 public:
  const json& messages() const { return *messages_; }
  void append(json message) {
    if (messages_.use_count() > 1) messages_ = std::make_shared<json>(*messages_);
    messages_->push_back(std::move(message));
  }

 private:
  std::shared_ptr<json> messages_ = std::make_shared<json>(json::array());
};

//! One tool call of the model's current answer, and what the model will get for it.
struct step_slot {
  std::string model_call_id;  // the model's own id (MODEL-2)
  std::string model_name;     // as the model called it
  std::string call_id;        // ours, when dispatched; empty otherwise
  std::optional<tool_outcome> outcome;
};

struct turn_record {
  std::string id;
  turn_status status = turn_status::started;  // lifecycle.hpp
  conversation_log conversation;
  //! The id of the model step in flight, 0 once answered: a reply must carry it to count.
  std::uint64_t waiting_step = 0;
  std::vector<step_slot> slots;  // the current step's calls, in the model's order
  std::size_t steps = 0;
  //! What the current step was offered (TOOLS-6's snapshot). Under TOOLS-5 it does not
  //! decide a dispatch (liveness at the answer does); a policy may. A turn is copied into
  //! the undo journal (journal.hpp) at every command on its session; this copy is a pointer.
  offered_tools offered_at_step;
};

struct session_record {
  std::uint64_t serial = 0;
  std::string id;
  std::string token;
  journaled_map<std::uint64_t, client_record> clients;  // live clients by serial
  //! Empty under SPEC's rules (LIFE-4): clients that ended, kept only by a policy that
  //! still offers their tools (faults/client_faults.cpp).
  journaled_map<std::uint64_t, client_record> departed;
  journaled_map<std::string, std::uint64_t> client_serials;
  //! The assigned names of the live clients, each with how many hold it (a policy may give
  //! two the same). Why: REG-5 asks whether a name is taken at every registration, and a
  //! scan of 10,000 clients was most of what registering the 10,000th cost.
  journaled_map<std::string, std::size_t> live_names;
  journaled_map<std::string, call_record> calls;
  journaled_log<session_event> log;
  // The session's own fields: session_table notes them whenever it hands the record out
  // for writing. A field added here belongs in session_table::note_fields too.
  std::uint64_t next_seq = 1;
  std::optional<turn_record> turn;
  //! The last request on the session or event of it; its idle time counts from here.
  time_ms last_active = 0;
  std::uint64_t idle_timer = 0;  // the key of its idle-expiry timer; 0 when none is armed

  void attach(undo_log* journal) {
    clients.attach(journal);
    departed.attach(journal);
    client_serials.attach(journal);
    live_names.attach(journal);
    calls.attach(journal);
    log.attach(journal);
  }
};

//! The sessions by id. A lookup for writing notes the session's own fields as they are
//! (its containers note their own writes), so a failed command leaves it as it was.
class session_table {
 public:
  using map_type = std::map<std::string, session_record>;
  using iterator = map_type::iterator;
  using const_iterator = map_type::const_iterator;

  void attach(undo_log* journal) { journal_ = journal; }

  const_iterator begin() const { return sessions_.begin(); }
  const_iterator end() const { return sessions_.end(); }
  const_iterator find(const std::string& id) const { return sessions_.find(id); }
  std::size_t size() const { return sessions_.size(); }
  std::size_t count(const std::string& id) const { return sessions_.count(id); }

  iterator find(const std::string& id) {
    auto found = sessions_.find(id);
    if (found != sessions_.end()) note_fields(found->second);
    return found;
  }
  session_record& at(const std::string& id) {
    session_record& session = sessions_.at(id);
    note_fields(session);
    return session;
  }
  //! Adds a new session (its id must be new) and attaches its containers to the journal.
  session_record& emplace(session_record session) {
    const std::string id = session.id;
    session_record& added = sessions_.emplace(id, std::move(session)).first->second;
    added.attach(journal_);
    if (journal_ != nullptr) journal_->note([this, id] { sessions_.erase(id); });
    return added;
  }
  void erase(iterator at) {
    if (journal_ == nullptr || !journal_->recording()) {
      sessions_.erase(at);
      return;
    }
    // The node, not a copy: the records noted before keep pointing into it.
    auto node = std::make_shared<map_type::node_type>(sessions_.extract(at));
    journal_->note([this, node] { sessions_.insert(std::move(*node)); });
  }

 private:
  void note_fields(const session_record& session) {
    if (journal_ == nullptr || !journal_->recording()) return;
    journal_->note([this, id = session.id, next_seq = session.next_seq, turn = session.turn,
                    last_active = session.last_active, idle_timer = session.idle_timer] {
      session_record& restored = sessions_.at(id);
      restored.next_seq = next_seq;
      restored.turn = turn;
      restored.last_active = last_active;
      restored.idle_timer = idle_timer;
    });
  }

  map_type sessions_;
  undo_log* journal_ = nullptr;
};

struct pending_tool_call {
  std::string id;  // ours (TASK-9: never reused)
  std::string name;
  json arguments;
  std::size_t round_index = 0;   // its entry in `round`
  std::size_t output_index = 0;  // where its tool_call item sits in `output`
};

struct task_record {
  std::uint64_t serial = 0;  // also the task's timer key
  std::string uuid;
  task_status status = task_status::pending;  // lifecycle.hpp
  std::int64_t assistant_id = 0;
  time_ms created_at = 0;
  std::vector<tool_spec> client_tools;
  conversation_log conversation;
  std::uint64_t waiting_step = 0;
  std::vector<pending_tool_call> pending;
  //! What the model gets for each call of the current answer, in its order; unset
  //! entries are pending client tools.
  std::vector<std::pair<std::string, std::optional<std::string>>> round;
  std::optional<time_ms> interrupt_deadline;
  json output = json::array();
  std::optional<json> error;
  std::size_t steps = 0;
  std::uint64_t next_call = 1;
  //! The last request on the task or move of it; its idle time counts from here.
  time_ms last_active = 0;
  std::uint64_t idle_timer = 0;  // the key of its idle-expiry timer; 0 when none is armed
};

enum class timer_kind { client_expiry, call_deadline, task_interrupt, session_idle, task_idle };

struct timer_ref {
  timer_kind kind;
  std::string owner;  // session id or task uuid
  std::string id;     // client id or call id; empty for tasks
};

struct step_owner {
  model_step_request::owner_kind kind;
  std::string id;
};

class rule_policy;

struct state {
  state() {
    sessions.attach(&journal);
    session_by_token.attach(&journal);
    tasks.attach(&journal);
    waiting_steps.attach(&journal);
  }
  state(const state&) = delete;
  state& operator=(const state&) = delete;

  core_config config;
  //! Every decision point a fault may answer differently (policy.hpp); never null.
  std::shared_ptr<const rule_policy> policy;
  std::uint64_t next_serial = 1;
  std::uint64_t next_session = 1, next_client = 1, next_call = 1, next_turn = 1, next_task = 1;
  std::uint64_t next_step = 1;
  std::uint64_t token_counter = 0;
  //! What the command in progress changed (journal.hpp); the tables below note into it.
  undo_log journal;
  session_table sessions;
  journaled_map<std::string, std::string> session_by_token;
  journaled_map<std::string, task_record> tasks;
  journaled_map<std::uint64_t, step_owner> waiting_steps;
  std::set<std::pair<time_ms, std::uint64_t>> timers;
  std::map<std::uint64_t, std::pair<time_ms, timer_ref>> timer_refs;
  core_outputs pending;
  //! While the timers of one instant fire, turns whose step settled wait here (status
  //! settled), so the next step sees every change of that instant (e.g. a client expiring
  //! with it). Why not turn state: the flag is the core's, one for all sessions, and the
  //! list only orders the waiting turns; the turn's own status says that it waits.
  bool firing_timers = false;
  std::vector<std::string> deferred_turns;  // session ids
  //! The life-cycle points (lifecycle.hpp) this core has reached: coverage, never a
  //! decision. Set by move_noted and refusal_noted only.
  std::bitset<life_cycle_point_count> reached;

  std::uint64_t serial() { return next_serial++; }
};

// -- life cycles -------------------------------------------------------------------------
//! Moves `current` along its table (lifecycle.hpp `move`: throws, changing nothing, when
//! the table has no such move) and notes the row reached.
template <typename Event>
void move_noted(state& s, status_of<Event>& current, Event on) {
  if (s.config.before_move) s.config.before_move();
  const auto point = point_of_move(current, on);
  move(current, on);
  s.reached.set(*point);  // move threw when the table has no row
}

//! Notes a refusal SPEC answers (409) when `on` from `from` is one.
template <typename Event>
void refusal_noted(state& s, status_of<Event> from, Event on) {
  if (const auto point = point_of_refusal(from, on)) s.reached.set(*point);
}

// -- all or nothing (core.cpp) ---------------------------------------------------------
//! Runs `act` as one command, all or nothing: when it throws (a move the life-cycle
//! tables refuse is a core bug), every change it made is undone (the journal, the
//! counters, the coverage, the outputs not yet drained) and the error comes back as a
//! value, worded for the answer (500) and the front end's log. Nested calls join the
//! outermost command.
std::optional<api_error> atomically(state& s, const std::function<void()>& act);
//! The same for the core's own work, where no request waits for the answer (`what`: a
//! timer, a model reply, a turn's next step): a failure goes to core_outputs::internal_errors.
void atomically_or_report(state& s, std::string_view what, const std::function<void()>& act);

// -- timers (core.cpp) -----------------------------------------------------------------
void schedule(state& s, std::uint64_t key, time_ms at, timer_ref ref);
void cancel(state& s, std::uint64_t key);

// -- idle expiry (core.cpp) -------------------------------------------------------------
//! Arms the timer that forgets a session, or a task once it ended, after
//! core_config::idle_expiry_ms without activity; nothing when that is 0.
void arm_idle_expiry(state& s, session_record& session, time_ms now);
void arm_idle_expiry(state& s, task_record& task, time_ms now);

// -- events (core.cpp) -----------------------------------------------------------------
//! Logs `event` as the session's next event: its wire form (name and data) is encoded here,
//! once, and then shaped by the policy. Why typed: every event the core emits is built as
//! its SES-4 struct, so no event can miss a field or misspell its name.
void emit(state& s, session_record& session, const protocol::event& event, time_ms now);

// -- lookups (clients.cpp) -------------------------------------------------------------
protocol::outcome<session_record*> find_session(state& s, const std::string& sid);
//! A live client by id, to write: the whole record is noted for undo (journal.hpp).
protocol::outcome<client_record*> find_client(session_record& session, const std::string& cid);
//! The same, to read (no undo note): what a command that changes no member needs, or one
//! that changes a member through `session.clients.set_member`.
protocol::outcome<const client_record*> find_client(const session_record& session,
                                                    const std::string& cid);
//! A live client by id to read, or nullptr: for a lookup whose miss is no error.
const client_record* find_live_client(const session_record& session, const std::string& cid);
//! Whether `tools` has one named `name`.
bool declares_tool(const std::vector<tool_spec>& tools, const std::string& name);
//! Whether a live client of `session` has the (assigned) name.
bool name_taken(const session_record& session, const std::string& name);
//! REG-5's form: `requested`, or `<requested>_<n>` with the smallest n >= 2 not `taken`.
template <typename Taken>
std::string first_free_name(const std::string& requested, Taken taken) {
  if (!taken(requested)) return requested;
  for (std::uint64_t n = 2;; ++n) {
    std::string candidate = requested + "_" + std::to_string(n);
    if (!taken(candidate)) return candidate;
  }
}

// -- clients (clients.cpp) -------------------------------------------------------------
protocol::outcome<json> register_client(state& s, session_record& session, const json& body,
                                        time_ms now);
protocol::outcome<json> ping(state& s, session_record& session, const std::string& cid,
                             time_ms now);
protocol::outcome<json> put_tools(state& s, session_record& session, const std::string& cid,
                                  const json& body, time_ms now);
enum class departure { left, expired };
void end_client(state& s, session_record& session, std::uint64_t serial, departure why,
                time_ms now);
//! An ack or a result from `client`: LIFE-6 says it does not restart the TTL (policy.hpp).
void touch_ttl_on_call_traffic(state& s, session_record& session, const client_record& client,
                               time_ms now);
//! Restarts a live client's TTL from `now` (a ping, LIFE-2). Why not through find_client:
//! only the expiry is noted for undo, not the client's tools and open calls.
void restart_ttl(state& s, session_record& session, const client_record& client, time_ms now);

// -- calls (calls.cpp) -----------------------------------------------------------------
void dispatch_call(state& s, session_record& session, client_record& client, const tool_spec& tool,
                   json arguments, std::size_t slot, time_ms now);
protocol::outcome<json> ack(state& s, session_record& session, const std::string& cid,
                            const std::string& call_id, time_ms now);
protocol::outcome<json> post_result(state& s, session_record& session, const std::string& cid,
                                    const std::string& call_id, const json& body, time_ms now);
//! Fails an open call with a reason of client_tool_failed (SES-4); the reason names the
//! cause the call table is asked about (a deadline, a departure, an unavailable tool).
void fail_call(state& s, session_record& session, call_record& call, failure_reason reason,
               time_ms now);
//! TOOLS-5 for a name that designates a live client: records a call that fails at once,
//! never dispatched, and emits its client_tool_failed. The turn's slot is settled by the
//! caller (turns.cpp), since the model's error names the tool as the model called it.
void fail_unavailable_call(state& s, session_record& session, const client_record& client,
                           const std::string& tool, std::size_t slot, time_ms now);
void on_call_deadline(state& s, session_record& session, const std::string& call_id, time_ms now);
//! CALL-3: an acked call's deadline as the policy gives it, armed (or the old one kept).
void extend_deadline(state& s, const session_record& session, call_record& call, time_ms now);
//! The client_tool_completed and client_tool_failed events of a call (SES-4).
void emit_completed(state& s, session_record& session, const call_record& call, bool is_error,
                    time_ms now);
void emit_failed(state& s, session_record& session, const call_record& call, failure_reason reason,
                 time_ms now);

// -- turns (turns.cpp) -----------------------------------------------------------------
protocol::outcome<json> post_message(state& s, session_record& session, const json& body,
                                     time_ms now);
void turn_model_replied(state& s, session_record& session, const model_reply& reply, time_ms now);
//! A slot of the current step got its outcome; runs the next step once all have one.
void settle_slot(state& s, session_record& session, std::size_t slot, tool_outcome outcome,
                 time_ms now);
//! Runs the next step of each turn deferred while an instant's timers fired.
void run_deferred_turns(state& s, time_ms now);
//! The model-visible list of tools: `<client>__<tool>` for every live client (CALL-2).
offered_tools offered_tools_of(const state& s, const session_record& session);

// -- tasks (tasks.cpp) -----------------------------------------------------------------
protocol::outcome<json> create_task(state& s, const json& body, time_ms now);
protocol::outcome<json> get_task(const state& s, const std::string& uuid);
protocol::outcome<json> post_tool_results(state& s, const std::string& uuid, const json& body,
                                          time_ms now);
void task_model_replied(state& s, task_record& task, const model_reply& reply, time_ms now);
void on_interrupt_deadline(state& s, task_record& task, time_ms now);
//! Records one submitted result of a pending call: its output item (TASK-6) and what the
//! model will get for it (CALL-8). Does not take the call off `pending`.
void apply_result(const state& s, task_record& task, const pending_tool_call& call,
                  const tool_outcome& outcome);

// -- model steps (core.cpp) ------------------------------------------------------------
//! Queues a model step request for `owner` and returns its id.
std::uint64_t request_model_step(state& s, step_owner owner, json messages, offered_tools tools);

}  // namespace detail
}  // namespace toolwire::reference_server
