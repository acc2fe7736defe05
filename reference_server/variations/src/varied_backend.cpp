// The model-side variations, applied to each model step's request before it is sent.
#include "varied_backend.hpp"

#include "toolwire/protocol/codec.hpp"

namespace toolwire::reference_server::variations::detail {

namespace {

constexpr const char* system_prompt =
    "You are an agent. Use the tools offered when they help; answer briefly.";

//! CALL-8 [P]: the error a tool message carries is `{"error": {"reason", "message"}}`;
//! the message is free text. In a task, the reason of the error for a call to a tool that
//! is not the task's is free too (TASK-8 names none): this one says tool_unavailable.
void other_error_texts(json& messages, bool task = false) {
  for (auto& message : messages) {
    if (!message.is_object() || message.value("role", "") != "tool" ||
        !message.value("content", json()).is_string()) {
      continue;
    }
    json content = json::parse(message["content"].get<std::string>(), nullptr, false);
    if (!content.is_object() || !content.contains("error") || !content["error"].is_object() ||
        !content["error"].contains("message")) {
      continue;
    }
    content["error"]["message"] = "The tool could not give an answer.";
    if (task && content["error"].value("reason", json()) == "unknown_tool") {
      content["error"]["reason"] = "tool_unavailable";
    }
    message["content"] = content.dump();
  }
}

//! model_reserialised: what an implementation that keeps the model's answers in its own
//! types sends back (MODEL-1 fixes no serialisation): no null content, arguments re-indented.
void reserialise_answers(json& messages) {
  for (auto& message : messages) {
    if (!message.is_object() || message.value("role", "") != "assistant") continue;
    if (!message.contains("content") || message["content"].is_null()) message["content"] = "";
    if (!message.contains("tool_calls") || !message["tool_calls"].is_array()) continue;
    for (auto& call : message["tool_calls"]) {
      if (!call.is_object() || !call.contains("function") || !call["function"].is_object() ||
          !call["function"].value("arguments", json()).is_string()) {
        continue;
      }
      const json arguments =
          json::parse(call["function"]["arguments"].get<std::string>(), nullptr, false);
      if (!arguments.is_discarded()) call["function"]["arguments"] = arguments.dump(2);
    }
  }
}

//! `request` with `body` as its whole body: the tools it offers, the rest its conversation.
reference_server::model_step_request with_body(const reference_server::model_step_request& request,
                                               json body) {
  reference_server::model_step_request varied = request;
  varied.tools = {};
  if (body.is_object() && body.contains("tools")) {
    varied.tools = reference_server::offered_tools::from_json(body["tools"]);
    body.erase("tools");
  }
  varied.conversation = std::move(body);
  return varied;
}

}  // namespace

json varied_backend::vary(json body, const json& history, bool task) const {
  if (!body.is_object() || !body.contains("messages") || !body["messages"].is_array()) return body;
  json& messages = body["messages"];
  if (has(variation::other_texts)) other_error_texts(messages, task);
  if (has(variation::model_text_parts)) {
    // MODEL-3: the user's text reaches the model unchanged, here as one text part.
    for (auto& message : messages) {
      if (message.is_object() && message.value("role", "") == "user" &&
          message.value("content", json()).is_string()) {
        message["content"] = json::array({{{"type", "text"}, {"text", message["content"]}}});
      }
    }
  }
  if (has(variation::model_system_prompt)) {
    // A system prompt first, and repeated just before the turn's user message.
    json with_prompt = json::array();
    with_prompt.push_back({{"role", "system"}, {"content", system_prompt}});
    for (auto& message : messages) {
      if (message.is_object() && message.value("role", "") == "user") {
        with_prompt.push_back({{"role", "system"}, {"content", system_prompt}});
      }
      with_prompt.push_back(std::move(message));
    }
    messages = std::move(with_prompt);
  }
  if (!history.empty()) messages.insert(messages.begin(), history.begin(), history.end());
  if (has(variation::model_reserialised)) reserialise_answers(messages);
  if (has(variation::model_request_extras)) {
    body["temperature"] = 0;
    body["tool_choice"] = "auto";
    body["parallel_tool_calls"] = true;
    body["stream"] = false;
    body["user"] = "toolwire-variation";
    if (body.contains("tools") && body["tools"].is_array()) {
      for (auto& tool : body["tools"]) {
        if (tool.is_object() && tool.contains("function") && tool["function"].is_object())
          tool["function"]["strict"] = false;
      }
    }
  }
  return body;
}

void varied_backend::start(const reference_server::model_step_request& request,
                           std::function<void(reference_server::model_reply)> done) {
  const bool keeps_history =
      (has(variation::model_history) || has(variation::model_history_failed)) &&
      request.owner == reference_server::model_step_request::owner_kind::turn;
  if (!keeps_history) {
    return inner_->start(
        with_body(request,
                  vary(request.body(), json::array(),
                       request.owner == reference_server::model_step_request::owner_kind::task)),
        std::move(done));
  }
  // MODEL-1 leaves the conversation to the implementation: this one sends the session's
  // earlier turns (their messages, answers and every tool result) before the current one.
  const auto varied =
      with_body(request, vary(request.body(), (*histories_)[request.owner_id], /*task=*/false));
  // The turn's own messages, as the core built them, join the history once it completes
  // (model_history_failed: or fails, with no reply after its last message).
  const json& conversation = request.conversation;
  json turn = conversation.is_object() ? conversation.value("messages", json::array()) : json();
  if (has(variation::other_texts) && turn.is_array()) other_error_texts(turn);
  const bool keeps_failed = has(variation::model_history_failed);
  inner_->start(varied,
                [histories = histories_, owner = request.owner_id, turn = std::move(turn),
                 keeps_failed, done = std::move(done)](reference_server::model_reply reply) {
                  const bool completes = reply.answer && reply.answer->tool_calls.empty();
                  if ((completes || (keeps_failed && !reply.answer)) && turn.is_array()) {
                    json& history = (*histories)[owner];
                    if (!history.is_array()) history = json::array();
                    for (const auto& message : turn)
                      history.push_back(message);
                    if (completes) history.push_back(protocol::to_assistant_message(*reply.answer));
                  }
                  done(std::move(reply));
                });
}

}  // namespace toolwire::reference_server::variations::detail
