// The preflight: a session, a task, the test clock and one model call, each with a
// sentence for the way it fails.
#include "toolwire/conformance/preflight.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <optional>
#include <thread>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include "toolwire/conformance/http_client.hpp"
#include "toolwire/conformance/model_stand_in.hpp"
#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/protocol/routes.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::conformance {

namespace {

using protocol::route_id;
using std::chrono::milliseconds;

//! The request of route `id` (protocol/routes.hpp), its path's ids filled in order.
protocol::api_request to(route_id id, std::initializer_list<std::string_view> ids,
                         const std::string& credential, std::string body = "") {
  return {std::string(protocol::route_of(id).method),
          protocol::route_path(id, ids),
          {},
          credential,
          {},
          std::move(body),
          {}};
}

//! "METHOD PATH answered STATUS: <the likely cause>".
std::string answered(const target_profile& profile, route_id id,
                     const protocol::api_response& response, int wanted, const std::string& rule) {
  const std::string route = protocol::route_shown(id);
  if (is_transport_failure(response)) {
    const std::string what = describe_answer(response);
    const bool absent = what.starts_with("cannot connect") || what.starts_with("cannot resolve") ||
                        what.starts_with("no answer within");
    const std::string base_url = term_for(profile, "base_url");
    if (absent) {
      return route + " got no answer (" + what + "): is the target running at " + base_url + "?";
    }
    return route + " got an answer that is not usable HTTP/JSON (" + what + "): is " + base_url +
           " the Client Tools API?";
  }
  const std::string head = route + " answered " + std::to_string(response.status);
  switch (response.status) {
    case 401:
      return head + ": is " + term_for(profile, "api_key") + " right?";
    case 403:
      return head + ": does " + term_for(profile, "api_key") + " have scope session.manage?";
    case 404:
      if (id == route_id::create_task || id == route_id::get_task ||
          id == route_id::post_tool_results) {
        return head + ": is " + term_for(profile, "assistant_id") +
               " right, and does the target implement Part B?";
      }
      return head + ": is " + term_for(profile, "base_url") + " right?";
    default:
      // A body that is no JSON reaches us as a string (control bytes escaped once): shown
      // as it is, not dumped as JSON again, and named for what it likely means.
      if (response.body.is_string()) {
        return head + ", not " + std::to_string(wanted) + " (" + rule + "), with a body that " +
               "is not JSON: " + safe_excerpt(response.body.get<std::string>(), 120) + " (is " +
               term_for(profile, "base_url") + " a Client Tools server, and not another one?)";
      }
      return head + ", not " + std::to_string(wanted) + " (" + rule +
             "): " + safe_excerpt(safe_dump(response.body), 120);
  }
}

//! A tag no case uses, so the stand-in routes only the preflight's requests here.
std::string preflight_tag(std::string_view what) {
  static std::atomic<int> next{0};
  return "[tw:preflight-" + std::to_string(getpid()) + "-" + std::to_string(next++) + "-" +
         std::string(what) + "] ";
}

//! Routes `tag` on the stand-in and answers its first request with a plain completion;
//! `reached()` waits for it.
class model_probe {
 public:
  model_probe(std::shared_ptr<model_stand_in> stand_in, std::string tag)
      : stand_in_(std::move(stand_in)), tag_(std::move(tag)) {
    auto reached = reached_;
    stand_in_->add_route(tag_, [reached](json, model_stand_in::respond_fn respond) {
      json choice = json::object();
      choice["index"] = 0;
      choice["message"] = {{"role", "assistant"}, {"content", "ok"}};
      choice["finish_reason"] = "stop";
      json completion = json::object();
      completion["id"] = "preflight";
      completion["object"] = "chat.completion";
      completion["choices"] = json::array({choice});
      respond(200, completion.dump());
      reached->store(true);
    });
  }
  ~model_probe() { stand_in_->remove_route(tag_); }
  model_probe(const model_probe&) = delete;
  model_probe& operator=(const model_probe&) = delete;

  const std::string& tag() const { return tag_; }

