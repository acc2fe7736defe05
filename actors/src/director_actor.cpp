// The director: creates the session, starts the participants, plays the scripted steps
// one after another at their times, and stops the participants when the time is up. It
// alone holds what the steps refer to (script_state): it learns from its own responses
// and stream, and from what the clients and the model tell it.
#include <algorithm>
#include <map>

#include "requests.hpp"
#include "script_actions.hpp"
#include "toolwire/actors/participants.hpp"
#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/scenarios/vocabulary.hpp"

namespace toolwire::actors {

namespace {

struct director_state {
  const scenarios::scenario* plan = nullptr;
  server_actor target;
  run_context* context = nullptr;
  session_access access;
  detail::script_state script;
  // Everyone it started, in that order, to stop at the end. Why untyped: the director
  // only stops them, and task callers have no typed interface.
  std::vector<caf::actor> participants;
  std::map<std::string, client_actor> clients;  // actor name -> client actor
  std::size_t next_step = 0;
  //! Since when the next step has waited for what the target owes (awaits_the_target).
  std::optional<time_ms> owed_since;
  //! On a real clock: how far behind its written time the latest step played, because one
  //! before it waited for what the target owed. Every step of a later instant keeps that
  //! delay, so the gaps between steps stay as written. Why not play the late ones at once:
  //! two messages written 101 ms apart went out together, and the second met the first's
  //! turn still running on the target (409) where the reference had finished it (explore on
  //! a real clock, seed 7000, program 55).
  time_ms carried_late_ms = 0;
  //! Of run_context::wall_blocked_ms, how much carried_late_ms already holds.
  time_ms blocked_seen_ms = 0;
  //! Of blocked_seen_ms, how much the end of the scenario was already moved by.
  time_ms end_moved_ms = 0;
  //! The written instant of the steps now playing and the delay they share: steps of one
  //! instant keep one delay, so that those waiting for one thing wait out one window.
  time_ms instant_written = -1;
  time_ms instant_delay = 0;
  static inline const char* name = "director";
};

using director_self = director_actor::stateful_pointer<director_state>;

void step_error(director_self self, std::size_t index, const std::string& message,
                const std::string& performer = "director");
void step_done(director_self self);

//! A step's request that got no answer is that step's error, and the script goes on.
void request(director_self self, protocol::api_request request,
             std::function<void(const protocol::api_response&)> then,
             std::optional<std::size_t> step = std::nullopt) {
  auto& st = self->state;
  std::function<void(const std::string&)> on_failure;
  if (step) {
    on_failure = [self, index = *step](const std::string& why) {
      step_error(self, index, "no answer: " + why);
      step_done(self);
    };
  }
  detail::send_request(self, st.target, st.context, "director", std::move(request), std::move(then),
                       step, std::move(on_failure));
}

bool needs_other_session(const scenarios::scenario& plan) {
  return std::any_of(plan.steps.begin(), plan.steps.end(),
                     [](const scenarios::scripted_step& step) {
                       return step.args.value("credential", "") == "other_token" ||
                              step.args.value("path", "").find("{other_sid}") != std::string::npos;
                     });
}

void schedule_next(director_self self);

//! The step is over (its response arrived, or it could not be sent): on to the next.
void step_done(director_self self) {
  self->state.owed_since.reset();
  ++self->state.next_step;
  schedule_next(self);
}

//! Plays the current step again in `retry_ms`, unless owed_wait_ms have passed since its
//! written time. Why since then and not since it first waited: steps due at one instant
//! that wait for one thing would otherwise wait one after another, the last past the
//! run's end. True when it will be played again.
bool play_again_within_window(director_self self, time_ms retry_ms) {
  auto& st = self->state;
  const time_ms now = run_context::elapsed(self);
  if (!st.owed_since) st.owed_since = st.plan->steps[st.next_step].at + st.instant_delay;
  const time_ms window_end = *st.owed_since + st.script.owed_wait_ms;
  if (now >= window_end) return false;
  // The last try falls on the window's end, not past it: the run (and explore's
  // comparison) ends one window after the last step, and a step due there that gave up a
  // retry later would show nothing (found by explore on a real clock, seed 6000).
  self->delayed_send(self, std::chrono::milliseconds(std::min(retry_ms, window_end - now)),
                     play_atom::value);
  return true;
}

//! Why: on a real clock a slow target shows a dispatch later than the step's time; the
//! step then waits for it (a few ms at a time, up to owed_wait_ms) instead of failing
//! at a fixed offset. True when the step will be played again.
bool wait_for_what_is_owed(director_self self, const protocol::api_error& error) {
  if (!detail::awaits_the_target(error) || self->state.script.owed_wait_ms <= 0) return false;
  constexpr time_ms retry_ms = 5;
  return play_again_within_window(self, retry_ms);
}

//! The status a poll step's response is expected to show (`expect: {body: {status: S}}`).
std::optional<std::string> expected_task_status(const scenarios::scripted_step& step) {
  if (!step.performs(scenarios::vocabulary::action_id::poll)) return std::nullopt;
  for (const auto& expected : step.expect) {
    if (scenarios::vocabulary::expectation_named(expected.kind) !=
        scenarios::vocabulary::expectation_id::response) {
      continue;
    }
    const auto body = expected.args.find("body");
    if (body == expected.args.end() || !body->is_object()) continue;
    const auto status = body->find("status");
    if (status != body->end() && status->is_string()) return status->get<std::string>();
  }
  return std::nullopt;
}

//! Whether a task on `seen` may still reach `wanted` by time alone (TASK-5's order): a
//! timer (TASK-7) or the model's answer moves it on. Not pending → processing: accepted
//! results return a task to processing at once (TASK-4), so a pending task there is wrong,
//! not late.
bool may_still_reach(const std::string& seen, const std::string& wanted) {
  const bool open = seen == "pending" || seen == "processing" || seen == "interrupted";
  if (wanted == "completed" || wanted == "failed") return open;
  if (wanted == "interrupted") return seen == "pending" || seen == "processing";
  return false;
}

//! Why: on a real clock a slow target moves a task later than the step's time (its
//! deadline timer fires late, its model request leaves late); a poll that expects a status
//! the task may still reach polls again (every 20 ms, up to owed_wait_ms) instead of being
//! judged on the status the target was on its way from. The last poll's response is the
//! step's. True when the step will be played again.
bool poll_again_for_owed_status(director_self self, std::size_t index,
                                const protocol::api_response& response) {
  auto& st = self->state;
  if (st.script.owed_wait_ms <= 0 || response.status != 200 || !response.body.is_object()) {
    return false;
  }
  const auto wanted = expected_task_status(st.plan->steps[index]);
  if (!wanted || !may_still_reach(protocol::string_at(response.body, "status"), *wanted)) {
    return false;
  }
  constexpr time_ms repoll_ms = 20;
  return play_again_within_window(self, repoll_ms);
}

//! Records that step `index` could not be performed, under the actor that performs it.
void step_error(director_self self, std::size_t index, const std::string& message,
                const std::string& performer) {
  self->state.context->record(self, performer, "step_error", [&] {
    return json{{"step", index}, {"message", message}};
  });
}

//! Marks where the step's trace-level expectations are checked, with every reference
//! ({cid:tab}, call 2, task labels) resolved as it stands now.
void mark_expectations(director_self self, std::size_t index,
                       const scenarios::scripted_step& step) {
  auto& st = self->state;
  st.context->record(self, "director", "expect", [&] {
    json resolved = json::array();
    for (const auto& expected : step.expect) {
      json args = detail::fill_templates(st.script, expected.args);
      const auto kind = scenarios::vocabulary::expectation_named(expected.kind);
      if (kind == scenarios::vocabulary::expectation_id::call_settled) {
        auto call = detail::resolve_call(st.script, args["call"]);
        args["call_id"] = call ? json(*call) : json(nullptr);
      }
      if (kind == scenarios::vocabulary::expectation_id::task_status) {
        auto it = st.script.tasks.find(args.value("task", ""));
        args["task_uuid"] = it == st.script.tasks.end() ? json(nullptr) : json(it->second);
      }
      resolved.push_back(std::move(args));
    }
    json marker = {{"step", index}, {"session", st.script.session_id}, {"args", resolved}};
    // On a real clock what the target owes may come this much later (see expectations).
    if (st.script.owed_wait_ms > 0) marker["grace_ms"] = st.script.owed_wait_ms;
    return marker;
  });
}

void perform_as_director(director_self self, std::size_t index,
                         const scenarios::scripted_step& step) {
  auto& st = self->state;
  auto built = detail::request_for(step, {"director", nullptr}, st.script);
  if (!built) {
    if (wait_for_what_is_owed(self, built.error())) return;
    step_error(self, index, built.error().message);
    return step_done(self);
  }
  request(
      self, std::move(*built),
      [self, index](const protocol::api_response& response) {
        auto& st = self->state;
        if (poll_again_for_owed_status(self, index, response)) return;
        detail::learn(st.script, st.plan->steps[index], "director", response);
        step_done(self);
      },
      index);
}

//! The client's own actions it performs itself; for any other, the director builds the
//! request from what it knows and the client sends it in its own name.
void perform_by_client(director_self self, std::size_t index,
                       const scenarios::scripted_step& step) {
  auto& st = self->state;
  auto client = st.clients.find(step.actor);
  if (client == st.clients.end()) {
    step_error(self, index, "no client actor '" + step.actor + "'");
    return step_done(self);
  }
  auto on_error = [self, index](const caf::error& error) {
    step_error(self, index, self->system().render(error));
    step_done(self);
  };
  if (detail::performed_by_the_client_itself(step)) {
    self->request(client->second, caf::infinite, perform_atom::value, std::uint64_t{index})
        .then([self](bool) { step_done(self); }, on_error);
    return;
  }
  const auto spec =
      std::find_if(st.plan->clients.begin(), st.plan->clients.end(),
                   [&](const scenarios::client_spec& c) { return c.actor == step.actor; });
  auto built = detail::request_for(step, {step.actor, &*spec}, st.script);
  if (!built) {
    if (wait_for_what_is_owed(self, built.error())) return;
    step_error(self, index, built.error().message, step.actor);
    return step_done(self);
  }
  self->request(client->second, caf::infinite, perform_atom::value, std::uint64_t{index},
                std::move(*built))
      .then([self](bool) { step_done(self); }, on_error);
}

void play(director_self self, std::size_t index) {
  const auto& step = self->state.plan->steps[index];
  const bool checks_trace =
      std::any_of(step.expect.begin(), step.expect.end(), [](const scenarios::expectation& e) {
        return scenarios::vocabulary::expectation_named(e.kind) !=
               scenarios::vocabulary::expectation_id::response;
      });
  // A step played again after a wait is checked where it was first due.
  if (checks_trace && !self->state.owed_since) mark_expectations(self, index, step);
  if (step.action.empty() || step.performs(scenarios::vocabulary::action_id::advance))
    return step_done(self);
  if (step.actor != "director") return perform_by_client(self, index, step);
  perform_as_director(self, index, step);
}

void schedule_next(director_self self) {
  auto& st = self->state;
  if (st.next_step >= st.plan->steps.size()) return;
  const time_ms written = st.plan->steps[st.next_step].at;
  // A browser step held the harness while the wall clock went on: the actors' clock is
  // that much behind the target's, so every later step plays that much later, and a time
  // counted from the step (`frozen + ttl(tab)`) is counted from when it really happened.
  if (const time_ms blocked = st.context->wall_blocked_ms - st.blocked_seen_ms; blocked > 0) {
    st.blocked_seen_ms = st.context->wall_blocked_ms;
    st.carried_late_ms += blocked;
    st.context->steps_late_ms = std::max(st.context->steps_late_ms, st.carried_late_ms);
    st.instant_written = -1;  // the next step starts a new instant with the new delay
  }
  if (written != st.instant_written) {
    st.instant_written = written;
    st.instant_delay = st.carried_late_ms;
  }
  const time_ms at = written + st.instant_delay;
  const time_ms now = run_context::elapsed(self);
  if (at <= now) {
    st.carried_late_ms = std::max(st.carried_late_ms, now - written);
    st.context->steps_late_ms = std::max(st.context->steps_late_ms, now - written);
    return play(self, st.next_step);
  }
  self->delayed_send(self, std::chrono::milliseconds(at - now), play_atom::value);
}

void start_participants(director_self self) {
  auto& st = self->state;
  for (const auto& spec : st.plan->clients) {
    auto director = caf::actor_cast<director_actor>(self);
    auto client =
        spec.browser
            ? spawn_browser_client(self, spec, std::move(director), st.access, st.context)
            : spawn_client(self, spec, st.target, std::move(director), st.access, st.context);
    st.clients[spec.actor] = client;
    st.context->client_jobs[dynamic_cast<caf::resumable*>(
        caf::actor_cast<caf::abstract_actor*>(client))] = spec.actor;
    st.participants.push_back(caf::actor_cast<caf::actor>(client));
  }
  for (const auto& spec : st.plan->task_callers) {
    st.participants.push_back(
        spawn_task_caller(self, spec, st.target, st.access.api_key, st.context));
  }
  schedule_next(self);
  // On a real clock the run lasts the grace longer: what the last steps expect may be owed.
  self->delayed_send(
      self, std::chrono::milliseconds(scenarios::end_of(*st.plan) + st.script.owed_wait_ms),
      end_atom::value);
}

//! The director watches the session's stream too: scripted steps name calls by their
//! order of dispatch ("call 2"), which only the stream tells.
void observe(director_self self) {
  auto& st = self->state;
  request(self,
          detail::make_request(protocol::route_id::open_events, {st.access.session_id}, json(),
                               st.access.api_key),
          [self](const protocol::api_response&) { start_participants(self); });
}

void create_other_session(director_self self) {
  request(self,
          detail::make_request(protocol::route_id::create_session, {}, json::object(),
                               self->state.access.api_key),
          [self](const protocol::api_response& response) {
            auto& script = self->state.script;
            script.other_session_id = protocol::string_at(response.body, "id");
            script.other_token = protocol::string_at(response.body, "token");
            if (self->state.context->trace != nullptr) {
              self->state.context->trace->add_secret(script.other_token);
            }
            observe(self);
          });
}

void on_session(director_self self, const protocol::api_response& response) {
  auto& st = self->state;
  if (response.status != 201) return;
  st.access.session_id = protocol::string_at(response.body, "id");
  st.access.token = protocol::string_at(response.body, "token");
  st.script.session_id = st.access.session_id;
  st.script.token = st.access.token;
  if (st.context->trace != nullptr) st.context->trace->add_secret(st.access.token);
  if (needs_other_session(*st.plan)) return create_other_session(self);
  observe(self);
}

void on_event(director_self self, const reference_server::session_event& event) {
  auto& script = self->state.script;
  if (event.session_id != script.session_id) return;
  if (protocol::parse_event_type(event.type) == protocol::event_type::client_tool_dispatched) {
    script.dispatched.push_back(event.data);
  }
}

void end(director_self self) {
  auto& st = self->state;
  st.context->record(self, "director", "end", [] { return json::object(); });
  for (const auto& participant : st.participants) {
    self->send_exit(participant, caf::exit_reason::user_shutdown);
  }
  st.participants.clear();
  st.clients.clear();
}

director_actor::behavior_type director(director_self self, const scenarios::scenario* plan,
                                       server_actor target, run_context* context) {
  auto& st = self->state;
  st.plan = plan;
  st.target = std::move(target);
  st.context = context;
  static_cast<run_settings&>(st.script) = context->settings;
  st.access.api_key = st.script.api_key;
  request(self,
          detail::make_request(protocol::route_id::create_session, {}, json::object(),
                               st.access.api_key),
          [self](const protocol::api_response& response) { on_session(self, response); });
  return {
      [=](play_atom) { play(self, self->state.next_step); },
      [=](end_atom) {
        // The scenario's end moves with its steps when browser steps held the harness.
        auto& st = self->state;
        if (const time_ms more = st.blocked_seen_ms - st.end_moved_ms; more > 0) {
          st.end_moved_ms = st.blocked_seen_ms;
          self->delayed_send(self, std::chrono::milliseconds(more), end_atom::value);
          return;
        }
        end(self);
      },
      [=](event_atom, const reference_server::session_event& event) { on_event(self, event); },
      [=](stream_gap_atom, const std::string&, std::uint64_t) {},
      [=](registered_atom, const std::string& actor, const std::string& client_id) {
        self->state.script.client_ids[actor] = client_id;
      },
      [=](model_calls_atom, const task_model_calls& answer) {
        self->state.script.task_model_calls[answer.task_uuid] = answer.calls;
      },
  };
}

}  // namespace

director_actor spawn_director(caf::actor_system& system, const scenarios::scenario& plan,
                              server_actor target, run_context* context) {
  return system.spawn(director, &plan, std::move(target), context);
}

}  // namespace toolwire::actors
