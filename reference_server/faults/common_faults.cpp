// Faults of the rules every route shares (C-*): each a layer over the policy beneath it
// (policy_layer.hpp), named with the rule it breaks.
#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "policy_layer.hpp"

namespace toolwire::reference_server::detail {

namespace {

//! The 400 for the first key of `body` outside `known`.
std::optional<api_error> unknown_field_refused(const json& body,
                                               std::initializer_list<std::string_view> known) {
  if (!body.is_object()) return std::nullopt;
  for (const auto& [key, value] : body.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return protocol::invalid_request(key + ": unknown field");
    }
  }
  return std::nullopt;
}

//! Fault unknown_fields_rejected (C-6): a body with a field the route does not know is 400,
//! where the SPEC ignores it.
class unknown_fields_rejected final : public policy_layer {
 public:
  using policy_layer::policy_layer;

  protocol::outcome<protocol::register_request> read_registration(const session_record& session,
                                                                  const json& body) const override {
    if (auto unknown = unknown_field_refused(body, {"name", "lifetime", "tools"})) return *unknown;
    return inner().read_registration(session, body);
  }

  protocol::outcome<protocol::put_tools_request> read_tool_list(const session_record& session,
                                                                const client_record& client,
                                                                const json& body) const override {
    if (auto unknown = unknown_field_refused(body, {"tools"})) return *unknown;
    return inner().read_tool_list(session, client, body);
  }

  protocol::outcome<protocol::result_request> read_result(const json& body) const override {
    if (auto unknown = unknown_field_refused(body, {"content", "error", "reason"})) return *unknown;
    return inner().read_result(body);
  }

  protocol::outcome<protocol::message_request> read_message(const json& body) const override {
    if (auto unknown = unknown_field_refused(body, {"content"})) return *unknown;
    return inner().read_message(body);
  }

  //! The body's fields and each item's.
  protocol::outcome<protocol::tool_results_request> read_tool_results(
      const state& s, const json& body) const override {
    if (auto unknown = unknown_field_refused(body, {"tool_results"})) return *unknown;
    if (body.is_object() && body.contains("tool_results") && body["tool_results"].is_array()) {
      for (const auto& item : body["tool_results"]) {
        if (auto unknown = unknown_field_refused(item, {"id", "content", "error", "reason"})) {
          return *unknown;
        }
      }
    }
    return inner().read_tool_results(s, body);
  }
};

constexpr fault_layer common_layers[]{
    {fault::unknown_fields_rejected, layered<unknown_fields_rejected>},
};

}  // namespace

std::span<const fault_layer> common_fault_layers() {
  return common_layers;
}

}  // namespace toolwire::reference_server::detail
