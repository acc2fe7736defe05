// Model turns of a session (SES-2, section 6): the loop of model steps, the tools each
// step is offered (TOOLS-3, TOOLS-6, CALL-2), resolving the model's calls to clients
// (CALL-1, TOOLS-5), and the one tool result per call the model receives (CALL-8, CALL-9).
// Every status change of a turn goes through the turn table (lifecycle.hpp).
#include <algorithm>

#include "core_state.hpp"
#include "policy.hpp"
#include "toolwire/protocol/codec.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::reference_server::detail {

using protocol::outcome;

namespace {

const char* const tool_separator = "__";

struct resolved_tool {
  client_record* client = nullptr;  // the live client the name designates, if any
  const tool_spec* tool = nullptr;  // the offered tool, if any
  std::string tool_name;            // the part after `__`
};

//! Finds the offered tool the model named: an exact `<client>__<tool>` match over the
//! live clients in registration order (names may themselves contain `__`). Without one,
//! the live client whose `<name>__` is the longest prefix, so TOOLS-5 can name it.
//! The client is handed out for writing (a dispatch adds an open call), so it is taken
//! through the journaled table once found.
resolved_tool resolve(const state& s, session_record& session, const std::string& model_name) {
  const auto& clients = std::as_const(session.clients);
  for (const auto& [serial, client] : clients) {
    for (const tool_spec* tool : s.policy->tools_offered_by(client)) {
      if (s.policy->model_side_name(client) + tool_separator + tool->name == model_name) {
        return {&session.clients.at(serial), tool, tool->name};
      }
    }
  }
  resolved_tool best;
  std::size_t best_length = 0;
  std::optional<std::uint64_t> best_serial;
  for (const auto& [serial, client] : clients) {
    const std::string prefix = s.policy->model_side_name(client) + tool_separator;
    if (model_name.size() <= prefix.size() || model_name.compare(0, prefix.size(), prefix) != 0 ||
        prefix.size() <= best_length) {
      continue;
    }
    best_length = prefix.size();
    best_serial = serial;
    best.tool_name = model_name.substr(prefix.size());
  }
  if (best_serial) best.client = &session.clients.at(*best_serial);
  return best;
}

void end_turn(session_record& session) {
  session.turn.reset();
}

void issue_step(state& s, session_record& session, time_ms now) {
  turn_record& turn = *session.turn;
  if (turn.steps >= s.config.max_model_steps) {
    move_noted(s, turn.status, turn_event::step_limit_reached);
    emit(s, session, protocol::turn_failed{turn.id, "max_steps_exceeded"}, now);
    end_turn(session);
    return;
  }
  move_noted(s, turn.status, turn_event::step_requested);
  ++turn.steps;
  turn.slots.clear();
  // TOOLS-6: the step's tool list is one snapshot, taken here, all at once.
  turn.offered_at_step = offered_tools_of(s, session);
  turn.waiting_step = request_model_step(s, {model_step_request::owner_kind::turn, session.id},
                                         turn.conversation.messages(), turn.offered_at_step);
}

//! For a policy that defers completions to the step's end (SES-5): the client_tool_completed
//! events of the step's completed calls.
void announce_deferred_completions(state& s, session_record& session, time_ms now) {
  for (const auto& slot : session.turn->slots) {
    auto call = std::as_const(session.calls).find(slot.call_id);
    if (slot.call_id.empty() || call == session.calls.end() ||
        call->second.status != call_status::completed || !slot.outcome) {
      continue;
    }
    emit_completed(s, session, call->second,
                   std::holds_alternative<protocol::tool_error>(*slot.outcome), now);
  }
}

void continue_turn(state& s, session_record& session, time_ms now) {
  turn_record& turn = *session.turn;
  if (!s.policy->completion_announced_with_result()) announce_deferred_completions(s, session, now);
  for (const auto& slot : turn.slots) {
    if (!slot.outcome) continue;  // a step the policy let move on early has open slots
    turn.conversation.append({{"role", "tool"},
                              {"tool_call_id", s.policy->tool_call_id_for_model(slot)},
                              {"content", s.policy->content_for_model(*slot.outcome)}});
  }
  issue_step(s, session, now);
}

//! TOOLS-5: a call naming a tool that is not offered now is settled at once. Only a name
//! that designates a live client gets a call id (and a call record); the model's error
//! result alone records any other.
void settle_unavailable(state& s, session_record& session, std::size_t slot,
                        const client_record* client, const std::string& tool_name, time_ms now) {
  const std::string& model_name = session.turn->slots[slot].model_name;
  if (client != nullptr) fail_unavailable_call(s, session, *client, tool_name, slot, now);
  settle_slot(s, session, slot,
              protocol::tool_error{"tool '" + model_name + "' is not offered", "tool_unavailable"},
              now);
}

void start_call(state& s, session_record& session, std::size_t slot,
                const protocol::model_tool_call& call, time_ms now) {
  // Why bounded: the model is outside input; a value nested too deep is not dispatched.
  auto parsed = protocol::parse_untrusted_json(call.arguments, "arguments");
  json arguments = parsed ? std::move(*parsed) : json(json::value_t::discarded);
  if (arguments.is_discarded()) {
    settle_slot(
        s, session, slot,
        protocol::tool_error{"arguments of '" + call.name + "' are not JSON", "invalid_arguments"},
        now);
    return;
  }
  resolved_tool target = resolve(s, session, call.name);
  if (target.tool == nullptr || !s.policy->dispatches_live_tool(*session.turn, call.name)) {
    switch (s.policy->call_to_unoffered_tool(target.client != nullptr)) {
      case unoffered_call::settled_unavailable:
        settle_unavailable(s, session, slot, target.client, target.tool_name, now);
        break;
      case unoffered_call::dispatched: {
        const tool_spec withdrawn{target.tool_name, "", json::object()};
        dispatch_call(s, session, *target.client, withdrawn, std::move(arguments), slot, now);
        break;
      }
      case unoffered_call::left_open:
        break;
    }
    return;
  }
  dispatch_call(s, session, *target.client, *target.tool, std::move(arguments), slot, now);
}

}  // namespace

