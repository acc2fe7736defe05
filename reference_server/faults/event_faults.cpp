// Faults of events (their numbering, names and fields: SES-3, SES-4, CALL-1, CALL-4, REG-9):
// each a layer over the policy beneath it (policy_layer.hpp) that changes events as they go
// out.
#include "policy_layer.hpp"
#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::reference_server::detail {

namespace {

using protocol::event_type;

//! A fault that changes the events the layers beneath it let out: `reshape` sees each one
//! with its type, before it is numbered.
class event_layer : public policy_layer {
 public:
  using policy_layer::policy_layer;

  event_shape shape_event(session_event event, const std::string& previous) const final {
    event_shape shape = inner().shape_event(std::move(event), previous);
    if (shape.sent) reshape(protocol::parse_event_type(shape.sent->type), shape, previous);
    return shape;
  }

 private:
  virtual void reshape(std::optional<event_type> type, event_shape& shape,
                       const std::string& previous) const = 0;
};

//! Fault event_seq_gaps (SES-3): an internal bookkeeping event consumes a number.
class event_seq_gaps final : public event_layer {
  using event_layer::event_layer;
  void reshape(std::optional<event_type> type, event_shape& shape,
               const std::string&) const override {
    if (type == event_type::client_tool_completed) ++shape.numbers_skipped;
  }
};

//! Fault seq_skips_after_tools_update (SES-3): the update counts itself twice.
class seq_skips_after_tools_update final : public event_layer {
  using event_layer::event_layer;
  void reshape(std::optional<event_type>, event_shape& shape,
               const std::string& previous) const override {
    if (protocol::parse_event_type(previous) == event_type::client_tools_updated) {
      ++shape.numbers_skipped;
    }
  }
};

//! Fault turn_started_omitted (SES-4).
class turn_started_omitted final : public event_layer {
  using event_layer::event_layer;
  void reshape(std::optional<event_type> type, event_shape& shape,
               const std::string&) const override {
    if (type == event_type::turn_started) shape.sent.reset();
  }
};

//! Fault turn_failed_named_turn_error (SES-4).
class turn_failed_named_turn_error final : public event_layer {
  using event_layer::event_layer;
  void reshape(std::optional<event_type> type, event_shape& shape,
               const std::string&) const override {
    if (type == event_type::turn_failed) shape.sent->type = "turn_error";
  }
};

//! Fault arguments_as_text (CALL-1): the arguments go out as the model's JSON text.
class arguments_as_text final : public event_layer {
  using event_layer::event_layer;
  void reshape(std::optional<event_type> type, event_shape& shape,
               const std::string&) const override {
    json& data = shape.sent->data;
    if (type == event_type::client_tool_dispatched && data.contains("arguments")) {
      data["arguments"] = protocol::safe_dump(data["arguments"]);
    }
  }
};

//! Fault error_result_reported_as_success (CALL-4): is_error is always false.
class error_result_reported_as_success final : public event_layer {
  using event_layer::event_layer;
  void reshape(std::optional<event_type> type, event_shape& shape,
               const std::string&) const override {
    json& data = shape.sent->data;
    if (type == event_type::client_tool_completed && data.contains("is_error")) {
      data["is_error"] = false;
    }
  }
};

//! Fault completed_event_without_client_id (CALL-4).
class completed_event_without_client_id final : public event_layer {
  using event_layer::event_layer;
  void reshape(std::optional<event_type> type, event_shape& shape,
               const std::string&) const override {
    if (type == event_type::client_tool_completed) shape.sent->data.erase("client_id");
  }
};

//! Fault completed_event_is_error_as_text (SES-4): is_error goes out as "true" or "false".
class completed_event_is_error_as_text final : public event_layer {
  using event_layer::event_layer;
  void reshape(std::optional<event_type> type, event_shape& shape,
               const std::string&) const override {
    json& data = shape.sent->data;
    if (type == event_type::client_tool_completed && data.contains("is_error") &&
        data["is_error"].is_boolean()) {
      data["is_error"] = data["is_error"].get<bool>() ? "true" : "false";
    }
  }
};

//! Fault registered_event_wrong_name (REG-9): the event reports the requested name.
class registered_event_wrong_name final : public event_layer {
  using event_layer::event_layer;
  void reshape(std::optional<event_type> type, event_shape& shape,
               const std::string&) const override {
    json& data = shape.sent->data;
    if (type == event_type::client_registered && data.contains("requested_name")) {
      data["name"] = data["requested_name"];
    }
  }
};

//! Fault left_reason_named_deleted (SES-4): a DELETE is reported as "deleted".
class left_reason_named_deleted final : public event_layer {
  using event_layer::event_layer;
  void reshape(std::optional<event_type> type, event_shape& shape,
               const std::string&) const override {
    json& data = shape.sent->data;
    if (type == event_type::client_unregistered && data.value("reason", json()) == "left") {
      data["reason"] = "deleted";
    }
  }
};

//! Fault failed_event_without_tool (SES-4).
class failed_event_without_tool final : public event_layer {
  using event_layer::event_layer;
  void reshape(std::optional<event_type> type, event_shape& shape,
               const std::string&) const override {
    if (type == event_type::client_tool_failed) shape.sent->data.erase("tool");
  }
};

constexpr fault_layer event_layers[]{
    {fault::event_seq_gaps, layered<event_seq_gaps>},
    {fault::seq_skips_after_tools_update, layered<seq_skips_after_tools_update>},
    {fault::turn_started_omitted, layered<turn_started_omitted>},
    {fault::turn_failed_named_turn_error, layered<turn_failed_named_turn_error>},
    {fault::arguments_as_text, layered<arguments_as_text>},
    {fault::error_result_reported_as_success, layered<error_result_reported_as_success>},
    {fault::completed_event_without_client_id, layered<completed_event_without_client_id>},
    {fault::completed_event_is_error_as_text, layered<completed_event_is_error_as_text>},
    {fault::registered_event_wrong_name, layered<registered_event_wrong_name>},
    {fault::left_reason_named_deleted, layered<left_reason_named_deleted>},
    {fault::failed_event_without_tool, layered<failed_event_without_tool>},
};

}  // namespace

std::span<const fault_layer> event_fault_layers() {
  return event_layers;
}

}  // namespace toolwire::reference_server::detail
