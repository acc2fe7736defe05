// A scripted model: script validation (errors name the file and the place) and answers.
#include "toolwire/reference_server/model_script.hpp"
#include "toolwire/protocol/safe_json.hpp"

#include <set>
#include <utility>

namespace toolwire::reference_server {
namespace {

using protocol::api_error;

//! Builds `<source>: <where>: <what>`, the one error shape of this file.
api_error script_error(std::string_view source, const std::string& where, const std::string& what) {
  std::string message(source);
  message += ": ";
  if (!where.empty()) message += where + ": ";
  message += what;
  return protocol::invalid_request(std::move(message));
}

//! The first key of `object` outside `allowed`, so that a misspelt key is an error rather
//! than a silently ignored instruction.
std::optional<std::string> unknown_key(const json& object, const std::set<std::string>& allowed) {
  for (const auto& [key, value] : object.items()) {
    if (!allowed.contains(key)) return key;
  }
  return std::nullopt;
}

outcome<script_tool_call> parse_tool_call(const json& node, std::string_view source,
                                          const std::string& where) {
  if (!node.is_object()) return script_error(source, where, "expected an object");
  if (auto key = unknown_key(node, {"name", "arguments"})) {
    return script_error(source, where, "unknown key \"" + *key + "\"");
  }
  auto name = node.find("name");
  if (name == node.end() || !name->is_string() || name->get<std::string>().empty()) {
    return script_error(source, where + ".name", "expected a non-empty string");
  }
  script_tool_call call{name->get<std::string>(), json::object()};
  if (auto arguments = node.find("arguments"); arguments != node.end()) {
    call.arguments = *arguments;
  }
  return call;
}

outcome<script_step> parse_step(const json& node, std::string_view source,
                                const std::string& where) {
  if (!node.is_object()) return script_error(source, where, "expected an object");
  if (auto key = unknown_key(node, {"content", "tool_calls", "hold_ms"})) {
    return script_error(source, where, "unknown key \"" + *key + "\"");
  }
  auto content = node.find("content");
  auto calls = node.find("tool_calls");
  if (content == node.end() && calls == node.end()) {
    return script_error(source, where, "expected \"content\" or \"tool_calls\"");
  }
  script_step step;
  if (auto hold = node.find("hold_ms"); hold != node.end()) {
    if (!hold->is_number_integer() || hold->get<std::int64_t>() < 0) {
      return script_error(source, where + ".hold_ms", "expected a non-negative integer");
    }
    step.hold_ms = hold->get<std::int64_t>();
  }
  if (content != node.end()) {
    if (!content->is_string()) return script_error(source, where + ".content", "expected a string");
    step.content = content->get<std::string>();
  }
  if (calls != node.end()) {
    if (!calls->is_array() || calls->empty()) {
      return script_error(source, where + ".tool_calls", "expected a non-empty array");
    }
    for (std::size_t i = 0; i < calls->size(); ++i) {
      auto call =
          parse_tool_call((*calls)[i], source, where + ".tool_calls[" + std::to_string(i) + "]");
      if (!call) return call.error();
      step.tool_calls.push_back(std::move(*call));
    }
  }
  return step;
}

outcome<script_rule> parse_rule(const json& node, std::string_view source,
                                const std::string& where) {
  if (!node.is_object()) return script_error(source, where, "expected an object");
  if (auto key = unknown_key(node, {"match", "steps"})) {
    return script_error(source, where, "unknown key \"" + *key + "\"");
  }
  script_rule rule;
  if (auto match = node.find("match"); match != node.end() && !match->is_null()) {
    if (!match->is_string()) return script_error(source, where + ".match", "expected a string");
    rule.match = match->get<std::string>();
  }
  auto steps = node.find("steps");
  if (steps == node.end() || !steps->is_array()) {
    return script_error(source, where + ".steps", "expected an array");
  }
  for (std::size_t i = 0; i < steps->size(); ++i) {
    auto step = parse_step((*steps)[i], source, where + ".steps[" + std::to_string(i) + "]");
    if (!step) return step.error();
    rule.steps.push_back(std::move(*step));
  }
  return rule;
}

//! The user messages of the conversation's last run of user messages (system messages
//! between them aside), latest first. The current turn opens with one of them: a task's
//! input items are consecutive user messages, and an implementation that sends the
//! session's history may put before them the user messages of earlier turns that failed
//! (which have no reply). Earlier turns that were answered lie before the run.
std::vector<std::size_t> trailing_user_messages(const json& messages) {
  std::vector<std::size_t> run;
  for (std::size_t i = messages.size(); i-- > 0;) {
    const std::string role = messages[i].is_object() ? messages[i].value("role", "") : "";
    if (role == "user") {
      run.push_back(i);
    } else if (!run.empty() && role != "system") {
      break;
    }
  }
  return run;
}

std::string text_of(const json& message) {
  auto content = message.find("content");
  if (content == message.end()) return "";
  return content->is_string() ? content->get<std::string>() : protocol::safe_dump(*content);
}

}  // namespace

//! Which rule a conversation belongs to, and its step. The rule is the first (in script
//! order) whose non-empty `match` is in the latest user message of the trailing run; if
//! none is, the next latest is tried, and so on (a task's first input item may carry the
//! case's tag while a later one does not); a rule with an empty `match` is the fallback.
//! Why latest first: a failed earlier turn's user message, sent as history, must not take
//! the conversation over (MODEL-1 leaves the history to the implementation).
model_script::placement model_script::place(const json& request_body) const {
  placement found;
  auto messages = request_body.find("messages");
  if (messages == request_body.end() || !messages->is_array()) return found;
  const auto run = trailing_user_messages(*messages);
  if (run.empty()) return found;
  for (std::size_t i = run.front() + 1; i < messages->size(); ++i) {
    const auto& message = (*messages)[i];
    if (message.is_object() && message.value("role", "") == "assistant") ++found.step;
  }
  for (const std::size_t at : run) {
    const std::string user = text_of((*messages)[at]);
    for (const auto& rule : rules_) {
      if (!rule.match.empty() && user.find(rule.match) != std::string::npos) {
        found.rule = &rule;
        return found;
      }
    }
  }
  for (const auto& rule : rules_) {
    if (rule.match.empty()) {
      found.rule = &rule;
      return found;
    }
  }
  return found;
}

namespace {

protocol::model_answer to_answer(const script_step& step, std::size_t step_index) {
  protocol::model_answer answer;
  answer.text = step.content;
  for (std::size_t i = 0; i < step.tool_calls.size(); ++i) {
    const auto& call = step.tool_calls[i];
    answer.tool_calls.push_back({"call_" + std::to_string(step_index) + "_" + std::to_string(i),
                                 call.name, protocol::safe_dump(call.arguments)});
  }
  return answer;
}

}  // namespace

outcome<model_script> model_script::parse(std::string_view text, std::string_view source) {
  // Why bounded: a script is a file from outside; depth and UTF-8 are checked like a body.
  auto document = protocol::parse_untrusted_json(text, "not valid JSON");
  if (!document) return script_error(source, "", document.error().message);
  return from_json(*document, source);
}

outcome<model_script> model_script::from_json(const json& document, std::string_view source) {
  if (!document.is_object()) return script_error(source, "", "expected an object with \"rules\"");
  if (auto key = unknown_key(document, {"rules"})) {
    return script_error(source, "", "unknown key \"" + *key + "\"");
  }
  auto rules = document.find("rules");
  if (rules == document.end() || !rules->is_array()) {
    return script_error(source, "rules", "expected an array");
  }
  model_script script;
  for (std::size_t i = 0; i < rules->size(); ++i) {
    auto rule = parse_rule((*rules)[i], source, "rules[" + std::to_string(i) + "]");
    if (!rule) return rule.error();
    script.rules_.push_back(std::move(*rule));
  }
  return script;
}

const script_step* model_script::step_for(const json& request_body) const {
  const auto [rule, step_index] = place(request_body);
  // Why: the matching rule owns the conversation even when it has run out of steps, so a
  // script never silently switches rules mid-conversation.
  if (rule == nullptr || step_index >= rule->steps.size()) return nullptr;
  return &rule->steps[step_index];
}

model_reply model_script::answer(const json& request_body) const {
  const std::size_t step_index = place(request_body).step;
  if (const auto* step = step_for(request_body))
    return model_reply{to_answer(*step, step_index), {}};
  return model_reply{std::nullopt, "model script has no step " + std::to_string(step_index) +
                                       " for this conversation"};
}

std::int64_t model_script::hold_ms(const json& request_body) const {
  const auto* step = step_for(request_body);
  return step == nullptr ? 0 : step->hold_ms;
}

}  // namespace toolwire::reference_server
