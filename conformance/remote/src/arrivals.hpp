// What reaches a run from outside the actor system (stream events, model requests,
// transport trouble), queued by I/O threads and handed over by the harness thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "open_steps.hpp"
#include "toolwire/conformance/sse_parser.hpp"

namespace toolwire::conformance::detail {

//! An item read from an event stream; `stream_id` says whose (see remote_host).
struct stream_arrival {
  std::uint64_t stream_id = 0;
  std::variant<reference_server::session_event, stream_gap> item;
};

//! Answers a model request: an HTTP status and a JSON body text. Callable from any thread;
//! only the first call counts.
using model_responder = std::function<void(int status, std::string body)>;

//! A chat-completions request the stand-in routed to this run.
struct model_arrival {
  json body;
  model_responder respond;
};

//! Something the transport got wrong (malformed SSE, a stream that dropped), for the trace.
struct transport_arrival {
  std::uint64_t stream_id = 0;  // 0: not about a stream
  std::string what;
  bool ended = false;  // the stream is over
};

using arrival = std::variant<stream_arrival, model_arrival, transport_arrival>;

//! Who a model request works for, learnt from the requests that started turns and tasks.
struct step_owner {
  bool task = false;
  std::string id;  // session id (turn) or task uuid
};

//! A thread-safe queue that also knows when the run last heard from or spoke to the target.
class arrivals {
 public:
  using clock_type = std::chrono::steady_clock;

  void push(arrival item);

  //! The harness spoke to the target (a request, a clock move, a model answer): quiet is
  //! measured from now on, because the target may still be reacting.
  void note_activity();

  //! Whose model requests are told apart: a turn's (by its session) or a task's, each
  //! named by the user text that started it (the message's content, the task's input),
  //! which model_router learns from the suite's requests. Why: a count of all model
  //! requests let a task's step stand in for the one a turn owed, and the harness moved on
  //! before the turn's came (explore with no settle time).
  static std::string turn_owner(const std::string& session) { return "turn " + session; }
  static std::string task_owner(const std::string& task) { return "task " + task; }
  static std::string owner_key(const step_owner& owner) {
    return owner.task ? task_owner(owner.id) : turn_owner(owner.id);
  }
  //! Model requests whose latest known user text is `text` are `owner`'s, also those that
  //! arrived before it was named.
  void name_owner(const std::string& text, const step_owner& owner);
  //! The owner of a model request with these user texts: that of the latest one named.
  //! The one table of owners by text, asked by model_router and by the counts here.
  std::optional<step_owner> owner_by_text(const std::vector<std::string>& texts);
  //! How many model requests of `owner` have arrived so far.
  std::uint64_t models_of(const std::string& owner);
  //! Work the target owes: quiet is not reached before `total` model requests of `owner`
  //! have arrived, whatever the settle time. A 202 to a message implies a model request
  //! (SES-2); on a loaded machine it can take longer than any settle time. A request the
  //! harness cannot tell the owner of counts for every owner, so a target that rewrites
  //! the texts costs settle time, not a wait to the bound.
  void await_models(const std::string& owner, std::uint64_t total);
  //! A model step of `session`'s turn was answered: the turn goes on visibly. Either a
  //! call is dispatched or the turn ends (an event an answer makes, made_by_an_answer,
  //! other than a call failed as the answer is applied, TOOLS-5), or no call could be
  //! dispatched and the next model request comes at once. Why not any event: a tool_unavailable
  //! failure is followed by that model request, and a harness that stopped waiting at the failure
  //! missed it.
  void await_turn_goes_on(const std::string& session);
  //! A model step of `session`'s turn was answered with `calls` tool calls: once events
  //! have settled all of them, the next model step is owed (CALL-9), however long the
  //! target takes to build it (a long conversation, a loaded machine).
  void await_step_settled(const std::string& session, std::size_t calls);
  //! A model step of `session`'s turn was answered. Until the answer shows its effect (an
  //! event an answer makes, made_by_an_answer, or a model request), a request the suite sends now
  //! could reach the target before it applied the answer: an order the reference never shows, as it
  //! applies an answer due at an instant before anything else due then.
  void turn_answered(const std::string& session);
  //! Waits until every answered turn step has shown its effect, or `bound` passed; true
  //! when one of them brought events not yet taken (the caller hands them over before its
  //! request, as in-process), false when none was awaited. Once a wait has run to its bound,
  //! answers are no longer awaited in this run: a target that shows nothing costs one bound per
  //! run, not one per request.
  bool await_turn_answers_applied(std::chrono::milliseconds bound);
  //! The latest event seq that arrived on any followed stream of `session` (0: none).
  std::uint64_t latest_seq_of(const std::string& session);
  //! An event a 2xx answer implied (target_routes.hpp): of `session`, of `type`, the
  //! field `key` of its data being `id`.
  struct awaited_event {
    std::string session, type, key, id;
    friend auto operator<=>(const awaited_event&, const awaited_event&) = default;
  };
  //! While a followed stream of the session would carry `event`, quiet is not reached
  //! before it has arrived (it may have already: it can come before the answer), however
  //! long the target takes to send it. Why by what it is, not by its seq: another event of
  //! the session (a PUT's client_tools_updated sent just before a DELETE's departure)
  //! would stand in for it. Once such a wait has run to its bound, implied events are no
  //! longer awaited in this run: a target that does not send them costs one bound per
  //! run, not one per request.
  void await_event(awaited_event event);

