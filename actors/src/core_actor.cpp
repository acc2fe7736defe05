// The in-process target: the reference core driven by messages on the actor clock.
#include "toolwire/actors/core_actor.hpp"

#include <memory>

#include "toolwire/reference_server/router.hpp"
#include "toolwire/reference_server/virtual_clock.hpp"

namespace toolwire::actors {

namespace {

//! The core's `now` is the actor clock: the harness moves it, nobody reads a wall clock.
class actor_clock_source final : public reference_server::clock_source {
 public:
  actor_clock_source(const caf::local_actor* self, const run_context* context)
      : self_(self), context_(context) {}
  time_ms now() const override { return context_->target_now(self_); }
  // In-process, time passes by waiting (the advance message), not through CLOCK-1.
  bool is_virtual() const override { return false; }
  time_ms advance(reference_server::core&, time_ms) override { return now(); }

 private:
  const caf::local_actor* self_;
  const run_context* context_;
};

struct stream {
  caf::actor subscriber;
  std::string session_id;
  std::uint64_t last_sent = 0;
};

struct pending_advance {
  time_ms due = 0;
  caf::typed_response_promise<std::int64_t> promise;
};

struct target_state {
  std::unique_ptr<reference_server::core> core;
  std::unique_ptr<actor_clock_source> clock;
  std::unique_ptr<reference_server::router> router;
  run_context* context = nullptr;
  caf::actor model;
  std::vector<stream> streams;  // in the order they opened: delivery order is deterministic
  std::optional<time_ms> armed;
  std::vector<pending_advance> advances;
  static inline const char* name = "target";

