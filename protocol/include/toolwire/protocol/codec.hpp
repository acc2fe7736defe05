// JSON codecs for the wire types, and the OpenAI-compatible chat-completions shapes (SPEC 8).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "toolwire/protocol/outcome.hpp"
#include "toolwire/protocol/types.hpp"

namespace toolwire::protocol {

json to_json(const tool_spec& tool);
json to_json(const lifetime& life);
json to_json(const std::vector<tool_spec>& tools);

//! Writes tools in the OpenAI function shape, `{"type": "function", "function": {"name",
//! "description", "parameters"}}` (MODEL-1), one after another onto the end of `out`, as
//! `json::dump` writes them (keys sorted, no spaces; invalid UTF-8 as U+FFFD). Why text and
//! not a JSON value: a model step offers every live client's tools, and with 10,000 clients
//! a tree of them was built, serialized and freed at every step.
class openai_tool_writer {
 public:
  explicit openai_tool_writer(std::string& out) : out_(out) {}
  openai_tool_writer(const openai_tool_writer&) = delete;
  openai_tool_writer& operator=(const openai_tool_writer&) = delete;

  void write(std::string_view name, const tool_spec& tool);

 private:
  std::string& out_;
};

//! How an outcome reaches the model as a tool message's content (CALL-8):
//! a string as itself, other JSON as its serialization, an error as
//! `{"error": {"reason", "message"}}` serialized.
std::string model_content(const tool_outcome& outcome);

//! Parses a chat-completions response body (MODEL-2). The error says what is malformed.
outcome<model_answer> parse_chat_completion(const json& response);

//! The answer as an assistant message (MODEL-1, MODEL-2): `content` (null without text)
//! and, when there are calls, `tool_calls`.
json to_assistant_message(const model_answer& answer);

//! A chat-completions response carrying `answer` (what a model or a stand-in sends).
json to_chat_completion(const model_answer& answer);

}  // namespace toolwire::protocol