// -- the clean answers of the turn rules' decision points (policy.hpp) --------------------

outcome<protocol::message_request> rule_policy::read_message(const json& body) const {
  return protocol::parse_message_request(body);
}

std::optional<api_error> rule_policy::refuse_message(const session_record& session) const {
  if (!session.turn) return std::nullopt;
  return protocol::conflict("turn '" + session.turn->id +
                            "' is still running: one turn at a time per session (SES-2)");
}

protocol::model_answer rule_policy::answer_as_taken(protocol::model_answer answer) const {
  return answer;
}

bool rule_policy::model_failure_fails_turn() const {
  return true;
}

std::vector<const client_record*> rule_policy::offering_clients(
    const session_record& session) const {
  std::vector<const client_record*> clients;
  for (const auto& [serial, client] : session.clients)
    clients.push_back(&client);
  return clients;
}

std::vector<const tool_spec*> rule_policy::tools_offered_by(const client_record& client) const {
  std::vector<const tool_spec*> tools;
  for (const auto& tool : client.tools)
    tools.push_back(&tool);
  return tools;
}

const std::string& rule_policy::model_side_name(const client_record& client) const {
  return client.name;
}

bool rule_policy::dispatches_live_tool(const turn_record&, const std::string&) const {
  return true;
}

unoffered_call rule_policy::call_to_unoffered_tool(bool) const {
  return unoffered_call::settled_unavailable;
}

bool rule_policy::step_complete(const turn_record& turn) const {
  return std::all_of(turn.slots.begin(), turn.slots.end(),
                     [](const step_slot& slot) { return slot.outcome.has_value(); });
}

std::string rule_policy::content_for_model(const tool_outcome& outcome) const {
  return protocol::model_content(outcome);
}

const std::string& rule_policy::tool_call_id_for_model(const step_slot& slot) const {
  return slot.model_call_id;
}

// -- the turn rules --------------------------------------------------------------------------

