// Scripted steps as requests.
#include "script_actions.hpp"

#include "requests.hpp"

#include <charconv>
#include <optional>

#include "toolwire/protocol/codec.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::actors::detail {

using scenarios::vocabulary::action_id;

namespace {

std::string client_id_of(const script_state& state, const std::string& actor) {
  auto it = state.client_ids.find(actor);
  // An unregistered client's requests still go out (cases probe exactly that): with an
  // id no server has assigned, they get 404.
  return it == state.client_ids.end() ? "unregistered-" + actor : it->second;
}

protocol::outcome<std::string> task_uuid(const script_state& state, const std::string& label) {
  auto it = state.tasks.find(label);
  if (it == state.tasks.end()) {
    return protocol::invalid_request("no task '" + label + "' has been created");
  }
  return it->second;
}

//! Arguments as a value, whichever form they take: the model's JSON text, or a pending
//! call's object (or its text, where an implementation lists them so).
//! Text that is not bounded JSON (malformed, or nested deeper than protocol::max_json_depth,
//! which comparing would recurse through) stays the text it is.
json arguments_value(const json& arguments) {
  if (!arguments.is_string()) return arguments;
  auto parsed = protocol::parse_untrusted_json(arguments.get_ref<const std::string&>());
  return parsed ? std::move(*parsed) : arguments;
}

//! A task's pending calls in the order the model made them: each of the model's calls
//! (state.task_model_calls) claims the first unclaimed pending call of the same name and
//! arguments; pending calls that match none keep their relative order after those.
//! Why: SPEC leaves the order of pending_tool_calls open, while a case's {call: N} means
//! the model's N-th call (as TASK-6 orders output).
json in_model_order(const script_state& state, const std::string& label, const json& pending) {
  const auto uuid = state.tasks.find(label);
  if (uuid == state.tasks.end() || !pending.is_array()) return pending;
  const auto calls = state.task_model_calls.find(uuid->second);
  if (calls == state.task_model_calls.end()) return pending;
  std::vector<bool> claimed(pending.size(), false);
  json ordered = json::array();
  for (const auto& call : calls->second) {
    const json arguments = arguments_value(call.value("arguments", json()));
    for (std::size_t i = 0; i < pending.size(); ++i) {
      if (claimed[i] || !pending[i].is_object()) continue;
      if (pending[i].value("name", json()) != call.value("name", json())) continue;
      if (arguments_value(pending[i].value("arguments", json())) != arguments) continue;
      claimed[i] = true;
      ordered.push_back(pending[i]);
      break;
    }
  }
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (!claimed[i]) ordered.push_back(pending[i]);
  }
  return ordered;
}

protocol::outcome<std::string> pending_call_id(const script_state& state, const std::string& label,
                                               std::size_t n) {
  auto view = state.task_views.find(label);
  if (view == state.task_views.end()) {
    return protocol::invalid_request("task '" + label + "' has not been polled yet");
  }
  const json& listed = protocol::member_at(view->second, "pending_tool_calls");
  const json pending = in_model_order(state, label, listed.is_array() ? listed : json::array());
  if (n == 0 || n > pending.size()) {
    return protocol::invalid_request("task '" + label + "' has " + std::to_string(pending.size()) +
                                     " pending calls in its latest poll, not " + std::to_string(n));
  }
  return protocol::string_at(pending[n - 1], "id");
}

//! A reference's number (`{call:2}`, `{pending:t:1}`), or nothing for anything else: text
//! that is not digits, or digits past any count. Why not std::stoul: it throws on both, and a
//! scenario file's path is outside input.
std::optional<std::size_t> ordinal_of(std::string_view text) {
  std::size_t n = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return {};
  return n;
}

