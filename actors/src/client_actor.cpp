// Client actors: browser tabs, backend workers, navigating, slow, forgetful,
// duplicating and erroring clients, all one behaviour configured by client_spec.
#include "requests.hpp"
#include "script_actions.hpp"
#include "toolwire/actors/participants.hpp"
#include "toolwire/protocol/codec.hpp"
#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::actors {

namespace {

struct client_state {
  scenarios::client_spec spec;
  server_actor target;
  director_actor director;  // told the client id at each registration
  session_access access;
  run_context* context = nullptr;
  std::string client_id;
  std::uint64_t last_seen = 0;  // the seq of the last event its stream delivered
  std::string assigned_name;
  bool registered = false;
  bool listening = false;  // its event stream is open
  bool gone = false;       // vanished, left or expired: it does nothing more by itself
  static inline const char* name = "client";
};

using client_self = client_actor::stateful_pointer<client_state>;
using step_promise = caf::typed_response_promise<bool>;

//! Sends the request of route `id` with the client's own token; the route's path carries
//! the session's id, then `ids` (protocol/routes.hpp).
void request(client_self self, protocol::route_id id, std::initializer_list<std::string_view> ids,
             const json& body, std::function<void(const protocol::api_response&)> then = nullptr) {
  auto& st = self->state;
  std::vector<std::string_view> path_ids = {st.access.session_id};
  path_ids.insert(path_ids.end(), ids.begin(), ids.end());
  detail::send_request(
      self, st.target, st.context, st.spec.actor,
      detail::make_request(std::string(protocol::route_of(id).method),
                           protocol::route_path(id, path_ids), body, st.access.token),
      [then](const protocol::api_response& response) {
        if (then) then(response);
      });
}

//! Sends the client the command `xs...` in `delay` ms.
template <typename... Ts>
void after(client_self self, time_ms delay, Ts&&... xs) {
  self->delayed_send(self, std::chrono::milliseconds(delay), std::forward<Ts>(xs)...);
}

//! Sends the client the command `xs...` at run time `at` (now, if that has passed).
template <typename... Ts>
void later(client_self self, time_ms at, Ts&&... xs) {
  after(self, std::max<time_ms>(0, at - run_context::elapsed(self)), std::forward<Ts>(xs)...);
}

//! Registered: from now on the client behaves as its knobs say.
void on_registered(client_self self, const protocol::api_response& response) {
  auto& st = self->state;
  st.client_id = protocol::string_at(response.body, "client_id");
  st.assigned_name = protocol::string_at(response.body, "name");
  self->send(st.director, registered_atom::value, st.spec.actor, st.client_id);
  st.registered = true;
  st.gone = false;
  if (st.spec.ping_every) after(self, *st.spec.ping_every, ping_atom::value);
  for (std::size_t i = 0; i < st.spec.screens.size(); ++i) {
    later(self, st.spec.screens[i].at, show_screen_atom::value, std::uint64_t{i});
  }
  if (st.spec.vanish_at) later(self, *st.spec.vanish_at, vanish_atom::value);
  if (st.spec.leave_at) later(self, *st.spec.leave_at, leave_atom::value);
}

void register_self(client_self self) {
  auto& st = self->state;
  json body = {{"name", st.spec.requested_name},
               {"lifetime", protocol::to_json(st.spec.lifetime)},
               {"tools", protocol::to_json(st.spec.tools)}};
  ++st.context->registrations_sent[st.spec.actor];
  request(self, protocol::route_id::register_client, {}, body,
          [self](const protocol::api_response& response) {
            if (response.status == 201) return on_registered(self, response);
            self->state.gone = true;
          });
}

//! Opens the client's event stream (after `last_event_id`, when given), then `then`.
void listen(client_self self, std::optional<std::string> last_event_id,
            std::function<void(const protocol::api_response&)> then,
            std::optional<std::size_t> step = std::nullopt,
            std::function<void(const std::string&)> on_failure = nullptr) {
  auto& st = self->state;
  auto open = detail::make_request(protocol::route_id::open_events, {st.access.session_id}, json(),
                                   st.access.token);
  open.last_event_id = std::move(last_event_id);
  // Listening from the request on: in-process a replay can arrive before the 200.
  st.listening = true;
  detail::send_request(
      self, st.target, st.context, st.spec.actor, std::move(open),
      [self, then](const protocol::api_response& response) {
        if (response.status != 200) self->state.listening = false;
        then(response);
      },
      step, std::move(on_failure));
}

void join(client_self self) {
  // The stream opens first so that no event about this client can be missed.
  listen(self, std::nullopt, [self](const protocol::api_response& response) {
    if (response.status == 200) register_self(self);
  });
}

void ping(client_self self) {
  request(self, protocol::route_id::ping, {self->state.client_id}, json(),
          [self](const protocol::api_response& response) {
            auto& st = self->state;
            if (response.status == 404) {
              st.gone = true;  // expired: a tab would register again; this one stops
              return;
            }
            if (!st.gone && st.spec.ping_every) after(self, *st.spec.ping_every, ping_atom::value);
          });
}

void answer_call(client_self self, const std::string& call_id) {
  auto& st = self->state;
  json body = st.spec.error_result
                  ? json{{"error", "the tool failed in the client"}, {"reason", "client_error"}}
                  : json{{"content", st.spec.result_content}};
  request(self, protocol::route_id::post_result, {st.client_id, call_id}, body);
  if (st.spec.duplicate_result) {
    request(self, protocol::route_id::post_result, {st.client_id, call_id}, body);
  }
}

void on_dispatched(client_self self, const json& data) {
  auto& st = self->state;
  if (protocol::string_at(data, "client_id") != st.client_id) return;  // addressed to someone else
  const std::string call_id = protocol::string_at(data, "call_id");
  if (st.spec.acks) after(self, st.spec.ack_delay, ack_atom::value, call_id);
  if (st.spec.answers) after(self, st.spec.result_delay, answer_atom::value, call_id);
}

// -- commands: what the client tells itself to do, one atom each -----------------------

//! Where every command starts: a client that is gone does nothing more; otherwise the
//! command is recorded as `act` under its text (`describe()`, e.g. "ack:<call_id>"),
//! built only when recording. Why the text: traces, and their hashes, name commands as
//! they did when commands were strings.
template <typename Describe>
bool begin_command(client_self self, Describe describe) {
  auto& st = self->state;
  if (st.gone) return false;
  st.context->record(self, st.spec.actor, "act", [&] { return json{{"what", describe()}}; });
  return true;
}

//! As begin_command, for the commands that need a client id: false until registered.
template <typename Describe>
bool begin_registered_command(client_self self, Describe describe) {
  return begin_command(self, describe) && self->state.registered;
}

void on_join(client_self self) {
  if (begin_command(self, [] { return std::string("join"); })) join(self);
}

void on_ping(client_self self) {
  if (begin_registered_command(self, [] { return std::string("ping"); })) ping(self);
}

void on_vanish(client_self self) {
  if (!begin_registered_command(self, [] { return std::string("vanish"); })) return;
  auto& st = self->state;
  st.gone = true;  // no word to the server: it just stops pinging and listening
  st.listening = false;
  self->send(st.target, close_stream_atom::value, st.access.session_id);
}

void on_leave(client_self self) {
  if (!begin_registered_command(self, [] { return std::string("leave"); })) return;
  auto& st = self->state;
  st.gone = true;
  request(self, protocol::route_id::delete_client, {st.client_id}, json());
}

void on_show_screen(client_self self, std::uint64_t index) {
  if (!begin_registered_command(self, [&] { return "screen:" + std::to_string(index); })) return;
  auto& st = self->state;
  const auto& screen = st.spec.screens.at(index);
  request(self, protocol::route_id::put_tools, {st.client_id},
          {{"tools", protocol::to_json(screen.tools)}});
}

void on_ack(client_self self, const std::string& call_id) {
  if (!begin_registered_command(self, [&] { return "ack:" + call_id; })) return;
  request(self, protocol::route_id::ack, {self->state.client_id, call_id}, json());
}

void on_answer(client_self self, const std::string& call_id) {
  if (begin_registered_command(self, [&] { return "result:" + call_id; })) {
    answer_call(self, call_id);
  }
}

// -- scripted steps: the client does what the step says, whatever state it is in ------

//! Tells the director the step is over. Response handlers are const, so deliver a copy.
void finish(step_promise done) {
  done.deliver(true);
}

//! Tells the director the step's request got no answer: its step error, and the script
//! goes on.
std::function<void(const std::string&)> failed(step_promise done) {
  return [done](const std::string& why) {
    auto promise = done;
    promise.deliver(caf::make_error(caf::sec::runtime_error, "no answer: " + why));
  };
}

void scripted_register(client_self self, std::size_t index, step_promise done) {
  auto& st = self->state;
  const auto& step = st.context->plan->steps[index];
  const json body = detail::registration_body(step, st.spec);
  auto send = [self, index, body, done](const protocol::api_response&) {
    auto& st = self->state;
    ++st.context->registrations_sent[st.spec.actor];
    detail::send_request(
        self, st.target, st.context, st.spec.actor,
        detail::make_request(protocol::route_id::register_client, {st.access.session_id}, body,
                             st.access.token),
        [self, done](const protocol::api_response& response) {
          if (response.status == 201) on_registered(self, response);
          finish(done);
        },
        index, failed(done));
  };
  if (st.listening) return send(protocol::api_response{});
  listen(self, std::nullopt, send, std::nullopt, failed(done));
}

void scripted_reconnect(client_self self, std::size_t index, step_promise done) {
  auto& st = self->state;
  const auto& args = st.context->plan->steps[index].args;
  std::optional<std::string> last_event_id;
  if (args.contains("last_event_id")) {
    last_event_id = args["last_event_id"].is_string() ? args["last_event_id"].get<std::string>()
                                                      : args["last_event_id"].dump();
  } else {
    last_event_id = std::to_string(st.last_seen);
  }
  self->send(st.target, close_stream_atom::value, st.access.session_id);
  st.listening = false;
  listen(
      self, last_event_id, [done](const protocol::api_response&) { finish(done); }, index,
      failed(done));
}

//! One of the client's own actions (detail::performed_by_the_client_itself).
step_promise perform(client_self self, std::uint64_t index) {
  auto& st = self->state;
  auto done = self->make_response_promise<bool>();
  const auto& step = st.context->plan->steps[index];
  using scenarios::vocabulary::action_id;
  if (step.performs(action_id::register_client)) {
    scripted_register(self, index, done);
    return done;
  }
  if (step.performs(action_id::reconnect)) {
    scripted_reconnect(self, index, done);
    return done;
  }
  if (step.performs(action_id::vanish)) on_vanish(self);
  done.deliver(true);
  return done;
}

//! A step whose request the director built: the client sends it in its own name.
step_promise perform(client_self self, std::uint64_t index, protocol::api_request built) {
  auto& st = self->state;
  auto done = self->make_response_promise<bool>();
  if (st.context->plan->steps[index].performs(scenarios::vocabulary::action_id::delete_client))
    st.gone = true;
  detail::send_request(
      self, st.target, st.context, st.spec.actor, std::move(built),
      [done](const protocol::api_response&) { finish(done); }, index, failed(done));
  return done;
}

client_actor::behavior_type client(client_self self, scenarios::client_spec spec,
                                   server_actor target, director_actor director,
                                   session_access access, run_context* context) {
  auto& st = self->state;
  st.spec = std::move(spec);
  st.target = std::move(target);
  st.director = std::move(director);
  st.access = std::move(access);
  st.context = context;
  if (st.spec.auto_join) later(self, st.spec.join_at, join_atom::value);
  return {
      [=](join_atom) { on_join(self); },
      [=](ping_atom) { on_ping(self); },
      [=](vanish_atom) { on_vanish(self); },
      [=](leave_atom) { on_leave(self); },
      [=](show_screen_atom, std::uint64_t index) { on_show_screen(self, index); },
      [=](ack_atom, const std::string& call_id) { on_ack(self, call_id); },
      [=](answer_atom, const std::string& call_id) { on_answer(self, call_id); },
      [=](perform_atom, std::uint64_t step) { return perform(self, step); },
      [=](perform_atom, std::uint64_t step, protocol::api_request& built) {
        return perform(self, step, std::move(built));
      },
      [=](event_atom, const reference_server::session_event& event) {
        auto& st = self->state;
        if (!st.listening) return;
        st.context->record(self, st.spec.actor, "deliver", [&] {
          return json{{"seq", event.seq}, {"type", event.type}};
        });
        st.last_seen = event.seq;
        if (st.gone) return;
        using protocol::event_type;
        const auto type = protocol::parse_event_type(event.type);
        if (type == event_type::client_tool_dispatched) on_dispatched(self, event.data);
        if (type == event_type::client_unregistered &&
            protocol::string_at(event.data, "client_id") == st.client_id) {
          st.gone = true;
        }
      },
      [=](stream_gap_atom, const std::string&, std::uint64_t oldest) {
        // The gap is recorded as the event it stands for (SES-3): its name and its data.
        const protocol::stream_gap gap{oldest};
        self->state.context->record(self, self->state.spec.actor,
                                    protocol::to_string(protocol::type_of(gap)),
                                    [&] { return protocol::to_json(gap); });
      },
  };
}

}  // namespace

client_actor spawn_client(caf::local_actor* parent, scenarios::client_spec spec,
                          server_actor target, director_actor director, session_access access,
                          run_context* context) {
  return parent->spawn(client, std::move(spec), std::move(target), std::move(director),
                       std::move(access), context);
}

}  // namespace toolwire::actors