  //! Stream `stream_id` follows the events of `session` from now on. Every stream of a
  //! session gets every event after it opened (SES-3), but each on its own socket: quiet is
  //! not reached while one of them lags behind the session's latest event seen on another,
  //! since the participant reading it may act on that event next.
  void follow_stream(std::uint64_t stream_id, const std::string& session);
  //! The stream was closed or ended: nothing more is owed on it.
  void forget_stream(std::uint64_t stream_id);

  //! How many items were queued so far, and a wait until one more is or `bound` passed
  //! (false: none came), for a caller that knows bytes are on their way.
  std::uint64_t pushed();
  bool wait_for_push(std::uint64_t since, std::chrono::microseconds bound);

  //! Waits until something is queued or `deadline` passes (a real clock's wait for the
  //! next due step: anything the target sends cuts it short).
  void wait_for_item(clock_type::time_point deadline);

  //! Waits until nothing arrived and nothing was sent for `settle` and nothing awaited is
  //! missing, or `bound` passed; takes nothing (take_all does, once the caller has also
  //! seen no stream hold unread bytes; a real clock's harness moves its clock to the wall
  //! clock first, so arrivals are recorded at the time they were taken, never earlier).
  void wait_quiet(std::chrono::milliseconds settle, std::chrono::milliseconds bound);

  //! The latest arrival time before `before` of what is queued (arrival order is time
  //! order), if anything arrived before then.
  std::optional<clock_type::time_point> latest_before(clock_type::time_point before);
  //! Takes, in order, what arrived by `by`, without waiting.
  std::vector<arrival> take_arrived_by(clock_type::time_point by);

  //! Whether a model request whose body `body_matches` is queued (arrived, not yet taken).
  bool model_queued(const std::function<bool(const json&)>& body_matches);

  //! Takes what the streams brought (events, transport trouble) without waiting, and
  //! leaves model requests queued: when the model answers them is the run's to decide.
  std::vector<arrival> take_events();

  //! Takes everything queued without waiting.
  std::vector<arrival> take_all();

 private:
  void wait_quiet(std::unique_lock<std::mutex>& lock, std::chrono::milliseconds settle,
                  std::chrono::milliseconds bound);
  //! The latest seq seen on any followed stream of `session`.
  std::uint64_t latest_of(const std::string& session) const;
  //! Whether an answered turn step has not yet shown how its turn goes on.
  bool turn_not_gone_on();
  //! Whether a followed stream owes events another stream of its session already got.
  bool a_stream_lags() const;
  //! Whether an event a 2xx answer implied has not arrived on a followed stream.
  bool an_implied_event_is_missing() const;
  //! Stops awaiting what lagging streams owe (the wait's bound passed).
  void stop_awaiting_streams();

  struct followed {
    std::string session;
    std::uint64_t from_seq = 0;  // the session's latest seq when the stream was followed
  };
  std::map<std::uint64_t, followed> followed_;
  std::map<std::uint64_t, std::uint64_t> latest_seq_;  // per stream, of what it delivered

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<arrival> queue_;
  std::deque<clock_type::time_point> arrived_at_;  // when each queued item arrived
  std::uint64_t pushed_ = 0;
  clock_type::time_point last_change_ = clock_type::now();
  //! Counted for its owner: owner_of_text_ knows the latest of its user texts.
  bool count_model(const std::vector<std::string>& texts);
  bool models_missing() const;
  std::map<std::string, step_owner> owner_of_text_;
  const step_owner* latest_named(const std::vector<std::string>& texts) const;
  std::map<std::string, std::uint64_t> models_of_;        // per owner
  std::vector<std::vector<std::string>> unowned_models_;  // user texts of each
  std::map<std::string, std::uint64_t> models_awaited_;   // per owner
  //! A wait for an owed model request ran to its bound: none is awaited for the rest of
  //! the run, so a target that does not send them costs one bound per run, not one per
  //! step (explore's shrinking of a task fault took 68 s of such bounds).
  bool models_given_up_ = false;
  //! await_turn_goes_on: a model request beyond `models`, or a telling event of `session`
  //! beyond `events` (counted in telling_events_).
  struct turn_going_on {
    std::string session;
    std::uint64_t models = 0, events = 0;  // the turn's model requests, telling events
  };
  std::optional<turn_going_on> turn_goes_on_;
  std::map<std::string, std::uint64_t> telling_events_;
  //! Per session: events an answer's application makes (made_by_an_answer) that arrived.
  std::map<std::string, std::uint64_t> answer_events_;
  std::set<awaited_event> events_awaited_;
  //! What arrived, named the ways an implied event is awaited: (session, type, key, id)
  //! for each of the ids (client_id, call_id) the event's data carries.
  std::set<awaited_event> events_arrived_;
  bool implied_events_given_up_ = false;
  //! Per session: events that arrived on its followed streams, and the answered turn steps
  //! awaited, with what had arrived of the session when it was answered.
  std::map<std::string, std::uint64_t> session_events_;
  struct answer_awaited {
    std::uint64_t models = 0;         // the turn's model requests
    std::uint64_t events = 0;         // the session's events (session_events_)
    std::uint64_t answer_events = 0;  // of them, those an answer makes (answer_events_)
  };
  std::map<std::string, answer_awaited> turn_answers_awaited_;
  bool turn_answers_given_up_ = false;
  //! Per session: its events taken from the queue so far (counted as session_events_).
  std::map<std::string, std::uint64_t> session_events_taken_;
  void note_taken(const arrival& item);
  open_steps open_steps_;
};

}  // namespace toolwire::conformance::detail