  bool reached(milliseconds within) const {
    const auto until = std::chrono::steady_clock::now() + within;
    // Why poll: std::atomic::wait has no timeout; the poll is short and only here.
    while (!reached_->load()) {
      if (std::chrono::steady_clock::now() >= until) return false;
      std::this_thread::sleep_for(milliseconds(1));
    }
    return true;
  }

 private:
  std::shared_ptr<model_stand_in> stand_in_;
  std::string tag_;
  std::shared_ptr<std::atomic<bool>> reached_ = std::make_shared<std::atomic<bool>>(false);
};

std::string not_calling(const target_profile& profile, const std::string& after) {
  const std::string at = profile.model_stand_in.to_string();
  return "the target did not call the model stand-in at " + at + " within " +
         std::to_string(profile.request_timeout_ms) + " ms after " + after +
         ": was it started with its model at http://" + at + "/v1?";
}

using steady = std::chrono::steady_clock;

time_ms millis_between(steady::time_point from, steady::time_point to) {
  return std::max<time_ms>(0, std::chrono::duration_cast<milliseconds>(to - from).count());
}

//! A new session's body (its id and token), or what the target answered instead.
protocol::outcome<json> new_session(http_client& client, const target_profile& profile) {
  const auto session = client.send(to(route_id::create_session, {}, profile.api_key, "{}"));
  if (session.status != 201) {
    return protocol::invalid_request(
        answered(profile, route_id::create_session, session, 201, "SES-1"));
  }
  if (!session.body.is_object() || !session.body.value("id", json()).is_string()) {
    return protocol::invalid_request(protocol::route_shown(route_id::create_session) +
                                     " answered 201 without a string \"id\" (SES-1)");
  }
  return session.body;
}

//! Posts a message in session `sid` with `key` and waits for the model request it causes:
//! how long after the 202 that request came.
protocol::outcome<time_ms> message_reaches_model(http_client& client, const target_profile& profile,
                                                 const std::shared_ptr<model_stand_in>& stand_in,
                                                 const std::string& sid, const std::string& key,
                                                 std::string_view what) {
  model_probe probe(stand_in, preflight_tag(what));
  const auto message = client.send(
      to(route_id::post_message, {sid}, key, json{{"content", probe.tag() + "hello"}}.dump()));
  const auto accepted_at = steady::now();
  if (message.status != 202) {
    return protocol::invalid_request(
        answered(profile, route_id::post_message, message, 202, "SES-2"));
  }
  if (!probe.reached(milliseconds(profile.request_timeout_ms))) {
    return protocol::invalid_request(not_calling(profile, "a message"));
  }
  return millis_between(accepted_at, steady::now());
}

struct started_task {
  json body;               // the 201's
  time_ms model_delay_ms;  // from the 201 to the task's model request
};

//! Creates a task and waits for the model request it causes.
protocol::outcome<started_task> task_reaches_model(http_client& client,
                                                   const target_profile& profile,
                                                   const std::shared_ptr<model_stand_in>& stand_in,
                                                   std::string_view what) {
  model_probe probe(stand_in, preflight_tag(what));
  const json body = {{"assistant_id", profile.assistant_id},
                     {"input", {{{"type", "text"}, {"text", probe.tag() + "hello"}}}},
                     {"client_tools", json::array()}};
  const auto task = client.send(to(route_id::create_task, {}, profile.api_key, body.dump()));
  const auto created_at = steady::now();
  if (task.status != 201) {
    return protocol::invalid_request(answered(profile, route_id::create_task, task, 201, "TASK-1"));
  }
  if (!probe.reached(milliseconds(profile.request_timeout_ms))) {
    return protocol::invalid_request(not_calling(profile, "a task"));
  }
  return started_task{task.body, millis_between(created_at, steady::now())};
}

std::string check_clock(http_client& client, const target_profile& profile) {
  const auto clock = client.send(to(route_id::get_clock, {}, profile.api_key));
  if (clock.status == 200 && clock.body.is_object() &&
      clock.body.value("now_ms", json()).is_number_integer()) {
    return "";
  }
  if (clock.status == 404) {
    return protocol::route_shown(route_id::get_clock) + " answered 404, but " +
           (profile.given_as_flags ? "--clock virtual was given"
                                   : "the profile says \"clock\": \"virtual\"") +
           ": serve the test clock (SPEC 7) or " + how_to_set(profile, "clock", "\"real\"");
  }
  if (clock.status == 200)
    return protocol::route_shown(route_id::get_clock) +
           " answered 200 without an integer now_ms (CLOCK-1)";
  return answered(profile, route_id::get_clock, clock, 200, "CLOCK-1");
}

std::string check_part_a(http_client& client, const target_profile& profile,
                         const std::shared_ptr<model_stand_in>& stand_in) {
  const auto session = new_session(client, profile);
  if (!session) return session.error().message;
  // The clock next: a message's model call is the slowest check, and the last.
  if (profile.virtual_clock) {
    if (auto failure = check_clock(client, profile); !failure.empty()) return failure;
  }
  const auto reached = message_reaches_model(
      client, profile, stand_in, protocol::string_at(*session, "id"), profile.api_key, "turn");
  return reached ? "" : reached.error().message;
}

std::string check_part_b(http_client& client, const target_profile& profile,
                         const std::shared_ptr<model_stand_in>& stand_in) {
  const auto task = task_reaches_model(client, profile, stand_in, "task");
  return task ? "" : task.error().message;
}

//! The limited key, when the profile names one: the AUTH-2 cases send it and expect 403
//! where it lacks session.manage. A target started without it answers 401 there, and
//! those cases would fail for a reason that is the setup's, not the target's.
std::string check_limited_key(http_client& client, const target_profile& profile) {
  if (profile.limited_api_key.empty()) return "";
  const std::string key = term_for(profile, "limited_api_key");
  const std::string leave_out =
      profile.given_as_flags ? "leave out --limited-api-key-env" : "leave limited_api_key out";
  // Part A: creating a session needs session.manage (AUTH-4); Part B takes any key
  // (AUTH-2), so an unknown task is 404 with a known key and 401 with an unknown one.
  const route_id id = profile.part_a ? route_id::create_session : route_id::get_task;
  const int wanted = profile.part_a ? 403 : 404;
  const auto answer =
      profile.part_a
          ? client.send(to(id, {}, profile.limited_api_key, "{}"))
          : client.send(to(id, {"00000000-0000-4000-8000-00000000feed"}, profile.limited_api_key));
  if (answer.status == wanted) return "";
  const std::string head =
      protocol::route_shown(id) + " answered " + std::to_string(answer.status) + " to " + key;
  if (answer.status == 401) {
    return head +
           ": the target does not know that key. Start the target with it (a key "
           "without session.manage), or " +
           leave_out + " (the cases that need it are then not applicable)";
  }
  if (profile.part_a && answer.status == 201) {
    return head +
           ": that key has scope session.manage, but it must be a key without it "
           "(AUTH-2, AUTH-4)";
  }
  return answered(profile, id, answer, wanted, profile.part_a ? "AUTH-4" : "AUTH-2");
}

}  // namespace

