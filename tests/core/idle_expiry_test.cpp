// Core tests of what a long-running server keeps (issue 25.4): a session with nothing
// live is forgotten after its idle time, an ended task likewise, and --max-sessions caps
// the sessions kept. Not SPEC rules: SPEC sets no session end; the core's default (0)
// never forgets, which the last test pins.
#include <catch2/catch.hpp>

#include <string>

#include "core/core_test_support.hpp"

using namespace toolwire::core_test;

namespace {

constexpr time_ms idle = 60'000;

toolwire::reference_server::core_config forgetting(std::size_t max_sessions = 0) {
  auto config = toolwire::testing::default_config();
  config.idle_expiry_ms = idle;
  config.max_sessions = max_sessions;
  return config;
}

int register_status(core_harness& h, const std::string& sid) {
  return h
      .request("POST", h.clients_path(sid), {{"name", "web"}, {"lifetime", core_harness::never()}})
      .status;
}

json task_body() {
  return {{"assistant_id", 1},
          {"input", json::array({{{"type", "text"}, {"text", "hello"}}})},
          {"client_tools", json::array()}};
}

}  // namespace

TEST_CASE("a session with nothing live is forgotten after its idle time, not before",
          "[core][idle]") {
  core_harness h(forgetting());
  const auto sid = h.create_session();
  const auto token = h.token_of(sid);
  const auto cid =
      h.register_client(sid, "web", core_harness::never())["client_id"].get<std::string>();
  h.advance(10'000);
  REQUIRE(h.request("DELETE", h.client_path(sid, cid)).status == 204);  // idle from here

  h.advance(idle - 1);
  CHECK(h.forgotten_sessions().empty());
  CHECK(h.request("GET", "/v1/sessions/" + sid + "/events", {}, token).status == 200);
  // The GET of the stream does not count as activity: the idle time still ends at 70 s.
  h.advance(1);
  CHECK(h.forgotten_sessions() == std::vector<std::string>{sid});
  CHECK(h.core().session_count() == 0);
  // The id is unknown now, and so is its token.
  CHECK(register_status(h, sid) == 404);
  CHECK(h.request("POST", h.clients_path(sid), {{"name", "web"}}, token).status == 401);
}

TEST_CASE("a request on a session starts its idle time again", "[core][idle]") {
  core_harness h(forgetting());
  const auto sid = h.create_session();
  h.advance(idle - 1'000);
  const auto cid =
      h.register_client(sid, "web", core_harness::never())["client_id"].get<std::string>();
  REQUIRE(h.request("DELETE", h.client_path(sid, cid)).status == 204);
  h.advance(idle - 1);  // past the first idle deadline, within the second
  CHECK(h.forgotten_sessions().empty());
  CHECK(register_status(h, sid) == 201);
}

TEST_CASE("a session with a live client or a turn in progress is never forgotten", "[core][idle]") {
  core_harness h(forgetting());
  const auto quiet = h.create_session();
  h.register_client(quiet, "worker", core_harness::never());  // a backend worker, never pings
  const auto talking = h.create_session();
  REQUIRE(h.request("POST", "/v1/sessions/" + talking + "/messages", {{"content", "hi"}}).status ==
          202);
  REQUIRE(h.has_model_step());  // the model never answers: the turn stays in progress
  h.advance(10 * idle);
  CHECK(h.forgotten_sessions().empty());
  CHECK(h.core().session_count() == 2);

  // Once the client left, the quiet session is forgotten an idle time later.
  const auto cid =
      h.events_of(quiet, "client_registered").at(0).data["client_id"].get<std::string>();
  REQUIRE(h.request("DELETE", h.client_path(quiet, cid)).status == 204);
  h.advance(idle);
  CHECK(h.forgotten_sessions() == std::vector<std::string>{quiet});
}

TEST_CASE("an expiring client's departure counts as the session's last activity", "[core][idle]") {
  core_harness h(forgetting());
  const auto sid = h.create_session();
  h.register_client(sid, "tab", core_harness::ttl(30));
  h.advance(30'000);  // the tab expires (LIFE-2): an event at 30 s
  REQUIRE(h.events_of(sid, "client_unregistered").size() == 1);
  h.advance(idle - 1);
  CHECK(h.forgotten_sessions().empty());
  h.advance(1);
  CHECK(h.forgotten_sessions() == std::vector<std::string>{sid});
}

TEST_CASE("an ended task is forgotten after its idle time unread; a running one is kept",
          "[core][idle]") {
  core_harness h(forgetting());
  auto created = h.request("POST", "/api/tasks", task_body());
  REQUIRE(created.status == 201);
  const std::string done = created.body["uuid"];
  h.answer_text(h.next_model_step().step_id, "hello to you");  // completed
  created = h.request("POST", "/api/tasks", task_body());
  const std::string running = created.body["uuid"];  // its model step is never answered

  h.advance(idle - 1);
  REQUIRE(h.request("GET", "/api/tasks/" + done).status == 200);  // a read starts it again
  h.advance(idle - 1);
  CHECK(h.request("GET", "/api/tasks/" + done).body["status"] == "completed");
  h.advance(idle);
  CHECK(h.request("GET", "/api/tasks/" + done).status == 404);
  CHECK(h.request("GET", "/api/tasks/" + running).status == 200);
  CHECK(h.core().task_count() == 1);
}

TEST_CASE("beyond max_sessions creating a session is answered 503 until one is forgotten",
          "[core][idle]") {
  core_harness h(forgetting(2));
  h.create_session();
  h.create_session();
  const auto refused = h.request("POST", "/v1/sessions", json::object());
  CHECK(refused.status == 503);
  CHECK(error_type(refused) == "unavailable");
  CHECK(refused.body["error"]["message"].get<std::string>().find("--max-sessions") !=
        std::string::npos);
  h.advance(idle);
  CHECK(h.request("POST", "/v1/sessions", json::object()).status == 201);
}

TEST_CASE("without an idle time nothing is forgotten, however long the wait", "[core][idle]") {
  core_harness h;  // the default: idle_expiry_ms 0, as the simulator and the oracle run
  const auto sid = h.create_session();
  auto created = h.request("POST", "/api/tasks", task_body());
  h.answer_text(h.next_model_step().step_id, "done");
  h.advance(365LL * 24 * 3'600'000);
  CHECK(h.forgotten_sessions().empty());
  CHECK(register_status(h, sid) == 201);
  CHECK(h.request("GET", "/api/tasks/" + created.body["uuid"].get<std::string>()).status == 200);
}
