// The inside of a remote_host, shared by the host (harness side) and its target actor.
// Everything but the I/O context's own work runs on the harness thread: the actors run
// there on the test coordinator, and so do deliver_arrivals and clock_moves.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <caf/all.hpp>

#include "arrivals.hpp"
#include "event_stream.hpp"
#include "toolwire/actors/run_context.hpp"
#include "toolwire/conformance/http_client.hpp"
#include "toolwire/conformance/model_stand_in.hpp"
#include "toolwire/conformance/remote_host.hpp"

namespace toolwire::conformance {

//! Who a model request works for, learnt from the requests that started turns and tasks.
struct step_owner {
  bool task = false;
  std::string id;  // session id (turn) or task uuid
};

struct remote_host::state {
  target_profile profile;
  std::string tag;
  std::shared_ptr<model_stand_in> stand_in;
  std::shared_ptr<detail::arrivals> inbox = std::make_shared<detail::arrivals>();
  std::unique_ptr<http_client> client;
  detail::stream_settings streams_at;
  boost::asio::io_context io;  // event streams
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> io_work{
      io.get_executor()};
  std::thread io_thread;

  caf::actor_system* system = nullptr;
  actors::run_context* context = nullptr;
  caf::actor model;

  struct open_stream {
    caf::actor subscriber;
    bool monitor = false;  // the run's own stream: its events go to the trace
    std::string session_id;
    std::shared_ptr<detail::event_stream> stream;
  };
  std::map<std::uint64_t, open_stream> streams;
  std::uint64_t next_stream = 1;
  std::map<std::uint64_t, detail::model_responder> pending_steps;
  std::map<std::uint64_t, std::string> turn_steps;  // pending steps of session turns -> session
  std::map<std::uint64_t, std::string> task_steps;  // pending steps of tasks -> task id
  std::map<std::string, std::set<std::string>> task_tools;  // task id -> client tools declared
  std::set<std::string> answered_tasks;  // a model step answered since the suite last acted
  std::uint64_t next_step = 1;
  std::map<std::string, std::uint64_t> monitored_seq;  // session -> last event recorded
  std::map<std::string, step_owner> owners;            // user message text -> owner
  std::vector<std::string> sessions;                   // created by this run, in order
  std::vector<std::string> tasks;
  bool stopped = false;
  //! When the run started (its actors' time 0): a real-clock run's wall time counts from here.
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

  ~state();

  //! Before the suite acts on a task whose model step was answered: polls until the task
  //! has left `processing` (bounded by request_timeout_ms).
  void await_answer_applied(const std::string& task_id);
  //! The same for every task whose model step was answered, before the target's clock
  //! moves: a task applies its answer at the target's now, and a clock that moved first
  //! would interrupt it later than the case's times say (TASK-7's deadline with it).
  void await_answers_applied();
  //! Whether a model step of `task_id` waits for the stand-in's answer.
  bool task_waits_for_model(const std::string& task_id) const;

  //! The actor clock's milliseconds since the run started.
  actors::time_ms elapsed() const;
  //! Appends a target record when the run records.
  void record(const std::string& kind, json data) const;

  //! A participant's request: the client, or an event stream for an events route.
  protocol::api_response request(const caf::actor& sender, const protocol::api_request& request);
  protocol::api_response request_unguarded(const caf::actor& sender,
                                           const protocol::api_request& request);
  void close_streams(const caf::actor& subscriber, const std::string& session_id);
  void model_replied(std::uint64_t step_id, const reference_server::model_reply& reply);
  //! The target's `now`: its virtual clock (CLOCK-1), else the wall clock; nullopt when
  //! the clock route failed.
  std::optional<actors::time_ms> target_now();

  //! Opens a stream for `subscriber` (or the monitor) and waits, bounded, for the GET's
  //! answer. The stream is kept only when it opened.
  protocol::api_response open(const protocol::api_request& request, const std::string& session_id,
                              caf::actor subscriber, bool monitor);
  //! What a successful response teaches: sessions to monitor, owners of model steps.
  void learn(const protocol::api_request& request, const protocol::api_response& response);
  void deliver(detail::stream_arrival& item);
  void deliver(const detail::transport_arrival& item);
  void deliver(detail::model_arrival& item);
  //! Hands `items` over (events first, then model requests); false when there are none.
  bool deliver_all(std::vector<detail::arrival> items);
  step_owner owner_of(const json& body) const;
  void shut_down();
};

//! The target actor of a remote run (see target.hpp), backed by `host`.
actors::target_actor spawn_remote_target(caf::actor_system& system, remote_host::state* host);

}  // namespace toolwire::conformance