std::string preflight(const target_profile& profile) {
  http_client client(profile.base, milliseconds(profile.request_timeout_ms));
  auto stand_in = model_stand_in::at(profile.model_stand_in);
  if (!stand_in) return stand_in.error().message;
  if (profile.part_a) {
    // Reachability and the key first: without them nothing else can be told.
    if (auto failure = check_part_a(client, profile, *stand_in); !failure.empty()) return failure;
  }
  if (profile.part_b) {
    if (auto failure = check_part_b(client, profile, *stand_in); !failure.empty()) return failure;
  }
  if (profile.virtual_clock && !profile.part_a) {
    if (auto failure = check_clock(client, profile); !failure.empty()) return failure;
  }
  return check_limited_key(client, profile);
}

namespace {

//! One session's event stream, read on an io_context of its own that runs only inside
//! `found_by`: enough to tell when a text first arrived, every wait bounded.
class stream_watch {
 public:
  //! Connects and sends the stream's request; false when that does not happen by `until`.
  bool open(const host_port& server, const std::string& path, const std::string& key,
            steady::time_point until) {
    namespace net = boost::asio;
    bool sent = false;
    boost::system::error_code ec;
    const auto endpoints =
        net::ip::tcp::resolver(ioc_).resolve(server.host, std::to_string(server.port), ec);
    if (ec) return false;
    request_ = "GET " + path + " HTTP/1.1\r\nHost: " + server.to_string() +
               "\r\nAuthorization: Bearer " + key + "\r\nAccept: text/event-stream\r\n\r\n";
    net::async_connect(socket_, endpoints, [this, &sent](boost::system::error_code e, auto) {
      if (e) return;
      net::async_write(socket_, net::buffer(request_),
                       [this, &sent](boost::system::error_code w, std::size_t) {
                         sent = !w;
                         if (sent) read();
                       });
    });
    while (!sent && steady::now() < until) {
      if (ioc_.run_one_until(until) == 0 && ioc_.stopped()) break;  // it failed: no work left
    }
    return sent;
  }