offered_tools offered_tools_of(const state& s, const session_record& session) {
  offered_tools::builder offered;
  std::string model_name;
  for (const client_record* client : s.policy->offering_clients(session)) {
    for (const tool_spec* tool : s.policy->tools_offered_by(*client)) {
      model_name = s.policy->model_side_name(*client);
      model_name += tool_separator;
      model_name += tool->name;
      offered.add(model_name, *tool);
    }
  }
  return std::move(offered).build();
}

outcome<json> post_message(state& s, session_record& session, const json& body, time_ms now) {
  auto request = s.policy->read_message(body);
  if (!request) return request.error();
  if (auto busy = s.policy->refuse_message(session)) return *busy;
  turn_record turn;
  turn.id = "turn_" + std::to_string(s.next_turn++);
  turn.conversation.append({{"role", "user"}, {"content", request->content}});
  session.turn = std::move(turn);
  emit(s, session, protocol::turn_started{session.turn->id}, now);
  const std::string turn_id = session.turn->id;
  issue_step(s, session, now);
  return json{{"turn_id", turn_id}};
}

void turn_model_replied(state& s, session_record& session, const model_reply& reply, time_ms now) {
  turn_record& turn = *session.turn;
  turn.waiting_step = 0;
  if (!reply.answer) {  // MODEL-4; a policy that drops the failure leaves the turn waiting
    if (s.policy->model_failure_fails_turn()) {
      move_noted(s, turn.status, turn_event::model_failed);
      emit(s, session, protocol::turn_failed{turn.id, "model_error: " + reply.failure}, now);
      end_turn(session);
    }
    return;
  }
  const protocol::model_answer answer = s.policy->answer_as_taken(*reply.answer);
  turn.conversation.append(protocol::to_assistant_message(answer));
  if (answer.tool_calls.empty()) {
    move_noted(s, turn.status, turn_event::text_answer);
    emit(s, session, protocol::turn_completed{turn.id, answer.text.value_or("")}, now);
    end_turn(session);
    return;
  }
  for (const auto& call : answer.tool_calls) {
    turn.slots.push_back({call.id, call.name, "", std::nullopt});
  }
  // Why dispatching: a call settled at once must not start the next step before the
  // later calls of the same answer have been dispatched (settle_slot waits for this).
  move_noted(s, turn.status, turn_event::tool_calls);
  for (std::size_t i = 0; i < answer.tool_calls.size(); ++i) {
    start_call(s, session, i, answer.tool_calls[i], now);
  }
  move_noted(s, turn.status, turn_event::calls_resolved);
  if (!s.policy->step_complete(turn)) return;
  move_noted(s, turn.status, turn_event::calls_settled);
  continue_turn(s, session, now);
}

void settle_slot(state& s, session_record& session, std::size_t slot, tool_outcome outcome,
                 time_ms now) {
  turn_record& turn = *session.turn;
  turn.slots[slot].outcome = std::move(outcome);
  // Only a turn awaiting its calls moves on here: a dispatching one does so once the
  // answer's last call is out (turn_model_replied), a settled one already waits for its
  // next step.
  if (!allows(turn.status, turn_event::calls_settled) || !s.policy->step_complete(turn)) return;
  move_noted(s, turn.status, turn_event::calls_settled);
  if (s.firing_timers) {
    s.deferred_turns.push_back(session.id);
    return;
  }
  continue_turn(s, session, now);
}

void run_deferred_turns(state& s, time_ms now) {
  std::vector<std::string> sessions;
  std::swap(sessions, s.deferred_turns);
  for (const auto& sid : sessions) {
    // Each turn on as a command of its own: one that fails is reported, not the others.
    atomically_or_report(s, "a turn's next step", [&] {
      auto session = s.sessions.find(sid);
      if (session == s.sessions.end() || !session->second.turn) return;
      // A turn that is no longer settled has moved on already.
      if (session->second.turn->status == turn_status::settled) {
        continue_turn(s, session->second, now);
      }
    });
  }
}

}  // namespace toolwire::reference_server::detail
