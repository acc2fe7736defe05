// The core test harness: router + virtual clock + collected outputs.
#include "support/core_harness.hpp"

#include <catch2/catch.hpp>

namespace toolwire::testing {

reference_server::core_config default_config(reference_server::fault_set faults) {
  reference_server::core_config config;
  config.api_keys = {{admin_key, {reference_server::scope_session_manage}}, {reader_key, {}}};
  config.secret_seed = 42;
  config.cors_origins = {page_origin};
  config.faults = std::move(faults);
  return config;
}

core_harness::core_harness(reference_server::core_config config) : core_(std::move(config)) {}

protocol::api_response core_harness::request(const std::string& method, const std::string& path,
                                             const json& body,
                                             std::optional<std::string> credential,
                                             std::optional<std::string> last_event_id) {
  protocol::api_request r;
  r.method = method;
  const auto q = path.find('?');
  r.path = path.substr(0, q);
  if (q != std::string::npos) {
    const std::string query = path.substr(q + 1);
    const auto eq = query.find('=');
    r.query[query.substr(0, eq)] = eq == std::string::npos ? "" : query.substr(eq + 1);
  }
  r.credential = std::move(credential);
  r.last_event_id = std::move(last_event_id);
  r.body = body.is_null() ? "" : body.dump();
  auto response = router_.handle(r);
  collect();
  return response;
}

protocol::api_response core_harness::send(const protocol::api_request& r) {
  auto response = router_.handle(r);
  collect();
  return response;
}

protocol::api_response core_harness::request_raw(const std::string& method, const std::string& path,
                                                 std::string body,
                                                 std::optional<std::string> credential) {
  protocol::api_request r;
  r.method = method;
  r.path = path;
  r.credential = std::move(credential);
  r.body = std::move(body);
  auto response = router_.handle(r);
  collect();
  return response;
}

std::string core_harness::create_session() {
  auto response = request("POST", "/v1/sessions", json::object());
  REQUIRE(response.status == 201);
  const std::string sid = response.body.at("id");
  tokens_[sid] = response.body.at("token");
  return sid;
}

const std::string& core_harness::token_of(const std::string& sid) const {
  return tokens_.at(sid);
}

json core_harness::register_client(const std::string& sid, const std::string& name,
                                   const json& lifetime, const json& tools) {
  auto response = request("POST", clients_path(sid),
                          {{"name", name}, {"lifetime", lifetime}, {"tools", tools}});
  INFO(response.body.dump());
  REQUIRE(response.status == 201);
  return response.body;
}

json core_harness::ttl(std::int64_t seconds) {
  return {{"type", "ttl"}, {"data", {{"seconds", seconds}}}};
}
json core_harness::never() {
  return {{"type", "never"}};
}

json core_harness::tool(const std::string& name, const std::string& description) {
  return {{"name", name}, {"description", description}, {"parameters", {{"type", "object"}}}};
}

std::string core_harness::clients_path(const std::string& sid) const {
  return "/v1/sessions/" + sid + "/clients";
}
std::string core_harness::client_path(const std::string& sid, const std::string& cid) const {
  return clients_path(sid) + "/" + cid;
}
std::string core_harness::call_path(const std::string& sid, const std::string& cid,
                                    const std::string& call_id) const {
  return client_path(sid, cid) + "/calls/" + call_id;
}

void core_harness::advance(time_ms ms) {
  clock_.advance(core_, ms);
  collect();
}

reference_server::model_step_request core_harness::next_model_step() {
  REQUIRE_FALSE(steps_.empty());
  auto step = steps_.front();
  steps_.pop_front();
  return step;
}

void core_harness::answer(std::uint64_t step_id, const protocol::model_answer& answer) {
  core_.model_replied(step_id, {answer, ""}, clock_.now());
  collect();
}

void core_harness::answer_text(std::uint64_t step_id, const std::string& text) {
  answer(step_id, protocol::model_answer{text, {}});
}

void core_harness::answer_calls(std::uint64_t step_id,
                                const std::vector<std::pair<std::string, json>>& calls) {
  protocol::model_answer a;
  for (const auto& [name, arguments] : calls) {
    a.tool_calls.push_back({"mc_" + std::to_string(++model_call_counter_), name, arguments.dump()});
  }
  answer(step_id, a);
}

void core_harness::fail_model(std::uint64_t step_id, const std::string& why) {
  core_.model_replied(step_id, {std::nullopt, why}, clock_.now());
  collect();
}

std::vector<std::string> core_harness::offered_names(
    const reference_server::model_step_request& step) {
  return step.tools.names();
}

std::vector<json> core_harness::tool_messages(const reference_server::model_step_request& step) {
  std::vector<json> messages;
  for (const auto& message : step.conversation["messages"]) {
    if (message["role"] == "tool") messages.push_back(message);
  }
  return messages;
}

std::vector<reference_server::session_event> core_harness::events_of(
    const std::string& sid, const std::string& type) const {
  std::vector<reference_server::session_event> out;
  for (const auto& event : events_) {
    if (event.session_id == sid && (type.empty() || event.type == type)) out.push_back(event);
  }
  return out;
}

std::optional<reference_server::session_event> core_harness::find_event(const std::string& sid,
                                                                        const std::string& type,
                                                                        const json& match) const {
  for (const auto& event : events_of(sid, type)) {
    bool all = true;
    for (const auto& [key, value] : match.items()) {
      if (!event.data.contains(key) || event.data[key] != value) all = false;
    }
    if (all) return event;
  }
  return std::nullopt;
}

std::vector<std::string> core_harness::dispatched_calls(const std::string& sid) const {
  std::vector<std::string> ids;
  for (const auto& event : events_of(sid, "client_tool_dispatched")) {
    ids.push_back(event.data["call_id"]);
  }
  return ids;
}

void core_harness::collect() {
  auto out = core_.drain();
  for (auto& event : out.events)
    events_.push_back(std::move(event));
  for (auto& step : out.model_steps)
    steps_.push_back(std::move(step));
  for (auto& sid : out.forgotten_sessions)
    forgotten_.push_back(std::move(sid));
  for (auto& error : out.internal_errors)
    internal_errors_.push_back(std::move(error));
}

}  // namespace toolwire::testing
