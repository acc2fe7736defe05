// The model router: owners of model steps, their hand-over, and the answers to the target.
#include "model_router.hpp"

#include <algorithm>
#include <thread>

#include <caf/all.hpp>

#include "recorder.hpp"
#include "stand_in_routes.hpp"
#include "stream_registry.hpp"
#include "target_routes.hpp"
#include "toolwire/actors/messages.hpp"
#include "toolwire/protocol/codec.hpp"
#include "toolwire/protocol/safe_json.hpp"
#include "transport.hpp"

namespace toolwire::conformance::detail {

namespace {

using std::chrono::milliseconds;

bool reads_processing(const protocol::api_response& response) {
  return response.status == 200 && response.body.is_object() &&
         response.body.value("status", json()) == json("processing");
}

// The two helpers below read a chat-completions body as core_actor.cpp reads the
// core's, so that a remote trace's model_step records compare with in-process ones;
// unlike the core's bodies, a remote body may be odd, so every access is checked.

json tool_names_of(const json& body) {
  json names = json::array();
  if (!body.contains("tools") || !body["tools"].is_array()) return names;
  for (const auto& tool : body["tools"]) {
    if (tool.is_object() && tool.contains("function") && tool["function"].is_object()) {
      names.push_back(protocol::string_at(tool["function"], "name"));
    }
  }
  return names;
}

//! The tool messages the model gets in this step: those after the last assistant message.
json new_tool_results(const json& body) {
  json results = json::array();
  if (!body.contains("messages") || !body["messages"].is_array()) return results;
  for (const auto& message : body["messages"]) {
    if (!message.is_object()) continue;
    const std::string role = protocol::string_at(message, "role");
    if (role == "assistant") results = json::array();
    if (role == "tool") {
      results.push_back({{"tool_call_id", message.value("tool_call_id", json())},
                         {"content", message.value("content", json())}});
    }
  }
  return results;
}

std::string dump_safely(const json& value) {
  // Why replace: an answer must go out even if a script holds invalid UTF-8.
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

model_router::model_router(transport& link, arrivals& inbox, const recorder& trace,
                           const stream_registry& streams)
    : link_(link), inbox_(inbox), trace_(trace), streams_(streams) {}

std::optional<std::string> model_router::learn(const request_route& route,
                                               const protocol::api_request& request,
                                               const protocol::api_response& response) {
  const auto id = route.id();
  if (!id) return std::nullopt;
  if (*id == protocol::route_id::create_session && response.status == 201) {
    return learn_session(response.body);
  }
  if (*id != protocol::route_id::create_task && *id != protocol::route_id::post_message) {
    return std::nullopt;
  }
  const json body = json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  if (*id == protocol::route_id::create_task && response.status == 201) {
    learn_task(body, response.body);
    return std::nullopt;
  }
  const auto sid = route.session_if(protocol::route_id::post_message);
  if (sid && response.status == 202 && body.is_object() && body.contains("content") &&
      body["content"].is_string()) {
    inbox_.name_owner(body["content"].get<std::string>(), {false, *sid});
  }
  return std::nullopt;
}

std::optional<std::string> model_router::learn_session(const json& body) {
  if (!body.is_object() || !body.contains("id") || !body["id"].is_string()) return std::nullopt;
  const std::string sid = body["id"];
  sessions_.push_back(sid);
  return sid;
}

void model_router::learn_task(const json& request_body, const json& response_body) {
  if (!response_body.is_object() || !response_body.contains("uuid") ||
      !response_body["uuid"].is_string()) {
    return;
  }
  const std::string uuid = response_body["uuid"];
  tasks_.push_back(uuid);
  if (!request_body.is_object()) return;
  auto& declared = task_tools_[uuid];
  if (request_body.contains("client_tools") && request_body["client_tools"].is_array()) {
    for (const auto& tool : request_body["client_tools"]) {
      if (tool.is_object() && tool.contains("name") && tool["name"].is_string()) {
        declared.insert(tool["name"].get<std::string>());
      }
    }
  }
  if (!request_body.contains("input") || !request_body["input"].is_array()) return;
  for (const auto& item : request_body["input"]) {
    if (item.is_object() && item.contains("text") && item["text"].is_string()) {
      inbox_.name_owner(item["text"].get<std::string>(), {true, uuid});
    }
  }
}

step_owner model_router::owner_of(const json& body) const {
  if (auto owner = inbox_.owner_by_text(user_texts(body))) return *owner;
  if (sessions_.size() == 1 && tasks_.empty()) return {false, sessions_.front()};
  if (tasks_.size() == 1 && sessions_.empty()) return {true, tasks_.front()};
  return {false, ""};
}

void model_router::deliver(model_arrival& item, const caf::actor& model) {
  const std::uint64_t step_id = next_step_++;
  const step_owner owner = owner_of(item.body);
  const std::uint64_t after = owner.task ? 0 : streams_.recorded_seq(owner.id);
  trace_.record("model_step", {{"step_id", step_id},
                               {"owner", owner.task ? "task" : "turn"},
                               {"owner_id", owner.id},
                               {"after_seq", after},
                               {"offered", tool_names_of(item.body)},
                               {"tool_results", new_tool_results(item.body)}});
  if (!model) {
    item.respond(500, error_answer("model_failure", "no model is attached to this run"));
    return;
  }
  pending_steps_[step_id] = std::move(item.respond);
  if (!owner.task) turn_steps_[step_id] = owner.id;
  if (owner.task) task_steps_[step_id] = owner.id;
  using kind = reference_server::model_step_request::owner_kind;
  // The target's request whole, as it came: the scripted model reads its messages alone.
  caf::anon_send(model, actors::model_step_atom::value,
                 reference_server::model_step_request{step_id,
                                                      owner.task ? kind::task : kind::turn,
                                                      owner.id,
                                                      after,
                                                      std::move(item.body),
                                                      {}});
}

void model_router::model_replied(std::uint64_t step_id,
                                 const reference_server::model_reply& reply) {
  auto it = pending_steps_.find(step_id);
  if (it == pending_steps_.end()) return;
  auto respond = std::move(it->second);
  pending_steps_.erase(it);
  task_step_answered(step_id, reply);
  turn_step_answered(step_id, reply);
  if (reply.answer) {
    respond(200, dump_safely(protocol::to_chat_completion(*reply.answer)));
  } else {
    respond(500, error_answer("model_failure", reply.failure));
  }
  inbox_.note_activity();  // the target goes on from here: wait for what follows
}

void model_router::task_step_answered(std::uint64_t step_id,
                                      const reference_server::model_reply& reply) {
  auto task = task_steps_.find(step_id);
  if (task == task_steps_.end()) return;
  // TASK-8: calls that name none of the task's client tools get error results at once
  // and the model is asked again; any declared one interrupts the task instead.
  const auto& declared = task_tools_[task->second];
  if (reply.answer && !reply.answer->tool_calls.empty() &&
      std::none_of(reply.answer->tool_calls.begin(), reply.answer->tool_calls.end(),
                   [&](const auto& call) { return declared.contains(call.name); })) {
    const auto owner = arrivals::task_owner(task->second);
    inbox_.await_models(owner, inbox_.models_of(owner) + 1);
  }
  answered_tasks_.insert(task->second);
  task_steps_.erase(task);
}

void model_router::turn_step_answered(std::uint64_t step_id,
                                      const reference_server::model_reply& reply) {
  auto turn = turn_steps_.find(step_id);
  if (turn == turn_steps_.end()) return;
  // A turn goes on visibly: calls dispatched or failed, or the turn completes or fails.
  // (Once one stream has the event, the others are awaited too: arrivals::follow_stream.)
  inbox_.await_turn_goes_on(turn->second);
  inbox_.await_step_settled(turn->second, reply.answer ? reply.answer->tool_calls.size() : 0);
  inbox_.turn_answered(turn->second);
  turn_steps_.erase(turn);
}

void model_router::refuse_all() {
  const std::string ended = error_answer("unavailable", "the run ended");
  for (auto& [id, respond] : pending_steps_)
    respond(503, ended);
  pending_steps_.clear();
  for (auto& item : inbox_.take_all()) {
    if (auto* step = std::get_if<model_arrival>(&item)) step->respond(503, ended);
  }
}

void model_router::await_answer_applied(const std::string& task_id) {
  // Why: once the stand-in has answered a task's model step, the task leaves `processing`
  // without further input, but the suite's next request could overtake the target applying
  // the answer (nothing on the wire tells when it has). So the suite polls, as a Part B
  // caller does, before it acts on the task; these polls are not part of the case's trace.
  // A target that stays in processing is still seen: the wait is bounded.
  if (answered_tasks_.erase(task_id) == 0) return;
  const auto& profile = link_.profile();
  protocol::api_request poll;
  poll.method = "GET";
  poll.path = protocol::route_path(protocol::route_id::get_task, {task_id});
  poll.credential = profile.api_key;
  const auto give_up = std::chrono::steady_clock::now() + milliseconds(profile.request_timeout_ms);
  while (!asked_again(task_id) && std::chrono::steady_clock::now() < give_up &&
         reads_processing(link_.send(poll))) {
    std::this_thread::sleep_for(milliseconds(std::max<std::int64_t>(1, profile.settle_ms)));
  }
}

bool model_router::asked_again(const std::string& task_id) const {
  // A task that has asked the model again is processing on purpose (TASK-8, or a step
  // the stand-in holds): its request may wait in the inbox, not yet handed over.
  return task_waits_for_model(task_id) || inbox_.model_queued([&](const json& body) {
    const auto owner = owner_of(body);
    return owner.task && owner.id == task_id;
  });
}

void model_router::await_answers_applied() {
  const std::vector<std::string> answered(answered_tasks_.begin(), answered_tasks_.end());
  for (const auto& task_id : answered)
    await_answer_applied(task_id);
}

bool model_router::task_waits_for_model(const std::string& task_id) const {
  return std::any_of(task_steps_.begin(), task_steps_.end(),
                     [&](const auto& step) { return step.second == task_id; });
}

}  // namespace toolwire::conformance::detail
