// JSON codecs for wire types and the chat-completions shapes of the model interface (SPEC 8).
#include "toolwire/protocol/codec.hpp"

#include "toolwire/protocol/safe_json.hpp"

#include <utility>
#include <variant>

namespace toolwire::protocol {
namespace {

//! Serialization that never throws: invalid UTF-8 (impossible from a parsed body) is replaced.
std::string dump(const json& value) {
  return safe_dump(value);
}

api_error malformed(const std::string& path, std::string_view what) {
  return invalid_request(path + ": " + std::string(what));
}

//! A member that must be a string; `path` is the member's full path.
outcome<std::string> string_member(const json& object, const char* key, const std::string& path) {
  const auto member = object.find(key);
  if (member == object.end()) return malformed(path, "missing");
  if (!member->is_string()) return malformed(path, "must be a string");
  return member->get<std::string>();
}

outcome<model_tool_call> parse_tool_call(const json& item, const std::string& path) {
  if (!item.is_object()) return malformed(path, "must be an object");
  model_tool_call call;
  auto id = string_member(item, "id", path + ".id");
  if (!id) return id.error();
  call.id = std::move(*id);
  // Why: OpenAI always sends `type`; a stand-in that leaves it out still means a function call.
  const auto type = item.find("type");
  if (type != item.end() && *type != "function") {
    return malformed(path + ".type", "must be \"function\"");
  }
  const auto function = item.find("function");
  if (function == item.end()) return malformed(path + ".function", "missing");
  if (!function->is_object()) return malformed(path + ".function", "must be an object");
  auto name = string_member(*function, "name", path + ".function.name");
  if (!name) return name.error();
  call.name = std::move(*name);
  // Why: the arguments stay JSON text; whether they parse is the core's decision (it answers
  // the model with invalid_arguments), not a malformed response.
  auto arguments = string_member(*function, "arguments", path + ".function.arguments");
  if (!arguments) return arguments.error();
  call.arguments = std::move(*arguments);
  return call;
}

}  // namespace

json to_json(const tool_spec& tool) {
  return {{"name", tool.name}, {"description", tool.description}, {"parameters", tool.parameters}};
}

json to_json(const lifetime& life) {
  if (life.type == lifetime::kind::never) return {{"type", "never"}};
  return {{"type", "ttl"}, {"data", {{"seconds", life.seconds}}}};
}

json to_json(const std::vector<tool_spec>& tools) {
  json list = json::array();
  for (const auto& tool : tools)
    list.push_back(to_json(tool));
  return list;
}

void openai_tool_writer::write(std::string_view name, const tool_spec& tool) {
  // The keys in json::dump's order (sorted), so the text is what a JSON value would give.
  out_ += R"({"function":{"description":)";
  append_json_string(out_, tool.description);
  out_ += R"(,"name":)";
  append_json_string(out_, name);
  out_ += R"(,"parameters":)";
  // Why: a task tool declared without input_schema has parameters {}; OpenAI-compatible
  // endpoints expect an object schema, so the empty schema goes out as the empty object type.
  if (tool.parameters.empty()) {
    out_ += R"({"properties":{},"type":"object"})";
  } else {
    append_json(out_, tool.parameters);
  }
  out_ += R"(},"type":"function"})";
}

std::string model_content(const tool_outcome& outcome) {
  if (const auto* content = std::get_if<json>(&outcome)) {
    if (content->is_string()) return content->get<std::string>();
    return dump(*content);
  }
  const auto& error = std::get<tool_error>(outcome);
  return dump({{"error", {{"reason", error.reason}, {"message", error.message}}}});
}

outcome<model_answer> parse_chat_completion(const json& response) {
  if (!response.is_object()) return malformed("body", "must be a JSON object");
  const auto choices = response.find("choices");
  if (choices == response.end()) return malformed("choices", "missing");
  if (!choices->is_array() || choices->empty()) {
    return malformed("choices", "must be a non-empty array");
  }
  const auto& choice = (*choices)[0];
  if (!choice.is_object()) return malformed("choices[0]", "must be an object");
  const auto message = choice.find("message");
  if (message == choice.end()) return malformed("choices[0].message", "missing");
  if (!message->is_object()) return malformed("choices[0].message", "must be an object");

  model_answer answer;
  const auto content = message->find("content");
  if (content != message->end() && !content->is_null()) {
    if (!content->is_string()) {
      return malformed("choices[0].message.content", "must be a string or null");
    }
    answer.text = content->get<std::string>();
  }

  const auto calls = message->find("tool_calls");
  // Why: some endpoints send `"tool_calls": null` for a plain answer; it means none.
  if (calls != message->end() && !calls->is_null()) {
    if (!calls->is_array()) return malformed("choices[0].message.tool_calls", "must be an array");
    for (std::size_t i = 0; i < calls->size(); ++i) {
      auto call =
          parse_tool_call((*calls)[i], "choices[0].message.tool_calls[" + std::to_string(i) + "]");
      if (!call) return call.error();
      answer.tool_calls.push_back(std::move(*call));
    }
  }

  // A message with neither text nor tool calls is an answer whose text is empty.
  if (!answer.text && answer.tool_calls.empty()) answer.text = std::string();
  return answer;
}

json to_assistant_message(const model_answer& answer) {
  json message = {{"role", "assistant"}, {"content", nullptr}};
  if (answer.text) message["content"] = *answer.text;
  if (!answer.tool_calls.empty()) {
    json calls = json::array();
    for (const auto& call : answer.tool_calls) {
      calls.push_back({{"id", call.id},
                       {"type", "function"},
                       {"function", {{"name", call.name}, {"arguments", call.arguments}}}});
    }
    message["tool_calls"] = std::move(calls);
  }
  return message;
}

json to_chat_completion(const model_answer& answer) {
  json message = to_assistant_message(answer);
  const char* finish_reason = answer.tool_calls.empty() ? "stop" : "tool_calls";
  return {
      {"id", "chatcmpl-toolwire"},
      {"object", "chat.completion"},
      {"choices",
       json::array(
           {{{"index", 0}, {"message", std::move(message)}, {"finish_reason", finish_reason}}})}};
}

}  // namespace toolwire::protocol
