// Faults of reading a task's creation body (TASK-1, and REG-1/REG-3 for its client tools):
// the faulty answer of policy.hpp's task decision point.
#include <string>

#include "faulty_policy.hpp"

namespace toolwire::reference::detail {

namespace {

//! Fault assistant_id_coerced (TASK-1): a float or a string of digits is read as an id.
void coerce_assistant_id(json& id) {
  if (id.is_number_float()) id = static_cast<std::int64_t>(id.get<double>());
  if (!id.is_string()) return;
  const std::string text = id.get<std::string>();
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (digits && text.size() < 18) id = std::stoll(text);
}

}  // namespace

protocol::outcome<protocol::task_create_request> faulty_policy::read_task_request(
    const json& body) const {
  json relaxed = body;
  // Fault duplicate_tool_names_collapsed (REG-3).
  if (has(fault::duplicate_tool_names_collapsed)) {
    relaxed = collapsed_duplicate_tools(std::move(relaxed), "client_tools");
  }
  if (relaxed.is_object()) {
    // Fault task_tool_description_optional (TASK-1).
    if (has(fault::task_tool_description_optional) && relaxed.contains("client_tools") &&
        relaxed["client_tools"].is_array()) {
      for (auto& tool : relaxed["client_tools"])
        if (tool.is_object() && !tool.contains("description")) tool["description"] = "";
    }
    if (has(fault::assistant_id_coerced) && relaxed.contains("assistant_id")) {
      coerce_assistant_id(relaxed["assistant_id"]);
    }
  }
  // Fault invalid_tool_name_accepted (REG-1), for a task's tools as for a client's.
  tool_name_stand_ins names;
  if (has(fault::invalid_tool_name_accepted)) {
    relaxed = names.replace(std::move(relaxed), "client_tools");
  }
  auto request = protocol::parse_task_create_request(relaxed);
  if (!request) return names.restore(request.error());
  names.restore(request->client_tools);
  return request;
}

}  // namespace toolwire::reference::detail