protocol::outcome<std::string> fill_one(const script_state& state, std::string_view name) {
  if (name == "sid") return state.session_id;
  if (name == "other_sid") return state.other_session_id;
  if (name == "token") return state.token;
  if (name == "cors_origin") {
    if (state.cors_origin.empty())
      return protocol::invalid_request("{cors_origin}: the target claims no CORS origin");
    return state.cors_origin;
  }
  const auto colon = name.find(':');
  const std::string kind(name.substr(0, colon));
  const std::string rest(colon == std::string_view::npos ? "" : name.substr(colon + 1));
  if (kind == "cid") return client_id_of(state, rest);
  if (kind == "call") {
    const auto n = ordinal_of(rest);
    const bool digits = !rest.empty() && rest.find_first_not_of("0123456789") == std::string::npos;
    if (digits && !n) return protocol::invalid_request("call " + rest + " has not been dispatched");
    return resolve_call(state, n ? json(*n) : json(rest));
  }
  if (kind == "task") return task_uuid(state, rest);
  if (kind == "pending") {
    const auto second = rest.rfind(':');
    const auto n = second == std::string::npos ? std::nullopt : ordinal_of(rest.substr(second + 1));
    if (!n) return protocol::invalid_request("write {pending:LABEL:N}, N a number from 1");
    return pending_call_id(state, rest.substr(0, second), *n);
  }
  return protocol::invalid_request("unknown reference {" + std::string(name) + "}");
}

std::optional<std::string> credential(const script_state& state, const std::string& name) {
  if (name == "api_key") return state.api_key;
  if (name == "token") return state.token;
  if (name == "other_token") return state.other_token;
  if (name == "limited_key") return state.limited_key;
  if (name == "unknown") return std::string("tw-unknown-credential");
  return std::nullopt;  // "none"
}

protocol::outcome<protocol::api_request> call_request(const scenarios::scripted_step& step,
                                                      const performer_view& by,
                                                      const script_state& state,
                                                      protocol::route_id route, const json& body) {
  auto call = resolve_call(state, step.args.value("call", json()));
  if (!call) return call.error();
  return make_request(route, {state.session_id, client_id_of(state, by.actor), *call}, body,
                      by.client ? state.token : state.api_key);
}

json result_body(const scenarios::scripted_step& step) {
  if (step.args.contains("body")) return step.args["body"];
  if (step.performs(action_id::error_result)) {
    json body = {{"error", step.args.value("error", "the tool failed in the client")}};
    if (step.args.contains("reason")) body["reason"] = step.args["reason"];
    return body;
  }
  return {{"content", step.args.value("content", json("ok"))}};
}

json task_body(const scenarios::scripted_step& step, const script_state& state) {
  if (step.args.contains("body")) return step.args["body"];
  json tools = json::array();
  for (const auto& tool : step.args.value("tools", json::array())) {
    json declared = {{"name", tool.value("name", "")},
                     {"description", tool.value("description", "")}};
    if (tool.contains("input_schema")) declared["input_schema"] = tool["input_schema"];
    if (tool.contains("parameters")) declared["input_schema"] = tool["parameters"];
    tools.push_back(std::move(declared));
  }
  return {{"assistant_id", step.args.value("assistant_id", state.assistant_id)},
          {"input", json::array({{{"type", "text"},
                                  {"text", state.message_tag + step.args.value("input", "")}}})},
          {"client_tools", tools}};
}

protocol::outcome<json> tool_results_body(const scenarios::scripted_step& step,
                                          const script_state& state) {
  if (step.args.contains("body")) return step.args["body"];
  const std::string label = step.args.value("task", "");
  json results = json::array();
  if (step.args.contains("all")) {
    const auto view = state.task_views.find(label);
    if (view == state.task_views.end()) {
      return protocol::invalid_request("task '" + label + "' has not been polled yet");
    }
    for (const auto& call : protocol::member_at(view->second, "pending_tool_calls")) {
      results.push_back({{"id", protocol::string_at(call, "id")}, {"content", step.args["all"]}});
    }
  }
  for (const auto& item : step.args.value("results", json::array())) {
    json result = item;
    if (item.contains("call")) {
      const json& n = item["call"];
      if (!n.is_number_unsigned() && !(n.is_number_integer() && n.get<std::int64_t>() > 0)) {
        return protocol::invalid_request("a result's 'call' must be a number from 1, not " +
                                         protocol::safe_dump(n));
      }
      auto id = pending_call_id(state, label, n.get<std::size_t>());
      if (!id) return id.error();
      result.erase("call");
      result["id"] = *id;
    }
    results.push_back(std::move(result));
  }
  return json{{"tool_results", results}};
}

