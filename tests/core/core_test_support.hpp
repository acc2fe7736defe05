// Shared helpers of the core tests: a session on the harness and short names for its routes.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/core_harness.hpp"

namespace toolwire::core_test {

using protocol::api_response;
using protocol::json;
using protocol::time_ms;
using reference_server::model_step_request;
using reference_server::session_event;
using testing::admin_key;
using testing::core_harness;
using testing::reader_key;
using testing::start_time;

using credential = std::optional<std::string>;
using model_calls = std::vector<std::pair<std::string, json>>;

//! The `error.type` of an error response (C-2), or "" when the body has none.
inline std::string error_type(const api_response& response) {
  if (!response.body.is_object() || !response.body.contains("error")) return "";
  return response.body["error"].value("type", "");
}

//! A tool list of `{"name", "description", "parameters"}` declarations.
inline json tool_list(const std::vector<std::string>& names) {
  json tools = json::array();
  for (const auto& name : names)
    tools.push_back(core_harness::tool(name));
  return tools;
}

//! `unit` repeated `times` times.
inline std::string repeat(const std::string& unit, std::size_t times) {
  std::string text;
  text.reserve(unit.size() * times);
  for (std::size_t i = 0; i < times; ++i)
    text += unit;
  return text;
}

//! The content of the tool message answering `model_call_id` in a step's conversation.
inline std::optional<std::string> tool_content(const model_step_request& step,
                                               const std::string& model_call_id) {
  for (const auto& message : core_harness::tool_messages(step)) {
    if (message["tool_call_id"] == model_call_id) return message["content"].get<std::string>();
  }
  return std::nullopt;
}

//! The ids the model gave its tool calls in the last assistant message of a step.
inline std::vector<std::string> last_model_call_ids(const model_step_request& step) {
  std::vector<std::string> ids;
  const json& messages = step.conversation["messages"];
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    if ((*it)["role"] != "assistant") continue;
    if (it->contains("tool_calls")) {
      for (const auto& call : (*it)["tool_calls"])
        ids.push_back(call["id"]);
    }
    break;
  }
  return ids;
}

//! One session on a fresh harness, with shortcuts for its routes (all through the router).
struct session_fixture {
  core_harness h;
  std::string sid;

  explicit session_fixture(reference_server::core_config config = testing::default_config())
      : h(std::move(config)), sid(h.create_session()) {}

  //! Registers a client; returns the 201 body.
  json add(const std::string& name, const std::vector<std::string>& tools = {},
           const json& lifetime = core_harness::never()) {
    return h.register_client(sid, name, lifetime, tool_list(tools));
  }
  api_response register_raw(const json& body, credential who = admin_key) {
    return h.request("POST", h.clients_path(sid), body, std::move(who));
  }
  api_response ping(const std::string& cid, credential who = admin_key) {
    return h.request("POST", h.client_path(sid, cid) + "/ping", json(), std::move(who));
  }
  api_response put_tools(const std::string& cid, const json& tools, credential who = admin_key) {
    return h.request("PUT", h.client_path(sid, cid) + "/tools", {{"tools", tools}}, std::move(who));
  }
  api_response remove(const std::string& cid, credential who = admin_key) {
    return h.request("DELETE", h.client_path(sid, cid), json(), std::move(who));
  }
  api_response ack(const std::string& cid, const std::string& call_id, credential who = admin_key) {
    return h.request("POST", h.call_path(sid, cid, call_id) + "/ack", json(), std::move(who));
  }
  api_response result(const std::string& cid, const std::string& call_id, const json& body,
                      credential who = admin_key) {
    return h.request("POST", h.call_path(sid, cid, call_id) + "/result", body, std::move(who));
  }
  api_response content(const std::string& cid, const std::string& call_id, const json& value) {
    return result(cid, call_id, {{"content", value}});
  }
  api_response message(const std::string& text, credential who = admin_key) {
    return h.request("POST", "/v1/sessions/" + sid + "/messages", {{"content", text}},
                     std::move(who));
  }
  api_response open_events(credential who = admin_key,
                           std::optional<std::string> last_event_id = std::nullopt) {
    return h.request("GET", "/v1/sessions/" + sid + "/events", json(), std::move(who),
                     std::move(last_event_id));
  }

  //! Posts a message (REQUIREs 202) and returns the turn id.
  std::string start_turn(const std::string& text = "go") {
    auto response = message(text);
    INFO(response.body.dump());
    REQUIRE(response.status == 202);
    return response.body.at("turn_id");
  }
  model_step_request step() { return h.next_model_step(); }

  //! Answers `step` with `calls`; returns the call ids dispatched by that answer, in order.
  std::vector<std::string> answer_calls(const model_step_request& step, const model_calls& calls) {
    const std::size_t before = h.dispatched_calls(sid).size();
    h.answer_calls(step.step_id, calls);
    auto all = h.dispatched_calls(sid);
    return {all.begin() + static_cast<std::ptrdiff_t>(before), all.end()};
  }
  //! Starts a turn and answers its first step with `calls`; returns the dispatched ids.
  std::vector<std::string> turn_with_calls(const model_calls& calls) {
    start_turn();
    return answer_calls(step(), calls);
  }

  std::vector<session_event> events(const std::string& type = "") const {
    return h.events_of(sid, type);
  }
  std::size_t event_count() const { return h.events_of(sid).size(); }
  std::optional<session_event> find(const std::string& type, const json& match = json::object()) {
    return h.find_event(sid, type, match);
  }
  //! How many client_tool_completed and client_tool_failed events name `call_id` (CALL-5).
  std::size_t settlements(const std::string& call_id) const {
    std::size_t n = 0;
    for (const auto& event : h.events_of(sid)) {
      if ((event.type == "client_tool_completed" || event.type == "client_tool_failed") &&
          event.data.value("call_id", "") == call_id) {
        ++n;
      }
    }
    return n;
  }
};

}  // namespace toolwire::core_test
