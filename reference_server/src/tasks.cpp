// Tasks (SPEC Part B): creation (TASK-1), the status machine (TASK-2, TASK-5; its table is
// in lifecycle.hpp), pending client tool calls (TASK-3, TASK-8, TASK-9), tool-results
// coverage (TASK-4), the interrupt timeout (TASK-7) and the output list (TASK-6).
#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "core_state.hpp"
#include "policy.hpp"
#include "toolwire/protocol/codec.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::reference_server::detail {

using protocol::outcome;

namespace {

std::string make_uuid(std::uint64_t n) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "00000000-0000-4000-8000-%012llx",
                static_cast<unsigned long long>(n));
  return buffer;
}

void fail_task(state& s, task_record& task, task_event cause, const std::string& reason,
               const std::string& message) {
  cancel(s, task.serial);
  move_noted(s, task.status, cause);
  task.pending.clear();
  task.error = json{{"reason", reason}, {"message", message}};
}

void issue_step(state& s, task_record& task) {
  if (task.steps >= s.config.max_model_steps) {
    fail_task(s, task, task_event::step_limit_reached, "max_steps_exceeded",
              "the model took more than the allowed steps");
    return;
  }
  ++task.steps;
  offered_tools::builder tools;
  for (const auto& tool : task.client_tools)
    tools.add(s.policy->offered_task_tool_name(tool), tool);
  task.waiting_step = request_model_step(s, {model_step_request::owner_kind::task, task.uuid},
                                         task.conversation.messages(), std::move(tools).build());
}

//! Sends the current round's results to the model and runs the next step.
void continue_task(state& s, task_record& task) {
  for (const auto& [model_call_id, content] : task.round) {
    // Why: a round may settle without some results (policy.hpp, check_round_covered); the
    // model then gets nothing for those calls.
    if (!content) continue;
    task.conversation.append(
        {{"role", "tool"}, {"tool_call_id", model_call_id}, {"content", *content}});
  }
  task.round.clear();
  issue_step(s, task);
}

const tool_spec* declared_tool(const task_record& task, const std::string& name) {
  for (const auto& tool : task.client_tools) {
    if (tool.name == name) return &tool;
  }
  return nullptr;
}

//! TASK-6: how a result appears as a tool_call item's `output`.
json output_of(const tool_outcome& outcome) {
  if (const auto* error = std::get_if<protocol::tool_error>(&outcome)) {
    return {{"type", "error"}, {"error", error->message}, {"reason", error->reason}};
  }
  const json& content = std::get<json>(outcome);
  const std::string text =
      content.is_string() ? content.get<std::string>() : protocol::safe_dump(content);
  return {{"type", "content"}, {"content", json::array({{{"type", "text"}, {"text", text}}})}};
}

std::string error_content(const std::string& reason, const std::string& message) {
  return protocol::model_content(protocol::tool_error{message, reason});
}

//! Turns one model call into a pending call, or (TASK-8) an error result for the model.
void take_call(state& s, task_record& task, const protocol::model_tool_call& call) {
  const std::size_t round_index = task.round.size();
  // Why bounded: the model is outside input; a value nested too deep is not surfaced.
  auto parsed = protocol::parse_untrusted_json(call.arguments, "arguments");
  json arguments = parsed ? std::move(*parsed) : json(json::value_t::discarded);
  if (!s.policy->surfaced_as_pending(task, call.name)) {
    task.round.emplace_back(
        call.id, error_content("unknown_tool", "'" + call.name + "' is not a tool of this task"));
    return;
  }
  if (arguments.is_discarded()) {
    task.round.emplace_back(
        call.id,
        error_content("invalid_arguments", "arguments of '" + call.name + "' are not JSON"));
    return;
  }
  task.round.emplace_back(call.id, std::nullopt);
  pending_tool_call pending;
  pending.id = "tc_" + std::to_string(task.next_call++);
  pending.name = call.name;
  pending.arguments = arguments;
  pending.round_index = round_index;
  pending.output_index = task.output.size();
  task.output.push_back({{"type", "tool_call"},
                         {"tool_call",
                          {{"name", s.policy->output_tool_name(call.name)},
                           {"input", std::move(arguments)},
                           {"output", nullptr}}}});
  task.pending.push_back(std::move(pending));
}

json pending_json(const state& s, const task_record& task) {
  json calls = json::array();
  for (const auto& call : task.pending) {
    calls.push_back({{"id", s.policy->shown_pending_id(task, call)},
                     {"name", call.name},
                     {"arguments", call.arguments}});
  }
  return calls;
}

