// The inside of a remote host: requests and event streams, what responses teach, and the
// hand-over of arrivals to the actors and the trace.
#include <algorithm>
#include <future>
#include <thread>

#include <boost/asio/post.hpp>

#include "remote_state.hpp"
#include "stand_in_routes.hpp"
#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/protocol/codec.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::conformance {

namespace {

//! A request whose success starts model work at the target: a message starts a turn
//! (SES-2), a task starts processing (TASK-1). Either way a model request is owed.
bool starts_model_work(const protocol::api_request& request,
                       const protocol::api_response& response) {
  if (request.method != "POST") return false;
  return (request.path.ends_with("/messages") && response.status == 202) ||
         (request.path == "/api/tasks" && response.status == 201) ||
         (request.path.starts_with("/api/tasks/") && request.path.ends_with("/tool-results") &&
          response.status == 200);  // TASK-4: accepted results send the task back to the model
}

//! `{uuid}` of `/api/tasks/{uuid}` and the routes below it, if the request is one.
std::optional<std::string> task_route(const protocol::api_request& request) {
  constexpr std::string_view prefix = "/api/tasks/";
  if (!request.path.starts_with(prefix)) return std::nullopt;
  std::string id = request.path.substr(prefix.size());
  id = id.substr(0, id.find('/'));
  if (id.empty()) return std::nullopt;
  return id;
}

bool reads_processing(const protocol::api_response& response) {
  return response.status == 200 && response.body.is_object() &&
         response.body.value("status", json()) == json("processing");
}

namespace net = boost::asio;
using std::chrono::milliseconds;

//! `{sid}` of `METHOD /v1/sessions/{sid}<suffix>`, if the request is that route.
std::optional<std::string> session_route(const protocol::api_request& request,
                                         std::string_view method, std::string_view suffix) {
  constexpr std::string_view prefix = "/v1/sessions/";
  const std::string& path = request.path;
  if (request.method != method || path.size() <= prefix.size() + suffix.size() ||
      !path.starts_with(prefix) || !path.ends_with(suffix)) {
    return std::nullopt;
  }
  std::string sid = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  if (sid.find('/') != std::string::npos) return std::nullopt;
  return sid;
}

// The two helpers below read a chat-completions body as session_target.cpp reads the
// core's, so that a remote trace's model_step records compare with in-process ones;
// unlike the core's bodies, a remote body may be odd, so every access is checked.

json tool_names_of(const json& body) {
  json names = json::array();
  if (!body.contains("tools") || !body["tools"].is_array()) return names;
  for (const auto& tool : body["tools"]) {
    if (tool.is_object() && tool.contains("function") && tool["function"].is_object()) {
      names.push_back(protocol::string_at(tool["function"], "name"));
    }
  }
  return names;
}

//! The tool messages the model gets in this step: those after the last assistant message.
json new_tool_results(const json& body) {
  json results = json::array();
  if (!body.contains("messages") || !body["messages"].is_array()) return results;
  for (const auto& message : body["messages"]) {
    if (!message.is_object()) continue;
    const std::string role = protocol::string_at(message, "role");
    if (role == "assistant") results = json::array();
    if (role == "tool") {
      results.push_back({{"tool_call_id", message.value("tool_call_id", json())},
                         {"content", message.value("content", json())}});
    }
  }
  return results;
}

std::string dump_safely(const json& value) {
  // Why replace: an answer must go out even if a script holds invalid UTF-8.
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

void learn_session(remote_host::state& s, const json& body) {
  if (!body.is_object() || !body.contains("id") || !body["id"].is_string()) return;
  const std::string sid = body["id"];
  s.sessions.push_back(sid);
  if (s.context == nullptr || !s.context->recording()) return;
  // Last-Event-ID 0: every retained event, so none from before the stream opened is missed.
  const protocol::api_request monitor{
      "GET", "/v1/sessions/" + sid + "/events", {}, s.profile.api_key, std::string("0"), ""};
  const auto opened = s.open(monitor, sid, caf::actor{}, /*monitor=*/true);
  if (opened.status != 200) {
    s.record("transport_error",
             {{"session", sid},
              {"what", "cannot follow the session's events: " + describe_answer(opened)}});
  }
}

void learn_task(remote_host::state& s, const json& request_body, const json& response_body) {
  if (!response_body.is_object() || !response_body.contains("uuid") ||
      !response_body["uuid"].is_string()) {
    return;
  }
  const std::string uuid = response_body["uuid"];
  s.tasks.push_back(uuid);
  if (!request_body.is_object()) return;
  auto& declared = s.task_tools[uuid];
  if (request_body.contains("client_tools") && request_body["client_tools"].is_array()) {
    for (const auto& tool : request_body["client_tools"]) {
      if (tool.is_object() && tool.contains("name") && tool["name"].is_string()) {
        declared.insert(tool["name"].get<std::string>());
      }
    }
  }
  if (!request_body.contains("input") || !request_body["input"].is_array()) return;
  for (const auto& item : request_body["input"]) {
    if (item.is_object() && item.contains("text") && item["text"].is_string()) {
      s.owners[item["text"].get<std::string>()] = {true, uuid};
    }
  }
}

}  // namespace

remote_host::state::~state() {
  shut_down();
}

actors::time_ms remote_host::state::elapsed() const {
  using namespace std::chrono;
  if (system == nullptr) return 0;
  return duration_cast<milliseconds>(system->clock().now().time_since_epoch()).count();
}

void remote_host::state::record(const std::string& kind, json data) const {
  if (context != nullptr && context->trace != nullptr) {
    context->trace->add(elapsed(), "target", kind, std::move(data));
  }
}

protocol::api_response remote_host::state::request(const caf::actor& sender,
                                                   const protocol::api_request& request) {
  try {
    return request_unguarded(sender, request);
  } catch (const std::exception& e) {
    // Why catch: whatever a target sent, the run goes on and gets a verdict.
    record("transport_error", {{"what", std::string("the suite failed on an answer: ") +
                                            escape_invalid_utf8(e.what())}});
    return transport_failure(std::string("the suite failed on this answer: ") +
                             escape_invalid_utf8(e.what()));
  }
}

protocol::api_response remote_host::state::request_unguarded(const caf::actor& sender,
                                                             const protocol::api_request& request) {
  if (stopped) return transport_failure("the run is over: its target is no longer reached");
  protocol::api_response response;
  const std::uint64_t models_before = inbox->models_seen();
  if (auto sid = session_route(request, "GET", "/events")) {
    close_streams(sender, *sid);  // a stream opened again replaces the old one
    response = open(request, *sid, sender, /*monitor=*/false);
  } else {
    if (const auto task_id = task_route(request)) await_answer_applied(*task_id);
    response = client->send(request);
  }
  inbox->note_activity();
  if (starts_model_work(request, response)) inbox->await_models(models_before + 1);
  if (!is_transport_failure(response)) learn(request, response);
  return response;
}

protocol::api_response remote_host::state::open(const protocol::api_request& request,
                                                const std::string& session_id,
                                                caf::actor subscriber, bool monitor) {
  const std::uint64_t id = next_stream++;
  auto stream = std::make_shared<detail::event_stream>(io, streams_at, id, session_id, inbox);
  auto answer = std::make_shared<std::promise<protocol::api_response>>();
  auto answered = answer->get_future();
  net::post(io, [stream, request, answer] {
    stream->open(request, [answer](protocol::api_response response) {
      answer->set_value(std::move(response));
    });
  });
  // Why a margin: the stream's own deadline answers first; this one only guards the wait.
  const auto bound = milliseconds(profile.request_timeout_ms) + milliseconds(500);
  if (answered.wait_for(bound) != std::future_status::ready) {
    stream->close();
    return transport_failure("the events request got no answer within " +
                             std::to_string(profile.request_timeout_ms) + " ms");
  }
  auto response = answered.get();
  if (response.status == 200 && response.stream) {
    streams[id] = {std::move(subscriber), monitor, session_id, std::move(stream)};
    inbox->follow_stream(id, session_id);
  }
  return response;
}

void remote_host::state::close_streams(const caf::actor& subscriber,
                                       const std::string& session_id) {
  std::erase_if(streams, [&](const auto& entry) {
    const auto& s = entry.second;
    const bool match = !s.monitor && s.subscriber == subscriber && s.session_id == session_id;
    if (match) {
      s.stream->close();
      inbox->forget_stream(entry.first);
    }
    return match;
  });
}

void remote_host::state::learn(const protocol::api_request& request,
                               const protocol::api_response& response) {
  if (request.method != "POST") return;
  if (request.path == "/v1/sessions" && response.status == 201) {
    return learn_session(*this, response.body);
  }
  const json body = json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  if (request.path == "/api/tasks" && response.status == 201) {
    return learn_task(*this, body, response.body);
  }
  const auto sid = session_route(request, "POST", "/messages");
  if (sid && response.status == 202 && body.is_object() && body.contains("content") &&
      body["content"].is_string()) {
    owners[body["content"].get<std::string>()] = {false, *sid};
  }
}

void remote_host::state::deliver(detail::stream_arrival& item) {
  auto it = streams.find(item.stream_id);
  if (it == streams.end()) return;  // closed meanwhile: a closed stream delivers nothing
  const auto& entry = it->second;
  if (auto* event = std::get_if<reference_server::session_event>(&item.item)) {
    if (!entry.monitor) {
      caf::anon_send(entry.subscriber, actors::event_atom::value, std::move(*event));
      return;
    }
    record("event", {{"session", event->session_id},
                     {"seq", event->seq},
                     {"type", event->type},
                     {"data", event->data}});
    monitored_seq[event->session_id] = event->seq;
    return;
  }
  const auto oldest = std::get<stream_gap>(item.item).oldest_seq;
  if (!entry.monitor) {
    caf::anon_send(entry.subscriber, actors::stream_gap_atom::value, entry.session_id, oldest);
    return;
  }
  record("transport_error",
         {{"session", entry.session_id},
          {"what", "the run's own stream of the session started with a stream_gap (oldest_seq " +
                       std::to_string(oldest) + "): earlier events are missing from the trace"}});
}

void remote_host::state::deliver(const detail::transport_arrival& item) {
  json data = {{"what", item.what}};
  if (auto it = streams.find(item.stream_id); it != streams.end()) {
    data["session"] = it->second.session_id;
    data["stream"] = it->second.monitor ? "run" : "subscriber";
    if (item.ended) streams.erase(it);
  }
  record("transport_error", std::move(data));
}

step_owner remote_host::state::owner_of(const json& body) const {
  const auto texts = detail::user_texts(body);
  // The latest user message started the turn or task this step belongs to.
  for (auto it = texts.rbegin(); it != texts.rend(); ++it) {
    if (auto owner = owners.find(*it); owner != owners.end()) return owner->second;
  }
  if (sessions.size() == 1 && tasks.empty()) return {false, sessions.front()};
  if (tasks.size() == 1 && sessions.empty()) return {true, tasks.front()};
  return {false, ""};
}

void remote_host::state::deliver(detail::model_arrival& item) {
  const std::uint64_t step_id = next_step++;
  const step_owner owner = owner_of(item.body);
  const auto seq = monitored_seq.find(owner.id);
  const std::uint64_t after = owner.task || seq == monitored_seq.end() ? 0 : seq->second;
  record("model_step", {{"step_id", step_id},
                        {"owner", owner.task ? "task" : "turn"},
                        {"owner_id", owner.id},
                        {"after_seq", after},
                        {"offered", tool_names_of(item.body)},
                        {"tool_results", new_tool_results(item.body)}});
  if (!model) {
    item.respond(500, detail::error_answer("model_failure", "no model is attached to this run"));
    return;
  }
  pending_steps[step_id] = std::move(item.respond);
  if (!owner.task) turn_steps[step_id] = owner.id;
  if (owner.task) task_steps[step_id] = owner.id;
  using kind = reference_server::model_step_request::owner_kind;
  caf::anon_send(model, actors::model_step_atom::value,
                 reference_server::model_step_request{step_id, owner.task ? kind::task : kind::turn,
                                                      owner.id, after, std::move(item.body)});
}

void remote_host::state::model_replied(std::uint64_t step_id,
                                       const reference_server::model_reply& reply) {
  auto it = pending_steps.find(step_id);
  if (it == pending_steps.end()) return;
  auto respond = std::move(it->second);
  pending_steps.erase(it);
  if (auto task = task_steps.find(step_id); task != task_steps.end()) {
    // TASK-8: calls that name none of the task's client tools get error results at once
    // and the model is asked again; any declared one interrupts the task instead.
    const auto& declared = task_tools[task->second];
    if (reply.answer && !reply.answer->tool_calls.empty() &&
        std::none_of(reply.answer->tool_calls.begin(), reply.answer->tool_calls.end(),
                     [&](const auto& call) { return declared.contains(call.name); })) {
      inbox->await_models(inbox->models_seen() + 1);
    }
    answered_tasks.insert(task->second);
    task_steps.erase(task);
  }
  // A turn goes on visibly: calls dispatched or failed, or the turn completes or fails.
  // (Once one stream has the event, the others are awaited too: arrivals::follow_stream.)
  if (auto turn = turn_steps.find(step_id); turn != turn_steps.end()) {
    inbox->await_either(inbox->models_seen() + 1, inbox->events_seen() + 1);
    inbox->await_step_settled(turn->second, reply.answer ? reply.answer->tool_calls.size() : 0);
    turn_steps.erase(turn);
  }
  if (reply.answer) {
    respond(200, dump_safely(protocol::to_chat_completion(*reply.answer)));
  } else {
    respond(500, detail::error_answer("model_failure", reply.failure));
  }
  inbox->note_activity();  // the target goes on from here: wait for what follows
}

void remote_host::state::await_answer_applied(const std::string& task_id) {
  // Why: once the stand-in has answered a task's model step, the task leaves `processing`
  // without further input, but the suite's next request could overtake the target applying
  // the answer (nothing on the wire tells when it has). So the suite polls, as a Part B
  // caller does, before it acts on the task; these polls are not part of the case's trace.
  // A target that stays in processing is still seen: the wait is bounded.
  if (answered_tasks.erase(task_id) == 0) return;
  protocol::api_request poll;
  poll.method = "GET";
  poll.path = "/api/tasks/" + task_id;
  poll.credential = profile.api_key;
  const auto give_up = std::chrono::steady_clock::now() + milliseconds(profile.request_timeout_ms);
  // A task that has asked the model again is processing on purpose (TASK-8, or a step
  // the stand-in holds): its request may wait in the inbox, not yet handed over.
  auto asked_again = [&] {
    return task_waits_for_model(task_id) || inbox->model_queued([&](const json& body) {
      const auto owner = owner_of(body);
      return owner.task && owner.id == task_id;
    });
  };
  while (!asked_again() && std::chrono::steady_clock::now() < give_up &&
         reads_processing(client->send(poll))) {
    std::this_thread::sleep_for(milliseconds(std::max<std::int64_t>(1, profile.settle_ms)));
  }
}

void remote_host::state::await_answers_applied() {
  const std::vector<std::string> answered(answered_tasks.begin(), answered_tasks.end());
  for (const auto& task_id : answered)
    await_answer_applied(task_id);
}

bool remote_host::state::task_waits_for_model(const std::string& task_id) const {
  return std::any_of(task_steps.begin(), task_steps.end(),
                     [&](const auto& step) { return step.second == task_id; });
}

std::optional<actors::time_ms> remote_host::state::target_now() {
  using namespace std::chrono;
  if (!profile.virtual_clock) {
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  }
  const auto response =
      client->send({"GET", "/v1/_test/clock", {}, profile.api_key, std::nullopt, ""});
  inbox->note_activity();
  if (response.status == 200 && response.body.is_object() &&
      response.body.value("now_ms", json()).is_number_integer()) {
    return response.body["now_ms"].get<actors::time_ms>();
  }
  record("transport_error",
         {{"what", "reading the target's clock (CLOCK-1): " + describe_answer(response)}});
  return std::nullopt;
}

void remote_host::state::shut_down() {
  if (stopped) return;
  stopped = true;
  if (stand_in) stand_in->remove_route(tag);
  for (auto& [id, s] : streams)
    s.stream->close();
  streams.clear();
  const std::string ended = detail::error_answer("unavailable", "the run ended");
  for (auto& [id, respond] : pending_steps)
    respond(503, ended);
  pending_steps.clear();
  for (auto& item : inbox->take_all()) {
    if (auto* step = std::get_if<detail::model_arrival>(&item)) step->respond(503, ended);
  }
  // Why post the stop: the closes posted above run first, in order, on the I/O thread.
  net::post(io, [this] { io.stop(); });
  io_work.reset();
  if (io_thread.joinable()) io_thread.join();
  // The actor system goes away after the run: hold none of its handles past it.
  model = nullptr;
  context = nullptr;
  system = nullptr;
}

}  // namespace toolwire::conformance
