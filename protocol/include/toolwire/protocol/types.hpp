// The wire types of SPEC Parts A and B, as plain structs. Codecs live in codec.hpp,
// input validation in validation.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace toolwire::protocol {

using json = nlohmann::json;

//! Milliseconds, since the Unix epoch or of the virtual clock (SPEC C-4).
using time_ms = std::int64_t;

//! A tool as a client or a task declares it (REG-1, TASK-1).
struct tool_spec {
  std::string name;
  std::string description;
  json parameters = json::object();  // a JSON Schema object

  friend bool operator==(const tool_spec&, const tool_spec&) = default;
};

//! A client's lifetime (section 3): `never`, or `ttl` with seconds in 1..86400 (REG-8).
struct lifetime {
  enum class kind { never, ttl };
  kind type = kind::never;
  std::int64_t seconds = 0;  // meaningful for ttl only

  friend bool operator==(const lifetime&, const lifetime&) = default;
};

//! POST /v1/sessions/{sid}/clients
struct register_request {
  std::string name;
  protocol::lifetime lifetime;
  std::vector<tool_spec> tools;
};

//! PUT /v1/sessions/{sid}/clients/{cid}/tools
struct put_tools_request {
  std::vector<tool_spec> tools;
};

//! An error outcome as a client or a task caller reports it (CALL-4, TASK-4).
struct tool_error {
  std::string message;
  std::string reason = "client_error";

  friend bool operator==(const tool_error&, const tool_error&) = default;
};

//! A tool's outcome: content (any JSON: a string stays a string) or an error.
using tool_outcome = std::variant<json, tool_error>;

//! POST .../calls/{call_id}/result
struct result_request {
  tool_outcome outcome;
};

//! POST /v1/sessions/{sid}/messages (SES-2)
struct message_request {
  std::string content;
};

//! One item of a task's input (TASK-1); only text items exist.
struct task_create_request {
  std::int64_t assistant_id = 0;
  std::vector<std::string> input_texts;
  std::vector<tool_spec> client_tools;  // parameters = input_schema, or {} when absent
};

//! One item of POST /api/tasks/{uuid}/tool-results (TASK-4).
struct tool_result_item {
  std::string id;
  tool_outcome outcome;
};

struct tool_results_request {
  std::vector<tool_result_item> results;
};

//! POST /v1/_test/clock/advance (CLOCK-1)
struct advance_request {
  std::int64_t ms = 0;
};

//! One tool call as the model made it (MODEL-2). `arguments` is the model's JSON text.
struct model_tool_call {
  std::string id;
  std::string name;
  std::string arguments;

  friend bool operator==(const model_tool_call&, const model_tool_call&) = default;
};

//! The model's answer to one step: text, tool calls, or both (MODEL-2).
struct model_answer {
  std::optional<std::string> text;
  std::vector<model_tool_call> tool_calls;

  friend bool operator==(const model_answer&, const model_answer&) = default;
};

}  // namespace toolwire::protocol
