// Which turn or task each model request of a remote run works for, the hand-over of those
// requests to the run's model, and the answers back to the target.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <caf/actor.hpp>

#include "arrivals.hpp"
#include "target_routes.hpp"
#include "toolwire/protocol/api.hpp"
#include "toolwire/reference_server/core.hpp"

namespace toolwire::conformance::detail {

class recorder;
class stream_registry;
class transport;

//! Runs on the harness thread only. Learns owners from the suite's requests, numbers and
//! records the model steps, and tells the arrivals queue what the target owes after each
//! answer, so that the harness waits for it.
class model_router {
 public:
  model_router(transport& link, arrivals& inbox, const recorder& trace,
               const stream_registry& streams);

  //! What a successful response teaches about owners of model steps; the session the
  //! response created, if it did. `route` is `request` read through the route table.
  std::optional<std::string> learn(const request_route& route, const protocol::api_request& request,
                                   const protocol::api_response& response);

  //! Records the step and hands it to `model` (none attached: answers a model_failure).
  void deliver(model_arrival& item, const caf::actor& model);
  void model_replied(std::uint64_t step_id, const reference_server::model_reply& reply);
  //! The run ended: answers every model request still open or queued with a 503, and
  //! drops whatever else is queued.
  void refuse_all();

  //! Before the suite acts on a task whose model step was answered: polls until the task
  //! has left `processing` (bounded by request_timeout_ms).
  void await_answer_applied(const std::string& task_id);
  //! The same for every task whose model step was answered, before the target's clock
  //! moves: a task applies its answer at the target's now, and a clock that moved first
  //! would interrupt it later than the case's times say (TASK-7's deadline with it).
  void await_answers_applied();
  //! Whether a model step of `task_id` waits for the stand-in's answer.
  bool task_waits_for_model(const std::string& task_id) const;

 private:
  step_owner owner_of(const json& body) const;
  std::optional<std::string> learn_session(const json& body);
  void learn_task(const json& request_body, const json& response_body);
  void task_step_answered(std::uint64_t step_id, const reference_server::model_reply& reply);
  void turn_step_answered(std::uint64_t step_id, const reference_server::model_reply& reply);
  //! Whether `task_id` has asked the model again since its answer.
  bool asked_again(const std::string& task_id) const;

  transport& link_;
  arrivals& inbox_;
  const recorder& trace_;
  const stream_registry& streams_;
  std::map<std::uint64_t, model_responder> pending_steps_;
  std::map<std::uint64_t, std::string> turn_steps_;  // pending steps of session turns -> session
  std::map<std::uint64_t, std::string> task_steps_;  // pending steps of tasks -> task id
  std::map<std::string, std::set<std::string>> task_tools_;  // task id -> client tools declared
  std::set<std::string> answered_tasks_;  // a model step answered since the suite last acted
  std::uint64_t next_step_ = 1;
  std::vector<std::string> sessions_;  // created by this run, in order
  std::vector<std::string> tasks_;
};

}  // namespace toolwire::conformance::detail