//! TASK-4: the ids the items answer, each of them a pending call, named once.
outcome<std::set<std::string>> answered_pending_calls(
    const task_record& task, const protocol::tool_results_request& request) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < request.results.size(); ++i) {
    const std::string& id = request.results[i].id;
    const std::string field = "tool_results[" + std::to_string(i) + "].id";
    const bool known = std::any_of(task.pending.begin(), task.pending.end(),
                                   [&](const pending_tool_call& p) { return p.id == id; });
    if (!known)
      return protocol::invalid_request(field + ": '" + id + "' is not a pending call (TASK-4)");
    if (!seen.insert(id).second) {
      return protocol::invalid_request(field + ": duplicate result for '" + id + "' (TASK-4)");
    }
  }
  return seen;
}

}  // namespace

// Why outside the anonymous namespace: a policy that settles a round its own way records
// each result as the clean rule does (core_state.hpp).
void apply_result(const state& s, task_record& task, const pending_tool_call& call,
                  const tool_outcome& outcome) {
  task.output[call.output_index]["tool_call"]["output"] = output_of(outcome);
  task.round[call.round_index].second = s.policy->task_model_content(outcome);
}

// -- the clean answers of the task rules' decision points (policy.hpp) --------------------

outcome<protocol::task_create_request> rule_policy::read_task_request(const json& body) const {
  return protocol::parse_task_create_request(body);
}

bool rule_policy::knows_assistant(const state& s, std::int64_t assistant_id) const {
  return assistant_id == s.config.assistant_id;
}

std::string rule_policy::task_input_text(const state&, std::string text) const {
  return text;
}

std::string rule_policy::offered_task_tool_name(const tool_spec& tool) const {
  return tool.name;
}

bool rule_policy::model_failure_fails_task() const {
  return true;
}

// Why: `next_call` counts on across rounds, which is what keeps ids unused (TASK-9).
bool rule_policy::call_ids_go_on_across_rounds() const {
  return true;
}

bool rule_policy::surfaced_as_pending(const task_record& task, const std::string& tool) const {
  return declared_tool(task, tool) != nullptr;
}

std::string rule_policy::output_tool_name(const std::string& declared) const {
  return declared;
}

std::optional<time_ms> rule_policy::interrupt_deadline(const state& s, const task_record&,
                                                       time_ms now) const {
  return now + s.config.interrupt_timeout_ms;
}

std::string rule_policy::shown_pending_id(const task_record&, const pending_tool_call& call) const {
  return call.id;
}

std::string_view rule_policy::shown_status(const task_record& task) const {
  return to_string(task.status);
}

std::string_view rule_policy::status_after_tool_results() const {
  return "processing";
}

api_error rule_policy::missing_task_refusal(const std::string& uuid) const {
  return protocol::not_found("no task '" + uuid + "'");
}

// Why nothing: TASK-4 checks the status first, so a task that is not interrupted answers
// 409 whatever the body.
outcome<protocol::done> rule_policy::check_before_status(const task_record&, const json&) const {
  return protocol::done{};
}

outcome<protocol::tool_results_request> rule_policy::read_tool_results(const state&,
                                                                       const json& body) const {
  return protocol::parse_tool_results_request(body);
}

// TASK-4's own body: nothing is applied until the whole body has passed, so a refused
// submission leaves every pending call pending.
// Why `s.policy`, not `this`: the policy in force may answer the reading and the covering
// differently from this one.
round_settlement rule_policy::settle_round(const state& s, const task_record& task,
                                           const json& body) const {
  auto request = s.policy->read_tool_results(s, body);
  if (!request) return {{}, request.error()};
  auto answered = answered_pending_calls(task, *request);
  if (!answered) return {{}, answered.error()};
  if (auto covered = s.policy->check_round_covered(task, *answered); !covered) {
    return {{}, covered.error()};
  }
  return {std::move(request->results), std::nullopt};
}

outcome<protocol::done> rule_policy::check_round_covered(
    const task_record& task, const std::set<std::string>& answered) const {
  std::string missing;
  for (const auto& call : task.pending) {
    if (answered.count(call.id) == 0) missing += (missing.empty() ? "" : ", ") + call.id;
  }
  if (!missing.empty()) {
    return protocol::invalid_request("tool_results: no result for pending call(s) " + missing +
                                     "; every pending call must be covered (TASK-4)");
  }
  return protocol::done{};
}

std::string rule_policy::task_model_content(const tool_outcome& outcome) const {
  return protocol::model_content(outcome);
}

// -- the task rules ------------------------------------------------------------------------

