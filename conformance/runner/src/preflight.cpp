// The preflight: a session, a task, the test clock and one model call, each with a
// sentence for the way it fails.
#include "toolwire/conformance/preflight.hpp"

#include <unistd.h>

#include <atomic>
#include <thread>

#include "toolwire/conformance/http_client.hpp"
#include "toolwire/conformance/model_stand_in.hpp"
#include "toolwire/conformance/outside_data.hpp"

namespace toolwire::conformance {

namespace {

using std::chrono::milliseconds;

//! "METHOD PATH answered STATUS: <the likely cause>".
std::string answered(const std::string& route, const protocol::api_response& response, int wanted,
                     const std::string& rule) {
  if (is_transport_failure(response)) {
    const std::string what = describe_answer(response);
    const bool absent = what.starts_with("cannot connect") || what.starts_with("cannot resolve") ||
                        what.starts_with("no answer within");
    if (absent) return route + " got no answer (" + what + "): is the target running at base_url?";
    return route + " got an answer that is not usable HTTP/JSON (" + what +
           "): is base_url the Client Tools API?";
  }
  const std::string head = route + " answered " + std::to_string(response.status);
  switch (response.status) {
    case 401:
      return head + ": is api_key right?";
    case 403:
      return head + ": does api_key have scope session.manage?";
    case 404:
      if (route.find("/api/tasks") != std::string::npos) {
        return head + ": is assistant_id right, and does the target implement Part B?";
      }
      return head + ": is base_url right?";
    default:
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
      std::this_thread::sleep_for(milliseconds(5));
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

std::string check_clock(http_client& client, const target_profile& profile) {
  const auto clock = client.send({"GET", "/v1/_test/clock", {}, profile.api_key, {}, ""});
  if (clock.status == 200 && clock.body.is_object() &&
      clock.body.value("now_ms", json()).is_number_integer()) {
    return "";
  }
  if (clock.status == 404) {
    return "GET /v1/_test/clock answered 404, but the profile says \"clock\": \"virtual\": "
           "serve the test clock (SPEC 7) or set \"clock\": \"real\"";
  }
  if (clock.status == 200)
    return "GET /v1/_test/clock answered 200 without an integer now_ms (CLOCK-1)";
  return answered("GET /v1/_test/clock", clock, 200, "CLOCK-1");
}

std::string check_part_a(http_client& client, const target_profile& profile,
                         const std::shared_ptr<model_stand_in>& stand_in) {
  const auto session = client.send({"POST", "/v1/sessions", {}, profile.api_key, {}, "{}"});
  if (session.status != 201) return answered("POST /v1/sessions", session, 201, "SES-1");
  if (!session.body.is_object() || !session.body.value("id", json()).is_string()) {
    return "POST /v1/sessions answered 201 without a string \"id\" (SES-1)";
  }
  // The clock next: a message's model call is the slowest check, and the last.
  if (profile.virtual_clock) {
    if (auto failure = check_clock(client, profile); !failure.empty()) return failure;
  }
  const std::string path = "/v1/sessions/" + session.body["id"].get<std::string>() + "/messages";
  model_probe probe(stand_in, preflight_tag("turn"));
  const auto message = client.send(
      {"POST", path, {}, profile.api_key, {}, json{{"content", probe.tag() + "hello"}}.dump()});
  if (message.status != 202) {
    return answered("POST /v1/sessions/{sid}/messages", message, 202, "SES-2");
  }
  if (!probe.reached(milliseconds(profile.request_timeout_ms))) {
    return not_calling(profile, "a message");
  }
  return "";
}

std::string check_part_b(http_client& client, const target_profile& profile,
                         const std::shared_ptr<model_stand_in>& stand_in) {
  model_probe probe(stand_in, preflight_tag("task"));
  const json body = {{"assistant_id", profile.assistant_id},
                     {"input", {{{"type", "text"}, {"text", probe.tag() + "hello"}}}},
                     {"client_tools", json::array()}};
  const auto task = client.send({"POST", "/api/tasks", {}, profile.api_key, {}, body.dump()});
  if (task.status != 201) return answered("POST /api/tasks", task, 201, "TASK-1");
  if (!probe.reached(milliseconds(profile.request_timeout_ms)))
    return not_calling(profile, "a task");
  return "";
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
  if (profile.virtual_clock && !profile.part_a) return check_clock(client, profile);
  return "";
}

}  // namespace toolwire::conformance