  //! When `text` first arrived on the stream (or now, if it already had), waiting for it
  //! until `until`.
  std::optional<steady::time_point> found_by(const std::string& text, steady::time_point until) {
    wanted_ = text;
    found_at_.reset();
    check();
    while (!found_at_ && steady::now() < until) {
      if (ioc_.run_one_until(until) == 0 && ioc_.stopped()) break;  // the stream ended
    }
    return found_at_;
  }

  ~stream_watch() {
    boost::system::error_code ignored;
    socket_.close(ignored);
    ioc_.restart();
    ioc_.poll();  // the read ends with operation_aborted; nothing outlives this object
  }

 private:
  void read() {
    socket_.async_read_some(boost::asio::buffer(buffer_),
                            [this](boost::system::error_code ec, std::size_t n) {
                              if (ec) return;
                              // Bounded: only the tail a text can straddle is kept.
                              seen_.append(buffer_.data(), n);
                              check();
                              if (seen_.size() > 4096) seen_.erase(0, seen_.size() - 512);
                              read();
                            });
  }
  void check() {
    if (!found_at_ && !wanted_.empty() && seen_.find(wanted_) != std::string::npos) {
      found_at_ = steady::now();
    }
  }

  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::socket socket_{ioc_};
  std::string request_;
  std::array<char, 4096> buffer_{};
  std::string seen_;
  std::string wanted_;
  std::optional<steady::time_point> found_at_;
};

//! The slowest of `n` sends of `request` (p99 of 20 is the maximum), or an error.
protocol::outcome<time_ms> slowest_of(http_client& client, const protocol::api_request& request,
                                      int wanted, int n) {
  time_ms slowest = 0;
  for (int i = 0; i < n; ++i) {
    const auto start = steady::now();
    const auto answer = client.send(request);
    if (answer.status != wanted) {
      return protocol::invalid_request(request.method + " " + request.path + " answered " +
                                       describe_answer(answer) + " while measuring the target");
    }
    slowest = std::max(slowest, millis_between(start, steady::now()));
  }
  return slowest;
}

constexpr int round_trips = 20;

protocol::outcome<target_latency> measure_part_a(http_client& client, const target_profile& profile,
                                                 const std::shared_ptr<model_stand_in>& stand_in) {
  const milliseconds bound(profile.request_timeout_ms);
  const auto session = new_session(client, profile);
  if (!session) return session.error();
  const std::string sid = protocol::string_at(*session, "id");
  const std::string token = protocol::string_at(*session, "token");
  target_latency measured;
  stream_watch events;
  // Why wait for the stream's header: a stream opens at the events after its request was
  // handled, so a registration must come after that to be seen.
  if (!events.open(profile.base, protocol::route_path(route_id::open_events, {sid}),
                   profile.api_key, steady::now() + bound) ||
      !events.found_by("\r\n\r\n", steady::now() + bound)) {
    return protocol::invalid_request(protocol::route_shown(route_id::open_events) +
                                     " could not be opened within " +
                                     std::to_string(profile.request_timeout_ms) + " ms");
  }
  const json client_body = {
      {"name", "tw_preflight"}, {"lifetime", {{"type", "never"}}}, {"tools", json::array()}};
  const auto registered =
      client.send(to(route_id::register_client, {sid}, token, client_body.dump()));
  const auto answered_at = steady::now();
  if (registered.status != 201) {
    return protocol::invalid_request(
        answered(profile, route_id::register_client, registered, 201, "REG-1"));
  }
  const std::string cid = protocol::string_at(registered.body, "client_id");
  const auto event_at = events.found_by(cid, answered_at + bound);
  if (!event_at) {
    return protocol::invalid_request("no client_registered event reached the stream within " +
                                     std::to_string(profile.request_timeout_ms) +
                                     " ms of a registration (SES-3, REG-9)");
  }
  measured.event_delay_ms = millis_between(answered_at, *event_at);
  auto pings = slowest_of(client, to(route_id::ping, {sid, cid}, token), 200, round_trips);
  if (!pings) return pings.error();
  measured.round_trip_p99_ms = *pings;
  const auto model_delay = message_reaches_model(client, profile, stand_in, sid, token, "measure");
  if (!model_delay) return model_delay.error();
  measured.model_delay_ms = *model_delay;
  // Tidy: the client leaves (the session itself has no DELETE in SPEC).
  client.send(to(route_id::delete_client, {sid, cid}, token));
  return measured;
}

protocol::outcome<target_latency> measure_part_b(http_client& client, const target_profile& profile,
                                                 const std::shared_ptr<model_stand_in>& stand_in) {
  const auto task = task_reaches_model(client, profile, stand_in, "measure-task");
  if (!task) return task.error();
  target_latency measured;
  measured.model_delay_ms = task->model_delay_ms;
  auto polls = slowest_of(
      client, to(route_id::get_task, {protocol::string_at(task->body, "uuid")}, profile.api_key),
      200, round_trips);
  if (!polls) return polls.error();
  measured.round_trip_p99_ms = *polls;
  return measured;
}

}  // namespace

