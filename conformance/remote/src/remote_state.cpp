// The inside of a remote host: a participant's request through the parts, the hand-over
// of arrivals, and the end of the run.
#include "remote_state.hpp"

#include "target_routes.hpp"
#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::conformance {

remote_host::state::state(target_profile profile) : link(std::move(profile), inbox, trace) {}

remote_host::state::~state() {
  shut_down();
}

bool remote_host::state::route_model_requests(std::shared_ptr<model_stand_in> to,
                                              std::string message_tag) {
  auto route = [queue = inbox](json body, model_stand_in::respond_fn respond) {
    queue->push(detail::model_arrival{std::move(body), std::move(respond)});
  };
  if (!to->add_route(message_tag, route)) return false;
  stand_in = std::move(to);
  tag = std::move(message_tag);
  return true;
}

protocol::api_response remote_host::state::request(const caf::actor& sender,
                                                   const protocol::api_request& request) {
  try {
    return request_unguarded(sender, request);
  } catch (const std::exception& e) {
    // Why catch: whatever a target sent, the run goes on and gets a verdict.
    trace.record("transport_error", {{"what", std::string("the suite failed on an answer: ") +
                                                  escape_invalid_utf8(e.what())}});
    return transport_failure(std::string("the suite failed on this answer: ") +
                             escape_invalid_utf8(e.what()));
  }
}

protocol::api_response remote_host::state::request_unguarded(const caf::actor& sender,
                                                             const protocol::api_request& request) {
  if (stopped) return transport_failure("the run is over: its target is no longer reached");
  protocol::api_response response;
  // On a virtual clock the reference applies a model answer before anything else due at
  // its instant; so does the harness, or a DELETE at the instant of a held answer would
  // race the target applying it (a false divergence in explore, TOOLS-5).
  // Its events reach the participants first too, as in-process, where they are in their
  // mailboxes before this request is sent: a client's ack at the instant of a held answer
  // that dispatches its call found the call not yet dispatched (explore, seed 1, program
  // 565), since arrivals are otherwise handed over only once the run is idle. Not model
  // requests: when the model answers is the run's order (explore, seed 41: a model step
  // answered before a message at its instant, where the harness's order has it after).
  if (link.profile().virtual_clock && inbox->await_turn_answers_applied(std::chrono::milliseconds(
                                          link.profile().request_timeout_ms))) {
    settle();
    deliver_all(inbox->take_events());
  }
  const detail::request_route route(request);
  const auto implied = route.implied();
  // Whose model request a 2xx of this route owes (route_info's starts_model_work_on): a
  // message's turn or a task's; a new task's is named by its answer.
  std::optional<std::string> model_owner;
  if (const auto sid = route.session_if(protocol::route_id::post_message)) {
    model_owner = detail::arrivals::turn_owner(*sid);
  } else if (const auto task_id = route.task()) {
    model_owner = detail::arrivals::task_owner(*task_id);
  }
  const std::uint64_t models_before = model_owner ? inbox->models_of(*model_owner) : 0;
  if (auto sid = route.session_if(protocol::route_id::open_events)) {
    streams.close(sender, *sid);  // a stream opened again replaces the old one
    response = streams.open(request, *sid, sender, /*monitor=*/false);
  } else {
    if (const auto task_id = route.task()) router.await_answer_applied(*task_id);
    response = link.send(request);
  }
  inbox->note_activity();
  if (implied && response.status == implied->on_status) {
    inbox->await_event(
        {implied->session, implied->type, implied->key, route.implied_event_id(response.body)});
  }
  if (is_transport_failure(response)) return response;
  // What a successful response teaches: owners of model steps, sessions to monitor.
  if (const auto created = router.learn(route, request, response)) streams.monitor(*created);
  if (route.starts_model_work(response.status)) {
    if (!model_owner) {
      model_owner = detail::arrivals::task_owner(protocol::string_at(response.body, "uuid"));
    }
    inbox->await_models(*model_owner, models_before + 1);
  }
  return response;
}

void remote_host::state::settle() {
  using std::chrono::milliseconds;
  const auto& profile = link.profile();
  const auto give_up = std::chrono::steady_clock::now() + milliseconds(profile.request_timeout_ms);
  // Why a bound on waits that see nothing come: a stream holding half a line that the
  // target never finishes reads as unread for ever; 20 waits of 5 ms without an arrival
  // treat it as not sent, instead of spinning to the request's bound at every step.
  constexpr int most_waits_without_arrival = 20;
  constexpr milliseconds one_wait(5);
  int waits_without_arrival = 0;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<milliseconds>(give_up - std::chrono::steady_clock::now());
    if (left.count() <= 0) return;
    inbox->wait_quiet(milliseconds(profile.settle_ms), left);
    const auto pushed = inbox->pushed();
    bool came = false;
    if (streams.unread(left)) {
      came = inbox->wait_for_push(pushed, one_wait);
    } else if (stand_in && stand_in->unread()) {
      // A model request on the stand-in's sockets, owed or not: waited for like events, so
      // a step the target takes early is seen before the clock moves (CALL-9). Why the
      // stand-in's own wait, not this run's queue: a stand-in shared by several runs may
      // hold another run's request, which this queue would never show.
      came = stand_in->await_read(one_wait);
    } else {
      return;
    }
    if (came) {
      waits_without_arrival = 0;
    } else if (++waits_without_arrival >= most_waits_without_arrival) {
      return;
    }
  }
}

bool remote_host::state::deliver_all(std::vector<detail::arrival> items) {
  if (items.empty()) return false;
  for (auto& item : items) {
    if (auto* event = std::get_if<detail::stream_arrival>(&item)) streams.deliver(*event);
    if (auto* trouble = std::get_if<detail::transport_arrival>(&item)) streams.deliver(*trouble);
  }
  // Why model requests after the events of the same batch: nothing the run did can have
  // happened between them (the harness waited), so every event that arrived with a model
  // request was caused before it; recording them first puts each step after the events
  // that shaped its tool list, as in-process (TOOLS-3), whichever socket was faster.
  for (auto& item : items) {
    if (auto* step = std::get_if<detail::model_arrival>(&item)) router.deliver(*step, model);
  }
  return true;
}

void remote_host::state::shut_down() {
  if (stopped) return;
  stopped = true;
  if (stand_in) stand_in->remove_route(tag);
  streams.close_all();
  router.refuse_all();
  link.stop();
  // The actor system goes away after the run: hold none of its handles past it.
  model = nullptr;
  trace.stop();
}

}  // namespace toolwire::conformance
