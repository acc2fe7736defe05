// Runs one scenario on a clean core and on a one-fault core; shared scenario steps.
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "support/core_harness.hpp"

namespace toolwire::testing::faults {

//! What one scenario observed on each core. JSON, so that a failing CHECK prints both.
struct contrast {
  json clean;
  json faulty;
};

//! Runs `scenario` (a `(core_harness&) -> json` callable) on a fresh clean core, then on a
//! fresh core with only `planted`. Both cores start from the same configuration and
//! clock, so any difference between the two observations is the fault's doing.
template <typename Scenario>
contrast run_clean_and_faulty(reference_server::fault planted, Scenario scenario) {
  json on_clean;
  {
    INFO("scenario on the clean core");
    core_harness clean{default_config()};
    on_clean = scenario(clean);
  }
  json on_faulty;
  {
    INFO("scenario on the core with the fault");
    core_harness faulty{default_config({planted})};
    on_faulty = scenario(faulty);
  }
  return {std::move(on_clean), std::move(on_faulty)};
}

// -- session scenario steps ------------------------------------------------------------

inline std::string messages_path(const std::string& sid) {
  return "/v1/sessions/" + sid + "/messages";
}

inline std::string events_path(const std::string& sid) {
  return "/v1/sessions/" + sid + "/events";
}

//! SES-2: starts a model turn; REQUIREs 202.
inline void start_turn(core_harness& h, const std::string& sid, const std::string& text = "go") {
  const auto response = h.request("POST", messages_path(sid), {{"content", text}});
  INFO(response.body.dump());
  REQUIRE(response.status == 202);
}

//! The `<client>__<tool>` names offered in the next model step (consumes that step).
inline json offered_in_next_step(core_harness& h) {
  return json(core_harness::offered_names(h.next_model_step()));
}

//! A session with one client `web` offering `read`, whose turn's first model step
//! called `web__read` `count` times (arguments `{"n": i}`), all dispatched.
struct dispatched_turn {
  std::string sid;
  std::string cid;
  std::vector<std::string> calls;  // call ids, in the model's order
};

inline dispatched_turn dispatch_reads(core_harness& h, std::size_t count,
                                      const json& lifetime = core_harness::never()) {
  dispatched_turn turn;
  turn.sid = h.create_session();
  turn.cid = h.register_client(turn.sid, "web", lifetime,
                               json::array({core_harness::tool("read")}))["client_id"];
  start_turn(h, turn.sid);
  std::vector<std::pair<std::string, json>> calls;
  for (std::size_t i = 0; i < count; ++i)
    calls.push_back({"web__read", {{"n", i}}});
  h.answer_calls(h.next_model_step().step_id, calls);
  turn.calls = h.dispatched_calls(turn.sid);
  REQUIRE(turn.calls.size() == count);
  return turn;
}

//! CALL-4: posts `{"content": content}` as the result of `call_id`; returns the status.
inline int post_content(core_harness& h, const dispatched_turn& turn, const std::string& call_id,
                        const json& content) {
  return h
      .request("POST", h.call_path(turn.sid, turn.cid, call_id) + "/result", {{"content", content}})
      .status;
}

//! The `reason` of every `client_tool_failed` event of `sid`, in order.
inline json failure_reasons(const core_harness& h, const std::string& sid) {
  json reasons = json::array();
  for (const auto& event : h.events_of(sid, "client_tool_failed")) {
    reasons.push_back(event.data["reason"]);
  }
  return reasons;
}

//! How many events of `type` session `sid` has emitted.
inline std::size_t count_events(const core_harness& h, const std::string& sid,
                                const std::string& type) {
  return h.events_of(sid, type).size();
}

// -- task scenario steps ---------------------------------------------------------------

inline json task_tool(const std::string& name) {
  return {{"name", name}, {"description", "a client tool of the task"}};
}

//! TASK-1: creates a task offering `locate`; REQUIREs 201 and returns its uuid.
inline std::string create_locate_task(core_harness& h) {
  const auto response =
      h.request("POST", "/api/tasks",
                {{"assistant_id", 1},
                 {"input", json::array({{{"type", "text"}, {"text", "where am I?"}}})},
                 {"client_tools", json::array({task_tool("locate")})}});
  INFO(response.body.dump());
  REQUIRE(response.status == 201);
  return response.body.at("uuid");
}

//! TASK-2: the task's GET body; REQUIREs 200.
inline json get_task(core_harness& h, const std::string& uuid) {
  const auto response = h.request("GET", "/api/tasks/" + uuid);
  REQUIRE(response.status == 200);
  return response.body;
}

inline std::string tool_results_path(const std::string& uuid) {
  return "/api/tasks/" + uuid + "/tool-results";
}

//! The ids of a task's `pending_tool_calls` (empty when it is not interrupted).
inline std::vector<std::string> pending_ids(const json& task) {
  std::vector<std::string> ids;
  if (!task.contains("pending_tool_calls")) return ids;
  for (const auto& call : task["pending_tool_calls"])
    ids.push_back(call["id"]);
  return ids;
}

}  // namespace toolwire::testing::faults