protocol::outcome<protocol::api_request> raw_request(const scenarios::scripted_step& step,
                                                     const performer_view& by,
                                                     const script_state& state) {
  auto path = fill_template(state, step.args.value("path", ""));
  if (!path) return path.error();
  const std::string default_credential = by.client ? "token" : "api_key";
  json body = step.args.value("body", json());
  // A message posted this way still carries the run's tag, so a shared model stand-in
  // can route the turn it starts (MODEL-3).
  const auto route = protocol::match_route("POST", *path);
  if (route && route->route->id == protocol::route_id::post_message && body.is_object() &&
      body.contains("content") && body["content"].is_string()) {
    body["content"] = state.message_tag + body["content"].get<std::string>();
  }
  auto request = make_request(step.args.value("method", "GET"), *path, body,
                              credential(state, step.args.value("credential", default_credential)));
  if (step.args.contains("raw_body")) request.body = step.args.value("raw_body", "");
  if (step.args.contains("last_event_id")) {
    request.last_event_id = step.args["last_event_id"].is_string()
                                ? step.args["last_event_id"].get<std::string>()
                                : step.args["last_event_id"].dump();
  }
  // The CORS fields a browser would send (CORS-1..3): a page's origin and, on a preflight,
  // what the request after it will use.
  for (const auto& [arg, field] : {std::pair{"origin", "origin"},
                                   {"request_method", "access-control-request-method"},
                                   {"request_headers", "access-control-request-headers"}}) {
    if (!step.args.contains(arg)) continue;
    auto value = fill_template(state, step.args.value(arg, ""));
    if (!value) return value.error();
    request.cors[field] = *value;
  }
  if (step.args.contains("query")) {
    auto query = fill_template(state, step.args.value("query", ""));
    if (!query) return query.error();
    std::string_view rest = *query;
    while (!rest.empty()) {
      const auto amp = rest.find('&');
      const auto pair = rest.substr(0, amp);
      const auto eq = pair.find('=');
      request.query[std::string(pair.substr(0, eq))] =
          eq == std::string_view::npos ? "" : std::string(pair.substr(eq + 1));
      rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    }
  }
  return request;
}

}  // namespace

bool awaits_the_target(const protocol::api_error& error) {
  return error.code == protocol::error_code::not_found;
}

bool performed_by_the_client_itself(const scenarios::scripted_step& step) {
  if (step.performs(action_id::register_client) || step.performs(action_id::reconnect) ||
      step.performs(action_id::vanish)) {
    return true;
  }
  // A browser client's actions happen in its tab, whose page sends its own requests.
  const auto* action = scenarios::vocabulary::find_action(step.action);
  return action != nullptr && action->by == scenarios::vocabulary::performer::browser;
}

protocol::outcome<std::string> resolve_call(const script_state& state, const json& ref) {
  if (ref.is_number_integer()) {
    const auto n = ref.get<std::int64_t>();
    if (n < 1 || static_cast<std::size_t>(n) > state.dispatched.size()) {
      return protocol::not_found("call " + std::to_string(n) + " has not been dispatched (" +
                                 std::to_string(state.dispatched.size()) + " so far)");
    }
    return protocol::string_at(state.dispatched[static_cast<std::size_t>(n - 1)], "call_id");
  }
  const std::string tool = ref.is_string() ? ref.get<std::string>() : ref.dump();
  for (auto it = state.dispatched.rbegin(); it != state.dispatched.rend(); ++it) {
    if (protocol::string_at(*it, "tool") == tool) return protocol::string_at(*it, "call_id");
  }
  return protocol::not_found("no call of tool '" + tool + "' has been dispatched");
}

protocol::outcome<std::string> fill_template(const script_state& state, std::string_view text) {
  std::string filled;
  while (!text.empty()) {
    const auto open = text.find('{');
    const auto close = open == std::string_view::npos ? open : text.find('}', open);
    if (close == std::string_view::npos) {
      filled += text;
      break;
    }
    filled += text.substr(0, open);
    auto value = fill_one(state, text.substr(open + 1, close - open - 1));
    if (!value) return value.error();
    filled += *value;
    text = text.substr(close + 1);
  }
  return filled;
}

