// Small builders for scenarios written in C++: tools, clients and scripted model steps.
// The YAML loader and writer, explore's generator, the bench and the tests share them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "toolwire/scenarios/scenario.hpp"

namespace toolwire::scenarios::build {

//! A tool `{name, description, parameters: {"type": "object"}}`.
inline protocol::tool_spec tool(std::string name,
                                std::string description = "a tool of the simulated app") {
  return {std::move(name), std::move(description), json{{"type", "object"}}};
}

inline std::vector<protocol::tool_spec> tools(const std::vector<std::string>& names) {
  std::vector<protocol::tool_spec> list;
  for (const auto& name : names)
    list.push_back(tool(name));
  return list;
}

//! A client with no behaviour knobs set yet; the presets set them.
inline client_spec client(std::string actor, std::string requested_name,
                          std::vector<protocol::tool_spec> tool_list) {
  client_spec spec;
  spec.actor = std::move(actor);
  spec.requested_name = std::move(requested_name);
  spec.tools = std::move(tool_list);
  return spec;
}

using model_calls = std::vector<std::pair<std::string, json>>;

//! A scripted model answer with tool calls (model-side names, e.g. `web__read_form`).
inline json call_step(const model_calls& calls) {
  json tool_calls = json::array();
  for (const auto& [name, arguments] : calls) {
    tool_calls.push_back({{"name", name}, {"arguments", arguments}});
  }
  return {{"tool_calls", tool_calls}};
}

//! A scripted model answer with text only (the turn completes).
inline json text_step(const std::string& text) {
  return {{"content", text}};
}

//! The director posts `content` as the user's message at `at` (SES-2).
inline scripted_step message_at(time_ms at, std::string content) {
  return {at, "director", "post_message", {{"content", std::move(content)}}, {}, ""};
}

//! A model script whose one rule answers every conversation with `steps`.
inline json script(json steps) {
  return {{"rules", json::array({{{"match", ""}, {"steps", std::move(steps)}}})}};
}

}  // namespace toolwire::scenarios::build
