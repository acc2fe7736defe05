// A scripted model (`toolwire serve --model-script FILE`): parses the script, answers steps.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/protocol/outcome.hpp"
#include "toolwire/protocol/types.hpp"
#include "toolwire/reference_server/core.hpp"

namespace toolwire::reference_server {

//! One tool call of a scripted step: the name as the model sees it (e.g. `web__read_form`).
struct script_tool_call {
  std::string name;
  json arguments = json::object();
};

//! One scripted model answer: text, tool calls, or both.
struct script_step {
  std::optional<std::string> content;
  std::vector<script_tool_call> tool_calls;
  //! How long a simulated model thinks before it answers (virtual ms), so scenarios can
  //! put a PUT or an expiry between a model step and its answer (TOOLS-5, TOOLS-6).
  //! `serve --model-script` answers at once.
  std::int64_t hold_ms = 0;
};

//! The answers for turns whose opening user message contains `match`.
struct script_rule {
  std::string match;  // empty matches every conversation
  std::vector<script_step> steps;
};

//! A model stand-in that answers from a script instead of thinking. The format is
//!
//!   {"rules": [{"match": "<substring of the first user message>",
//!               "steps": [{"content": "text"},
//!                         {"tool_calls": [{"name": "web__read_form", "arguments": {}}],
//!                          "content": "optional text", "hold_ms": 500}]}]}
//!
//! Pure: no I/O and no clock, so the same request always gets the same answer.
class model_script {
 public:
  //! Parses a script from its text. Every error starts with `source` (the file name) and
  //! names the place, e.g. `script.json: rules[0].steps[2]: expected "content" or
  //! "tool_calls"`.
  static outcome<model_script> parse(std::string_view text, std::string_view source);

  //! As `parse`, from a JSON document already read.
  static outcome<model_script> from_json(const json& document, std::string_view source);

  //! Answers a chat-completions request body (MODEL-1). The conversation's last run of
  //! user messages holds the current turn's opening (earlier answered turns, which an
  //! implementation may send as history, lie before it; failed ones may lie in it). The
  //! rule is the first whose non-empty `match` is a substring of the latest of those user
  //! messages, else of the next latest, and so on; else the first rule with an empty
  //! `match`. The step is the number of assistant messages after the run. Tool call ids
  //! are `call_<step>_<i>`. No rule or no such step gives a failure, never an exception.
  model_reply answer(const json& request_body) const;

  //! How long the step that answers `request_body` holds its answer (0 when none).
  std::int64_t hold_ms(const json& request_body) const;

  const std::vector<script_rule>& rules() const { return rules_; }

 private:
  //! The rule a conversation belongs to (null when none) and its step.
  struct placement {
    const script_rule* rule = nullptr;
    std::size_t step = 0;
  };
  placement place(const json& request_body) const;
  const script_step* step_for(const json& request_body) const;

  std::vector<script_rule> rules_;
};

}  // namespace toolwire::reference_server
