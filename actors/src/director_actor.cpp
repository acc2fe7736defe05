// The director: creates the session, starts the participants, plays the timed steps and
// stops the participants when the scenario's time is up.
#include "requests.hpp"
#include "toolwire/actors/participants.hpp"

namespace toolwire::actors {

namespace {

struct director_state {
  const scenario* plan = nullptr;
  target_actor target;
  std::string api_key;
  run_context* context = nullptr;
  session_access access;
  std::vector<caf::actor> participants;
  static inline const char* name = "director";
};

using self_pointer = caf::stateful_actor<director_state>*;

void request(self_pointer self, std::string method, std::string path, const json& body,
             std::function<void(const protocol::api_response&)> then) {
  auto& st = self->state;
  detail::send_request(self, st.target, st.context, "director",
                       detail::make_request(std::move(method), std::move(path), body, st.api_key),
                       std::move(then));
}

void start_participants(self_pointer self) {
  auto& st = self->state;
  for (const auto& spec : st.plan->clients) {
    st.participants.push_back(spawn_client(self, spec, st.target, st.access, st.context));
  }
  for (const auto& spec : st.plan->task_callers) {
    st.participants.push_back(spawn_task_caller(self, spec, st.target, st.api_key, st.context));
  }
  for (std::size_t i = 0; i < st.plan->steps.size(); ++i) {
    const time_ms delay = std::max<time_ms>(0, st.plan->steps[i].at - run_context::elapsed(self));
    self->delayed_send(self, std::chrono::milliseconds(delay), act_atom::value,
                       "step:" + std::to_string(i));
  }
  self->delayed_send(self, std::chrono::milliseconds(st.plan->duration), act_atom::value,
                     std::string("end"));
}

void play(self_pointer self, const director_step& step) {
  auto& st = self->state;
  if (const auto* message = std::get_if<post_message>(&step.action)) {
    request(self, "POST", "/v1/sessions/" + st.access.session_id + "/messages",
            {{"content", message->content}}, [](const protocol::api_response&) {});
  }
}

caf::behavior director(self_pointer self, const scenario* plan, target_actor target,
                       std::string api_key, run_context* context) {
  auto& st = self->state;
  st.plan = plan;
  st.target = std::move(target);
  st.api_key = std::move(api_key);
  st.context = context;
  st.access.api_key = st.api_key;
  request(self, "POST", "/v1/sessions", json::object(),
          [self](const protocol::api_response& response) {
            auto& st = self->state;
            if (response.status != 201) return;
            st.access.session_id = response.body.value("id", "");
            st.access.token = response.body.value("token", "");
            if (st.context->trace != nullptr) st.context->trace->add_secret(st.access.token);
            start_participants(self);
          });
  return {
      [=](act_atom, const std::string& what) {
        auto& st = self->state;
        if (what == "end") {
          st.context->record(self, "director", "end", [] { return json::object(); });
          for (const auto& participant : st.participants) {
            self->send_exit(participant, caf::exit_reason::user_shutdown);
          }
          st.participants.clear();
          return;
        }
        if (what.rfind("step:", 0) == 0) play(self, st.plan->steps.at(std::stoul(what.substr(5))));
      },
  };
}

}  // namespace

caf::actor spawn_director(caf::actor_system& system, const scenario& plan, target_actor target,
                          std::string api_key, run_context* context) {
  return system.spawn(director, &plan, std::move(target), std::move(api_key), context);
}

}  // namespace toolwire::actors