json fill_templates(const script_state& state, json value) {
  if (value.is_object() || value.is_array()) {
    for (auto& item : value)
      item = fill_templates(state, item);
    return value;
  }
  if (!value.is_string()) return value;
  const auto& text = value.get_ref<const std::string&>();
  if (text.size() < 3 || text.front() != '{' || text.back() != '}') return value;
  auto filled = fill_template(state, text);
  return filled ? json(*filled) : value;
}

namespace {

//! The scenario language's short lifetimes (`never`, `{ttl: 30}`) in their wire form; any
//! other value is sent as written (cases send invalid lifetimes on purpose).
json wire_lifetime(const json& written) {
  if (written == "never") return {{"type", "never"}};
  if (written.is_object() && written.size() == 1 && written.contains("ttl")) {
    return {{"type", "ttl"}, {"data", {{"seconds", written["ttl"]}}}};
  }
  return written;
}

}  // namespace

json registration_body(const scenarios::scripted_step& step, const scenarios::client_spec& spec) {
  if (step.args.contains("body")) return step.args["body"];
  return {{"name", step.args.value("name", spec.requested_name)},
          {"lifetime", step.args.contains("lifetime") ? wire_lifetime(step.args["lifetime"])
                                                      : protocol::to_json(spec.lifetime)},
          {"tools", step.args.value("tools", protocol::to_json(spec.tools))}};
}

protocol::outcome<protocol::api_request> request_for(const scenarios::scripted_step& step,
                                                     const performer_view& by,
                                                     const script_state& state) {
  using protocol::route_id;
  const auto own_credential = by.client ? state.token : state.api_key;
  const std::string client_id = client_id_of(state, by.actor);
  const auto action = scenarios::vocabulary::action_named(step.action);
  switch (action.value_or(action_id::advance)) {
    case action_id::ping:
      return make_request(route_id::ping, {state.session_id, client_id}, json(), own_credential);
    case action_id::delete_client:
      return make_request(route_id::delete_client, {state.session_id, client_id}, json(),
                          own_credential);
    case action_id::put_tools: {
      const json body = step.args.contains("body")
                            ? step.args["body"]
                            : json{{"tools", step.args.value("tools", json::array())}};
      return make_request(route_id::put_tools, {state.session_id, client_id}, body, own_credential);
    }
    case action_id::ack:
      return call_request(step, by, state, route_id::ack, json());
    case action_id::result:
    case action_id::error_result:
      return call_request(step, by, state, route_id::post_result, result_body(step));
    case action_id::post_message:
      return make_request(route_id::post_message, {state.session_id},
                          {{"content", state.message_tag + step.args.value("content", "")}},
                          own_credential);
    case action_id::create_task:
      return make_request(route_id::create_task, {}, task_body(step, state), state.api_key);
    case action_id::poll:
    case action_id::tool_results: {
      auto uuid = task_uuid(state, step.args.value("task", ""));
      if (!uuid) return uuid.error();
      if (*action == action_id::poll)
        return make_request(route_id::get_task, {*uuid}, json(), state.api_key);
      auto body = tool_results_body(step, state);
      if (!body) return body.error();
      return make_request(route_id::post_tool_results, {*uuid}, *body, state.api_key);
    }
    case action_id::request:
      return raw_request(step, by, state);
    case action_id::register_client:
    case action_id::vanish:
    case action_id::reconnect:
    case action_id::advance:
    case action_id::open_tab:
    case action_id::navigate:
    case action_id::freeze:
    case action_id::resume:
    case action_id::go_offline:
    case action_id::go_online:
    case action_id::reload:
    case action_id::close_tab:
    case action_id::query_page:
      break;
  }
  return protocol::invalid_request("action '" + step.action + "' is not a request");
}

void learn(script_state& state, const scenarios::scripted_step& step, const std::string& actor,
           const protocol::api_response& response) {
  if (step.performs(action_id::register_client) && response.status == 201) {
    state.client_ids[actor] = protocol::string_at(response.body, "client_id");
  }
  const std::string label = step.args.value("task", "");
  if (step.performs(action_id::create_task) && response.status == 201) {
    state.tasks[label] = protocol::string_at(response.body, "uuid");
  }
  if (step.performs(action_id::poll) && response.status == 200)
    state.task_views[label] = response.body;
}

}  // namespace toolwire::actors::detail