  target_state() = default;
  target_state(const target_state&) = delete;
  target_state& operator=(const target_state&) = delete;
  //! Why here: the actor's state goes when the run tears it down, after its last command,
  //! so what the core reached is complete (explore's coverage).
  ~target_state() {
    if (context != nullptr && context->life_cycle_reached != nullptr && core) {
      *context->life_cycle_reached = core->life_cycle_reached();
    }
  }
};

using self_pointer = server_actor::stateful_pointer<target_state>;

//! The tool messages the model gets in this step: those after the last assistant message.
json new_tool_results(const json& body) {
  json results = json::array();
  for (const auto& message : body["messages"]) {
    if (message["role"] == "assistant") results = json::array();
    if (message["role"] == "tool") {
      results.push_back(
          {{"tool_call_id", message["tool_call_id"]}, {"content", message["content"]}});
    }
  }
  return results;
}

void send_window(self_pointer self, stream& s, std::uint64_t after) {
  const auto window = self->state.core->events_after(s.session_id, after);
  if (window.gap_oldest_seq) {
    caf::anon_send(s.subscriber, stream_gap_atom::value, s.session_id, *window.gap_oldest_seq);
  }
  for (const auto& event : window.events) {
    caf::anon_send(s.subscriber, event_atom::value, event);
    s.last_sent = event.seq;
  }
}

void arm_timer(self_pointer self) {
  auto& st = self->state;
  const auto due = st.core->next_deadline();
  if (due && st.context->deadlines != nullptr) {
    st.context->deadlines->push_back(
        {st.clock->now() - st.context->epoch_ms, *due - st.context->epoch_ms});
  }
  if (!due) {
    st.armed.reset();  // the pending tick, if any, is now stale and will be ignored
    return;
  }
  // An earlier tick already armed fires first and re-arms then: on_timeout is harmless
  // when early, and one tick per ping (each pushing the deadline back) would flood.
  if (st.armed && *st.armed <= *due) return;
  st.armed = due;
  const time_ms delay = std::max<time_ms>(0, *due - st.clock->now());
  self->delayed_send(self, std::chrono::milliseconds(delay), tick_atom::value, *due);
}

//! Hands the core's outputs on: events to the trace and the open streams, model steps
//! to the model. Called after every call into the core.
void flush(self_pointer self) {
  auto& st = self->state;
  auto out = st.core->drain();
  // A core bug where no request waits (a timer, a model reply): undone by the core and
  // kept in the trace, so a run that met one says so.
  for (const auto& error : out.internal_errors) {
    st.context->record(self, "target", "internal_error", [&] { return json{{"message", error}}; });
  }
  for (const auto& event : out.events) {
    st.context->record(self, "target", "event", [&] {
      return json{{"session", event.session_id},
                  {"seq", event.seq},
                  {"type", event.type},
                  {"data", event.data}};
    });
    for (auto& s : st.streams) {
      if (s.session_id == event.session_id && event.seq > s.last_sent) {
        caf::anon_send(s.subscriber, event_atom::value, event);
        s.last_sent = event.seq;
      }
    }
  }
  for (const auto& step : out.model_steps) {
    st.context->record(self, "target", "model_step", [&] {
      const bool turn = step.owner == reference_server::model_step_request::owner_kind::turn;
      return json{
          {"step_id", step.step_id},       {"owner", turn ? "turn" : "task"},
          {"owner_id", step.owner_id},     {"after_seq", step.after_seq},
          {"offered", step.tools.names()}, {"tool_results", new_tool_results(step.conversation)}};
    });
    if (st.model) caf::anon_send(st.model, model_step_atom::value, step);
  }
  arm_timer(self);
}

protocol::api_response handle_request(self_pointer self, const protocol::api_request& request) {
  auto& st = self->state;
  auto response = st.router->handle(request);
  if (response.stream) {
    st.streams.push_back({caf::actor_cast<caf::actor>(self->current_sender()),
                          response.stream->session_id, response.stream->after_seq});
    // SES-3 replay: the retained events after Last-Event-ID (or a gap) go out first.
    // In-process they may reach the subscriber before its 200; subscribers accept both.
    send_window(self, st.streams.back(), response.stream->after_seq);
  }
  flush(self);
  return response;
}

void on_tick(self_pointer self, time_ms due) {
  auto& st = self->state;
  const time_ms now = st.clock->now();
  for (auto it = st.advances.begin(); it != st.advances.end();) {
    if (it->due <= now) {
      it->promise.deliver(now);
      it = st.advances.erase(it);
    } else {
      ++it;
    }
  }
  if (!st.armed || *st.armed != due) return;  // a timer since re-armed elsewhere
  st.armed.reset();
  const auto next = st.core->next_deadline();
  if (next && *next <= now) {
    st.context->record(self, "target", "timer", [&] {
      return json{{"due", *next - st.context->epoch_ms}};
    });
    st.core->on_timeout(now);
  }
  flush(self);
}

server_actor::behavior_type core_actor(self_pointer self, reference_server::core_config config,
                                       run_context* context) {
  auto& st = self->state;
  st.context = context;
  st.core = std::make_unique<reference_server::core>(std::move(config));
  st.clock = std::make_unique<actor_clock_source>(self, context);
  st.router = std::make_unique<reference_server::router>(*st.core, *st.clock);
  return {
      [=](request_atom, const protocol::api_request& request) -> protocol::api_response {
        return handle_request(self, request);
      },
      [=](close_stream_atom, const std::string& session_id) {
        auto sender = caf::actor_cast<caf::actor>(self->current_sender());
        auto& streams = self->state.streams;
        streams.erase(std::remove_if(streams.begin(), streams.end(),
                                     [&](const stream& s) {
                                       return s.subscriber == sender && s.session_id == session_id;
                                     }),
                      streams.end());
      },
      [=](attach_model_atom, caf::actor model) { self->state.model = std::move(model); },
      [=](model_reply_atom, std::uint64_t step_id, const reference_server::model_reply& reply) {
        self->state.core->model_replied(step_id, reply, self->state.clock->now());
        flush(self);
      },
      [=](advance_atom, std::int64_t ms) -> caf::typed_response_promise<std::int64_t> {
        auto promise = self->make_response_promise<std::int64_t>();
        const time_ms due = self->state.clock->now() + ms;
        self->state.advances.push_back({due, promise});
        // A tick with due -1 only wakes pending advances; it never fires the core.
        self->delayed_send(self, std::chrono::milliseconds(ms), tick_atom::value, std::int64_t{-1});
        return promise;
      },
      [=](tick_atom, std::int64_t due) { on_tick(self, due); },
  };
}

}  // namespace

server_actor spawn_core_actor(caf::actor_system& system, reference_server::core_config config,
                              run_context* context) {
  return system.spawn(core_actor, std::move(config), context);
}

}  // namespace toolwire::actors
