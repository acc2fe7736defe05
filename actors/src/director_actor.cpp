// The director: creates the session, starts the participants, plays the scripted steps
// one after another at their times, and stops the participants when the time is up.
#include <algorithm>
#include <map>

#include "requests.hpp"
#include "script_actions.hpp"
#include "toolwire/actors/participants.hpp"
#include "toolwire/actors/vocabulary.hpp"
#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::actors {

namespace {

struct director_state {
  const scenario* plan = nullptr;
  target_actor target;
  run_context* context = nullptr;
  session_access access;
  // Everyone it started, in that order, to stop at the end. Why untyped: the director
  // only stops them, and task callers have no typed interface.
  std::vector<caf::actor> participants;
  std::map<std::string, client_actor> clients;  // actor name -> client actor
  std::size_t next_step = 0;
  static inline const char* name = "director";
};

using self_pointer = director_actor::stateful_pointer<director_state>;

void request(self_pointer self, protocol::api_request request,
             std::function<void(const protocol::api_response&)> then,
             std::optional<std::size_t> step = std::nullopt) {
  auto& st = self->state;
  detail::send_request(self, st.target, st.context, "director", std::move(request), std::move(then),
                       step);
}

protocol::api_request with_key(std::string method, std::string path, const json& body,
                               const std::string& key) {
  return detail::make_request(std::move(method), std::move(path), body, key);
}

bool needs_other_session(const scenario& plan) {
  return std::any_of(plan.steps.begin(), plan.steps.end(), [](const scripted_step& step) {
    return step.args.value("credential", "") == "other_token" ||
           step.args.value("path", "").find("{other_sid}") != std::string::npos;
  });
}

void schedule_next(self_pointer self);

//! The step is over (its response arrived, or it could not be sent): on to the next.
void step_done(self_pointer self) {
  ++self->state.next_step;
  schedule_next(self);
}

void step_error(self_pointer self, std::size_t index, const std::string& message) {
  self->state.context->record(self, "director", "step_error", [&] {
    return json{{"step", index}, {"message", message}};
  });
}

//! Marks where the step's trace-level expectations are checked, with every reference
//! ({cid:tab}, call 2, task labels) resolved as it stands now.
void mark_expectations(self_pointer self, std::size_t index, const scripted_step& step) {
  auto& st = self->state;
  st.context->record(self, "director", "expect", [&] {
    json resolved = json::array();
    for (const auto& expected : step.expect) {
      json args = detail::fill_templates(st.context->script, expected.args);
      const auto kind = vocabulary::expectation_named(expected.kind);
      if (kind == vocabulary::expectation_id::call_settled) {
        auto call = detail::resolve_call(st.context->script, args["call"]);
        args["call_id"] = call ? json(*call) : json(nullptr);
      }
      if (kind == vocabulary::expectation_id::task_status) {
        auto it = st.context->script.tasks.find(args.value("task", ""));
        args["task_uuid"] = it == st.context->script.tasks.end() ? json(nullptr) : json(it->second);
      }
      resolved.push_back(std::move(args));
    }
    return json{{"step", index}, {"session", st.context->script.session_id}, {"args", resolved}};
  });
}

void perform_as_director(self_pointer self, std::size_t index, const scripted_step& step) {
  auto& st = self->state;
  auto built = detail::request_for(step, {"director", nullptr}, st.context->script);
  if (!built) {
    step_error(self, index, built.error().message);
    return step_done(self);
  }
  request(
      self, std::move(*built),
      [self, index](const protocol::api_response& response) {
        auto& st = self->state;
        detail::learn(st.context->script, st.plan->steps[index], "director", response);
        step_done(self);
      },
      index);
}

void perform_by_client(self_pointer self, std::size_t index, const scripted_step& step) {
  auto client = self->state.clients.find(step.actor);
  if (client == self->state.clients.end()) {
    step_error(self, index, "no client actor '" + step.actor + "'");
    return step_done(self);
  }
  self->request(client->second, caf::infinite, perform_atom::value, std::uint64_t{index})
      .then([self](bool) { step_done(self); },
            [self, index](const caf::error& error) {
              step_error(self, index, self->system().render(error));
              step_done(self);
            });
}

void play(self_pointer self, std::size_t index) {
  const auto& step = self->state.plan->steps[index];
  const bool checks_trace =
      std::any_of(step.expect.begin(), step.expect.end(), [](const expectation& e) {
        return vocabulary::expectation_named(e.kind) != vocabulary::expectation_id::response;
      });
  if (checks_trace) mark_expectations(self, index, step);
  if (step.action.empty() || step.action == "advance") return step_done(self);
  if (step.actor != "director") return perform_by_client(self, index, step);
  perform_as_director(self, index, step);
}

void schedule_next(self_pointer self) {
  auto& st = self->state;
  if (st.next_step >= st.plan->steps.size()) return;
  const time_ms at = st.plan->steps[st.next_step].at;
  const time_ms now = run_context::elapsed(self);
  if (at <= now) return play(self, st.next_step);
  self->delayed_send(self, std::chrono::milliseconds(at - now), play_atom::value);
}

void start_participants(self_pointer self) {
  auto& st = self->state;
  for (const auto& spec : st.plan->clients) {
    auto client = spawn_client(self, spec, st.target, st.access, st.context);
    st.clients[spec.actor] = client;
    st.participants.push_back(caf::actor_cast<caf::actor>(client));
  }
  for (const auto& spec : st.plan->task_callers) {
    st.participants.push_back(
        spawn_task_caller(self, spec, st.target, st.access.api_key, st.context));
  }
  schedule_next(self);
  self->delayed_send(self, std::chrono::milliseconds(end_of(*st.plan)), end_atom::value);
}

//! The director watches the session's stream too: scripted steps name calls by their
//! order of dispatch ("call 2"), which only the stream tells.
void observe(self_pointer self) {
  auto& st = self->state;
  request(self,
          with_key("GET", "/v1/sessions/" + st.access.session_id + "/events", json(),
                   st.access.api_key),
          [self](const protocol::api_response&) { start_participants(self); });
}

void create_other_session(self_pointer self) {
  request(self, with_key("POST", "/v1/sessions", json::object(), self->state.access.api_key),
          [self](const protocol::api_response& response) {
            auto& script = self->state.context->script;
            script.other_session_id = protocol::string_at(response.body, "id");
            script.other_token = protocol::string_at(response.body, "token");
            if (self->state.context->trace != nullptr) {
              self->state.context->trace->add_secret(script.other_token);
            }
            observe(self);
          });
}

void on_session(self_pointer self, const protocol::api_response& response) {
  auto& st = self->state;
  if (response.status != 201) return;
  st.access.session_id = protocol::string_at(response.body, "id");
  st.access.token = protocol::string_at(response.body, "token");
  st.context->script.session_id = st.access.session_id;
  st.context->script.token = st.access.token;
  if (st.context->trace != nullptr) st.context->trace->add_secret(st.access.token);
  if (needs_other_session(*st.plan)) return create_other_session(self);
  observe(self);
}

void on_event(self_pointer self, const reference_server::session_event& event) {
  auto& script = self->state.context->script;
  if (event.session_id != script.session_id) return;
  if (protocol::parse_event_type(event.type) == protocol::event_type::client_tool_dispatched) {
    script.dispatched.push_back(event.data);
  }
}

void end(self_pointer self) {
  auto& st = self->state;
  st.context->record(self, "director", "end", [] { return json::object(); });
  for (const auto& participant : st.participants) {
    self->send_exit(participant, caf::exit_reason::user_shutdown);
  }
  st.participants.clear();
  st.clients.clear();
}

director_actor::behavior_type director(self_pointer self, const scenario* plan, target_actor target,
                                       run_context* context) {
  auto& st = self->state;
  st.plan = plan;
  st.target = std::move(target);
  st.context = context;
  st.access.api_key = context->script.api_key;
  request(self, with_key("POST", "/v1/sessions", json::object(), st.access.api_key),
          [self](const protocol::api_response& response) { on_session(self, response); });
  return {
      [=](play_atom) { play(self, self->state.next_step); },
      [=](end_atom) { end(self); },
      [=](event_atom, const reference_server::session_event& event) { on_event(self, event); },
      [=](stream_gap_atom, const std::string&, std::uint64_t) {},
  };
}

}  // namespace

director_actor spawn_director(caf::actor_system& system, const scenario& plan, target_actor target,
                              run_context* context) {
  return system.spawn(director, &plan, std::move(target), context);
}

}  // namespace toolwire::actors