time_ms derived_tolerance_ms(const target_latency& measured, time_ms floor_ms) {
  const time_ms chain =
      measured.round_trip_p99_ms + measured.event_delay_ms + measured.model_delay_ms;
  return floor_ms + (2 * chain + 9) / 10 * 10;
}

protocol::outcome<target_latency> measure_latency(const target_profile& profile) {
  http_client client(profile.base, milliseconds(profile.request_timeout_ms));
  auto stand_in = model_stand_in::at(profile.model_stand_in);
  if (!stand_in) return stand_in.error();
  return profile.part_a ? measure_part_a(client, profile, *stand_in)
                        : measure_part_b(client, profile, *stand_in);
}

std::string describe(const target_latency& measured) {
  return "round trip p99 " + std::to_string(measured.round_trip_p99_ms) + " ms, event " +
         std::to_string(measured.event_delay_ms) + " ms, model request " +
         std::to_string(measured.model_delay_ms) + " ms";
}

std::string why_unreachable(const target_profile& profile) {
  http_client client(profile.base, milliseconds(profile.request_timeout_ms));
  protocol::api_request request;
  request.method = "GET";
  request.path = protocol::route_path(protocol::route_id::get_clock);
  const auto response = client.send(request);
  if (!is_transport_failure(response)) return "";
  const std::string message = response.body["error"].value("message", "");
  const bool no_connection =
      message.starts_with("cannot resolve") || message.starts_with("cannot connect");
  return no_connection ? message : "";
}

std::string went_away_during(const actors::trace& run, const target_profile* profile) {
  if (profile == nullptr) return "";
  const auto& records = run.records();
  const auto ended = std::find_if(records.begin(), records.end(),
                                  [](const auto& r) { return r.kind == "transport_error"; });
  if (ended == records.end()) return "";
  const auto why = why_unreachable(*profile);
  if (why.empty()) return "";
  return "the target went away during the run (at " + std::to_string(ended->at) +
         " ms: " + protocol::string_at(ended->data, "what") + "): " + why;
}

}  // namespace toolwire::conformance
