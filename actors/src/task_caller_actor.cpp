// Task callers (SPEC Part B): create a task, poll it, answer every pending call.
#include <functional>
#include <set>

#include "requests.hpp"
#include "toolwire/actors/participants.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::actors {

namespace {

struct task_caller_state {
  scenarios::task_caller_spec spec;
  server_actor target;
  std::string api_key;
  run_context* context = nullptr;
  std::string uuid;
  std::set<std::string> answered;  // call ids already answered (TASK-9: never pending again)
  json last_round;                 // repeat_results: the results of the last accepted round
  bool done = false;
  static inline const char* name = "task_caller";
};

using caller_self = caf::stateful_actor<task_caller_state>*;

void request(caller_self self, protocol::route_id id, std::initializer_list<std::string_view> ids,
             const json& body, std::function<void(const protocol::api_response&)> then) {
  auto& st = self->state;
  detail::send_request(self, st.target, st.context, st.spec.actor,
                       detail::make_request(id, ids, body, st.api_key), std::move(then));
}

void schedule_poll(caller_self self) {
  self->delayed_send(self, std::chrono::milliseconds(self->state.spec.poll_every), act_atom::value,
                     std::string("poll"));
}

json results_for(const task_caller_state& st, const json& pending) {
  json results = json::array();
  for (const auto& call : pending) {
    json item = {{"id", protocol::string_at(call, "id")}};
    if (st.spec.error_results) {
      item["error"] = "the caller's tool failed";
      item["reason"] = "client_error";
    } else {
      item["content"] = st.spec.result_content;
    }
    results.push_back(std::move(item));
  }
  return results;
}

//! Posts the last accepted round's results again (repeat_results), then `then`.
void repeat_round(caller_self self, std::function<void()> then) {
  request(self, protocol::route_id::post_tool_results, {self->state.uuid}, self->state.last_round,
          [then = std::move(then)](const protocol::api_response&) { then(); });
}

void answer(caller_self self, const json& pending) {
  auto& st = self->state;
  for (const auto& call : pending)
    st.answered.insert(protocol::string_at(call, "id"));
  auto answer_all = [self, pending] {
    const json round = {{"tool_results", results_for(self->state, pending)}};
    request(self, protocol::route_id::post_tool_results, {self->state.uuid}, round,
            [self, round](const protocol::api_response& response) {
              if (!self->state.spec.repeat_results || response.status != 200)
                return schedule_poll(self);
              // Accepted: the task is processing now, and a repeat is refused (TASK-4).
              self->state.last_round = round;
              repeat_round(self, [self] { schedule_poll(self); });
            });
  };
  if (!st.spec.partial_results || pending.size() < 2) return answer_all();
  // The first result alone first: a server must refuse a partial round (TASK-4).
  request(self, protocol::route_id::post_tool_results, {st.uuid},
          {{"tool_results", results_for(st, json::array({pending[0]}))}},
          [answer_all](const protocol::api_response&) { answer_all(); });
}

void on_status(caller_self self, const protocol::api_response& response) {
  auto& st = self->state;
  const std::string status = protocol::string_at(response.body, "status");
  if (response.status != 200 || status == "completed" || status == "failed") {
    st.done = true;
    // The task is over: its last round once more, refused whatever the items (TASK-4).
    if (response.status == 200 && !st.last_round.is_null()) repeat_round(self, [] {});
    return;
  }
  if (status == "interrupted" && response.body.contains("pending_tool_calls")) {
    const json pending = response.body["pending_tool_calls"];
    const bool fresh = pending.is_array() && !pending.empty() &&
                       st.answered.count(protocol::string_at(pending[0], "id")) == 0;
    if (fresh) {
      self->delayed_send(self, std::chrono::milliseconds(st.spec.answer_delay), act_atom::value,
                         std::string("answer:") + pending.dump());
      return;
    }
  }
  schedule_poll(self);
}

void create(caller_self self) {
  auto& st = self->state;
  json tools = json::array();
  for (const auto& tool : st.spec.client_tools) {
    tools.push_back({{"name", tool.name},
                     {"description", tool.description},
                     {"input_schema", tool.parameters}});
  }
  request(self, protocol::route_id::create_task, {},
          {{"assistant_id", st.context->settings.assistant_id},
           {"input", json::array({{{"type", "text"},
                                   {"text", st.context->settings.message_tag + st.spec.input}}})},
           {"client_tools", tools}},
          [self](const protocol::api_response& response) {
            if (response.status != 201) {
              self->state.done = true;
              return;
            }
            self->state.uuid = protocol::string_at(response.body, "uuid");
            schedule_poll(self);
          });
}

caf::behavior task_caller(caller_self self, scenarios::task_caller_spec spec, server_actor target,
                          std::string api_key, run_context* context) {
  auto& st = self->state;
  st.spec = std::move(spec);
  st.target = std::move(target);
  st.api_key = std::move(api_key);
  st.context = context;
  const time_ms delay = std::max<time_ms>(0, st.spec.start_at - run_context::elapsed(self));
  self->delayed_send(self, std::chrono::milliseconds(delay), act_atom::value, std::string("start"));
  return {
      [=](act_atom, const std::string& what) {
        auto& st = self->state;
        if (st.done) return;
        if (what == "start") return create(self);
        if (what == "poll") {
          return request(self, protocol::route_id::get_task, {st.uuid}, json(),
                         [self](const protocol::api_response& r) { on_status(self, r); });
        }
        if (what.rfind("answer:", 0) == 0) answer(self, json::parse(what.substr(7)));
      },
  };
}

}  // namespace

caf::actor spawn_task_caller(caf::local_actor* parent, scenarios::task_caller_spec spec,
                             server_actor target, std::string api_key, run_context* context) {
  return parent->spawn(task_caller, std::move(spec), std::move(target), std::move(api_key),
                       context);
}

}  // namespace toolwire::actors