outcome<json> create_task(state& s, const json& body, time_ms now) {
  auto request = s.policy->read_task_request(body);
  if (!request) return request.error();
  if (!s.policy->knows_assistant(s, request->assistant_id)) {
    return protocol::not_found("no assistant " + std::to_string(request->assistant_id));
  }
  task_record task;
  task.serial = s.serial();
  task.uuid = make_uuid(s.next_task++);
  task.assistant_id = request->assistant_id;
  task.created_at = now;
  task.client_tools = std::move(request->client_tools);
  for (const auto& text : request->input_texts) {
    task.conversation.append({{"role", "user"}, {"content", s.policy->task_input_text(s, text)}});
  }
  json response = {{"uuid", task.uuid}, {"status", "pending"}};
  task_record& stored = s.tasks.emplace(task.uuid, std::move(task)).first->second;
  arm_idle_expiry(s, stored, now);
  move_noted(s, stored.status, task_event::step_requested);
  issue_step(s, stored);
  return response;
}

outcome<json> get_task(const state& s, const std::string& uuid) {
  auto found = s.tasks.find(uuid);
  if (found == s.tasks.end()) return protocol::not_found("no task '" + uuid + "'");
  const task_record& task = found->second;
  json body = {{"uuid", task.uuid},
               {"status", s.policy->shown_status(task)},
               {"assistant_id", task.assistant_id},
               {"created_at_ms", task.created_at}};
  if (task.status == task_status::interrupted) body["pending_tool_calls"] = pending_json(s, task);
  if (task.status == task_status::completed) body["output"] = task.output;
  if (task.error) body["error"] = *task.error;
  return body;
}

outcome<json> post_tool_results(state& s, const std::string& uuid, const json& body,
                                time_ms /*now*/) {
  auto found = s.tasks.find(uuid);
  if (found == s.tasks.end()) return s.policy->missing_task_refusal(uuid);
  task_record& task = found->second;
  if (auto early = s.policy->check_before_status(task, body); !early) return early.error();
  if (!allows(task.status, task_event::tool_results)) {
    refusal_noted(s, task.status, task_event::tool_results);
    return protocol::conflict("task '" + uuid + "' is " + std::string(to_string(task.status)) +
                              ", not interrupted (TASK-4)");
  }
  round_settlement settled = s.policy->settle_round(s, task, body);
  for (const auto& item : settled.applied) {
    auto call = std::find_if(task.pending.begin(), task.pending.end(),
                             [&](const pending_tool_call& p) { return p.id == item.id; });
    if (call == task.pending.end()) {  // a policy bug; the command is undone (core.cpp)
      throw std::logic_error("tool-results settle '" + item.id + "', which is not pending");
    }
    apply_result(s, task, *call, item.outcome);
    task.pending.erase(call);
  }
  if (settled.refusal) return *settled.refusal;
  task.pending.clear();
  cancel(s, task.serial);
  move_noted(s, task.status, task_event::tool_results);
  continue_task(s, task);
  return json{{"uuid", task.uuid}, {"status", s.policy->status_after_tool_results()}};
}

void task_model_replied(state& s, task_record& task, const model_reply& reply, time_ms now) {
  task.waiting_step = 0;
  if (!reply.answer) {
    if (s.policy->model_failure_fails_task()) {
      fail_task(s, task, task_event::model_failed, "model_error", reply.failure);
    }
    return;
  }
  const protocol::model_answer answer = s.policy->answer_as_taken(*reply.answer);
  task.conversation.append(protocol::to_assistant_message(answer));
  if (answer.text && !answer.text->empty()) {
    task.output.push_back({{"type", "text"}, {"text", *answer.text}});
  }
  if (answer.tool_calls.empty()) {
    move_noted(s, task.status, task_event::text_answer);
    return;
  }
  task.round.clear();
  if (!s.policy->call_ids_go_on_across_rounds()) task.next_call = 1;
  for (const auto& call : answer.tool_calls)
    take_call(s, task, call);
  if (task.pending.empty()) {  // TASK-8: nothing surfaced, so the task stays processing
    continue_task(s, task);
    return;
  }
  move_noted(s, task.status, task_event::tool_calls);
  if (auto deadline = s.policy->interrupt_deadline(s, task, now)) {
    task.interrupt_deadline = deadline;
    schedule(s, task.serial, *deadline, {timer_kind::task_interrupt, task.uuid, ""});
  }
}

void on_interrupt_deadline(state& s, task_record& task, time_ms /*now*/) {
  if (!allows(task.status, task_event::interrupt_deadline_passed)) return;
  fail_task(s, task, task_event::interrupt_deadline_passed, "tool_results_timeout",
            "no tool results within " + std::to_string(s.config.interrupt_timeout_ms) + " ms");
}

}  // namespace toolwire::reference_server::detail
