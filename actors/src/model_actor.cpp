// The scripted model: answers each step from its script and records the answer.
#include "toolwire/actors/participants.hpp"

namespace toolwire::actors {

namespace {

json describe(const reference_server::model_reply& reply) {
  if (!reply.answer) return {{"failure", reply.failure}};
  json calls = json::array();
  for (const auto& call : reply.answer->tool_calls) {
    calls.push_back({{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}});
  }
  json described = {{"tool_calls", calls}};
  if (reply.answer->text) described["text"] = *reply.answer->text;
  return described;
}

struct model_state {
  static inline const char* name = "model";
};

caf::behavior model(caf::stateful_actor<model_state>* self, reference_server::model_script script,
                    server_actor target, director_actor director, run_context* context) {
  return {
      [=](model_step_atom, const reference_server::model_step_request& step) {
        const auto reply = script.answer(step.conversation);
        if (step.owner == reference_server::model_step_request::owner_kind::task && reply.answer) {
          json calls = json::array();
          for (const auto& call : reply.answer->tool_calls)
            calls.push_back({{"name", call.name}, {"arguments", call.arguments}});
          // Before the reply: whatever the reply leads to comes after the director knows.
          self->send(director, model_calls_atom::value,
                     task_model_calls{step.owner_id, std::move(calls)});
        }
        const auto hold = script.hold_ms(step.conversation);
        // The hold in the record: the answer is applied that much later, which explore needs
        // to keep a real-clock program's steps clear of that instant.
        context->record(self, "model", "model_reply", [&] {
          json data = {{"step_id", step.step_id}, {"reply", describe(reply)}};
          if (hold > 0) data["hold_ms"] = hold;
          return data;
        });
        if (hold == 0) return self->send(target, model_reply_atom::value, step.step_id, reply);
        // Timed straight into the target's mailbox: a held answer is applied before anything
        // another actor does at the instant it is due. Over HTTP the harness keeps that order
        // by waiting for the answer's effect before its next request (remote_state.cpp).
        self->delayed_send(target, std::chrono::milliseconds(hold), model_reply_atom::value,
                           step.step_id, reply);
      },
  };
}

}  // namespace

caf::actor spawn_model(caf::actor_system& system, reference_server::model_script script,
                       server_actor target, director_actor director, run_context* context) {
  return system.spawn(model, std::move(script), std::move(target), std::move(director), context);
}

}  // namespace toolwire::actors
