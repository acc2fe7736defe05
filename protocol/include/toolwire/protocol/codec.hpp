// JSON codecs for the wire types, and the OpenAI-compatible chat-completions shapes (SPEC 8).
#pragma once

#include <string>
#include <vector>

#include "toolwire/protocol/outcome.hpp"
#include "toolwire/protocol/types.hpp"

namespace toolwire::protocol {

json to_json(const tool_spec& tool);
json to_json(const lifetime& life);
json to_json(const std::vector<tool_spec>& tools);

//! `{"type": "function", "function": {"name", "description", "parameters"}}` (MODEL-1).
json to_openai_tool(const std::string& name, const tool_spec& tool);

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
