// Core tests of SPEC section 1, authentication: AUTH-1..5, through the router.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/core_test_support.hpp"

using namespace toolwire::core_test;

namespace {

//! One session route as (method, path, body); the body is null when the route takes none.
struct route_case {
  std::string label;
  std::string method;
  std::string path;
  json body;
};

//! A session with one client and one open call, so every session route has a target.
struct routed_session {
  session_fixture f;
  std::string cid;
  std::string call_id;

  routed_session() {
    cid = f.add("web", {"read"})["client_id"];
    call_id = f.turn_with_calls({{"web__read", json::object()}}).at(0);
  }

  std::vector<route_case> routes() const {
    const auto& h = f.h;
    const std::string sid = f.sid;
    return {
        {"register",
         "POST",
         h.clients_path(sid),
         {{"name", "x"}, {"lifetime", {{"type", "never"}}}}},
        {"ping", "POST", h.client_path(sid, cid) + "/ping", json()},
        {"put tools", "PUT", h.client_path(sid, cid) + "/tools", {{"tools", json::array()}}},
        {"delete", "DELETE", h.client_path(sid, cid), json()},
        {"ack", "POST", h.call_path(sid, cid, call_id) + "/ack", json()},
        {"result", "POST", h.call_path(sid, cid, call_id) + "/result", {{"content", "x"}}},
        {"messages", "POST", "/v1/sessions/" + sid + "/messages", {{"content", "hi"}}},
        {"events", "GET", "/v1/sessions/" + sid + "/events", json()},
    };
  }
};

}  // namespace

TEST_CASE("AUTH-1 session routes accept the session token or a session.manage key",
          "[core][auth]") {
  // SPEC AUTH-1: "Every /v1/sessions/{sid}/clients... route accepts either the session's
  // own token or a workspace API key that has scope session.manage. [P] So do the
  // session's /messages and /events routes."
  auto credential_kind = GENERATE(as<std::string>{}, "session token", "api key");
  session_fixture f;
  const credential who = credential_kind == "api key" ? credential(admin_key) : f.h.token_of(f.sid);
  CAPTURE(credential_kind);

  SECTION("AUTH-1 every client route, /messages and /events succeed") {
    auto registered = f.register_raw(
        {{"name", "web"}, {"lifetime", {{"type", "never"}}}, {"tools", tool_list({"read"})}}, who);
    REQUIRE(registered.status == 201);
    const std::string cid = registered.body["client_id"];
    CHECK(f.ping(cid, who).status == 200);
    CHECK(f.put_tools(cid, tool_list({"read", "write"}), who).status == 200);
    CHECK(f.open_events(who).status == 200);
    auto started = f.message("hello", who);
    REQUIRE(started.status == 202);
    const auto call_id = f.answer_calls(f.step(), {{"web__read", json::object()}}).at(0);
    CHECK(f.ack(cid, call_id, who).status == 200);
    CHECK(f.result(cid, call_id, {{"content", "ok"}}, who).status == 200);
    CHECK(f.remove(cid, who).status == 204);
  }
}

TEST_CASE("AUTH-2 401, then 403, then 404", "[core][auth]") {
  routed_session s;
  auto& f = s.f;
  const std::string other_sid = f.h.create_session();
  const std::string other_token = f.h.token_of(other_sid);

  SECTION("AUTH-2 missing or unknown credential is 401 on every session route") {
    for (const auto& route : s.routes()) {
      for (const credential& who :
           {credential(), credential("no-such-credential"), credential("")}) {
        CAPTURE(route.label, who.value_or("<none>"));
        const std::size_t before = f.event_count();
        auto response = f.h.request(route.method, route.path, route.body, who);
        CHECK(response.status == 401);
        CHECK(error_type(response) == "unauthenticated");
        CHECK(f.event_count() == before);
      }
    }
  }

  SECTION("AUTH-2 another session's token or a key without session.manage is 403") {
    for (const auto& route : s.routes()) {
      for (const credential& who : {credential(other_token), credential(reader_key)}) {
        CAPTURE(route.label, *who);
        const std::size_t before = f.event_count();
        auto response = f.h.request(route.method, route.path, route.body, who);
        CHECK(response.status == 403);
        CHECK(error_type(response) == "forbidden");
        CHECK(f.event_count() == before);
      }
    }
  }

  SECTION("AUTH-2 an unknown session is 404 only after authentication and access") {
    const std::string path = "/v1/sessions/ses_999/clients";
    const json body = {{"name", "x"}, {"lifetime", {{"type", "never"}}}};
    CHECK(f.h.request("POST", path, body, std::nullopt).status == 401);
    CHECK(f.h.request("POST", path, body, std::string("bogus")).status == 401);
    CHECK(f.h.request("POST", path, body, std::string(reader_key)).status == 403);
    CHECK(f.h.request("POST", path, body, f.h.token_of(f.sid)).status == 403);
    auto missing = f.h.request("POST", path, body, std::string(admin_key));
    CHECK(missing.status == 404);
    CHECK(error_type(missing) == "not_found");
    CHECK(f.h.request("GET", "/v1/sessions/ses_999/events", json(), f.h.token_of(f.sid)).status ==
          403);
    CHECK(f.h.request("GET", "/v1/sessions/ses_999/events").status == 404);
  }

  SECTION("AUTH-2 clock routes take any workspace API key; a session token is 403") {
    auto clock = f.h.request("GET", "/v1/_test/clock", json(), std::string(reader_key));
    REQUIRE(clock.status == 200);
    CHECK(clock.body["now_ms"] == f.h.now());
    CHECK(f.h.request("GET", "/v1/_test/clock", json(), f.h.token_of(f.sid)).status == 403);
    CHECK(f.h.request("GET", "/v1/_test/clock", json(), std::nullopt).status == 401);
    const time_ms before = f.h.now();
    CHECK(f.h.request("POST", "/v1/_test/clock/advance", {{"ms", 5}}, f.h.token_of(f.sid)).status ==
          403);
    CHECK(f.h.now() == before);
    auto advanced =
        f.h.request("POST", "/v1/_test/clock/advance", {{"ms", 5}}, std::string(reader_key));
    CHECK(advanced.status == 200);
    CHECK(advanced.body["now_ms"] == before + 5);
  }

  SECTION("AUTH-2 Part B takes any workspace API key; a session token is 403") {
    const json task = {{"assistant_id", 1},
                       {"input", {{{"type", "text"}, {"text", "hi"}}}},
                       {"client_tools", json::array()}};
    CHECK(f.h.request("POST", "/api/tasks", task, f.h.token_of(f.sid)).status == 403);
    CHECK(f.h.request("POST", "/api/tasks", task, std::nullopt).status == 401);
    auto created = f.h.request("POST", "/api/tasks", task, std::string(reader_key));
    REQUIRE(created.status == 201);
    const std::string uuid = created.body["uuid"];
    CHECK(f.h.request("GET", "/api/tasks/" + uuid, json(), f.h.token_of(f.sid)).status == 403);
    CHECK(f.h.request("GET", "/api/tasks/" + uuid, json(), std::string(reader_key)).status == 200);
    CHECK(f.h.request("POST", "/api/tasks/" + uuid + "/tool-results",
                      {{"tool_results", json::array()}}, f.h.token_of(f.sid))
              .status == 403);
  }
}

TEST_CASE("AUTH-3 a session token grants nothing on any other session", "[core][auth]") {
  routed_session s;
  auto& f = s.f;
  core_harness& h = f.h;
  const std::string other_sid = h.create_session();
  const std::string other_token = h.token_of(other_sid);
  const json other_registration = {{"name", "spy"}, {"lifetime", {{"type", "never"}}}};

  SECTION("AUTH-3 every route of the session refuses the other session's token") {
    for (const auto& route : s.routes()) {
      CAPTURE(route.label);
      CHECK(h.request(route.method, route.path, route.body, other_token).status == 403);
    }
    // The refused requests changed nothing: the call is still open, the client still live.
    CHECK(f.ack(s.cid, s.call_id).status == 200);
    CHECK(f.ping(s.cid).status == 200);
    CHECK(f.events("client_registered").size() == 1);
  }

  SECTION("AUTH-3 the own token works on its own session and only there") {
    CHECK(h.request("POST", h.clients_path(other_sid), other_registration, other_token).status ==
          201);
    CHECK(h.request("POST", h.clients_path(f.sid), other_registration, other_token).status == 403);
    CHECK(h.events_of(f.sid, "client_registered").size() == 1);
    CHECK(h.events_of(other_sid, "client_registered").size() == 1);
  }
}

TEST_CASE("AUTH-4 creating a session needs an API key with session.manage", "[core][auth]") {
  core_harness h;
  const std::string sid = h.create_session();

  SECTION("AUTH-4 a session.manage key creates a session") {
    auto created = h.request("POST", "/v1/sessions", json::object(), std::string(admin_key));
    CHECK(created.status == 201);
  }
  SECTION("AUTH-4 a session token is not enough (403)") {
    auto refused = h.request("POST", "/v1/sessions", json::object(), h.token_of(sid));
    CHECK(refused.status == 403);
    CHECK(error_type(refused) == "forbidden");
  }
  SECTION("AUTH-4 a key without session.manage is 403") {
    CHECK(h.request("POST", "/v1/sessions", json::object(), std::string(reader_key)).status == 403);
  }
  SECTION("AUTH-4 no or an unknown credential is 401") {
    CHECK(h.request("POST", "/v1/sessions", json::object(), std::nullopt).status == 401);
    CHECK(h.request("POST", "/v1/sessions", json::object(), std::string("nope")).status == 401);
  }
  SECTION("AUTH-4 a refused creation creates nothing: the next session id is the next one") {
    h.request("POST", "/v1/sessions", json::object(), h.token_of(sid));
    auto created = h.request("POST", "/v1/sessions", json::object());
    REQUIRE(created.status == 201);
    // docs/reference-server.md: sessions are numbered ses_<n> per server.
    CHECK(created.body["id"] == "ses_2");
  }
}

TEST_CASE("AUTH-5 the events route accepts access_token; credentials never leak", "[core][auth]") {
  session_fixture f;
  core_harness& h = f.h;
  const std::string token = h.token_of(f.sid);
  const std::string other_token = h.token_of(h.create_session());
  const std::string events = "/v1/sessions/" + f.sid + "/events";

  SECTION("AUTH-5 access_token in the query opens the stream without a header") {
    auto opened = h.request("GET", events + "?access_token=" + token, json(), std::nullopt);
    CHECK(opened.status == 200);
    REQUIRE(opened.stream.has_value());
    CHECK(opened.stream->session_id == f.sid);
    CHECK(h.request("GET", events + "?access_token=" + std::string(admin_key), json(), std::nullopt)
              .status == 200);
  }
  SECTION("AUTH-5 a wrong access_token is 401 or 403 like a header") {
    CHECK(h.request("GET", events + "?access_token=bogus", json(), std::nullopt).status == 401);
    CHECK(h.request("GET", events + "?access_token=" + other_token, json(), std::nullopt).status ==
          403);
  }
  SECTION("AUTH-5 access_token is accepted only on the events route") {
    auto cid = f.add("web")["client_id"].get<std::string>();
    auto ping = h.request("POST", h.client_path(f.sid, cid) + "/ping?access_token=" + token, json(),
                          std::nullopt);
    CHECK(ping.status == 401);
  }
  SECTION("AUTH-5 no response body or event carries a credential") {
    std::vector<json> bodies;
    auto keep = [&](const api_response& r) { bodies.push_back(r.body); };
    keep(f.register_raw({{"name", "web"},
                         {"lifetime", {{"type", "ttl"}, {"data", {{"seconds", 5}}}}},
                         {"tools", tool_list({"read"})}},
                        token));
    const std::string cid = bodies.back()["client_id"];
    keep(f.ping(cid, token));
    keep(f.put_tools(cid, tool_list({"read"}), token));
    keep(f.message("hi", token));
    const auto call_id = f.answer_calls(f.step(), {{"web__read", {{"q", 1}}}}).at(0);
    keep(f.ack(cid, call_id, token));
    keep(f.result(cid, call_id, {{"content", "done"}}, token));
    keep(f.result(cid, call_id, {{"content", "again"}}, token));  // 409
    keep(f.ping(cid, std::string("secret-credential-123")));      // 401
    keep(f.ping(cid, other_token));                               // 403
    keep(f.open_events(token));
    for (const auto& body : bodies) {
      const std::string text = body.dump();
      CAPTURE(text);
      CHECK(text.find(token) == std::string::npos);
      CHECK(text.find(other_token) == std::string::npos);
      CHECK(text.find(admin_key) == std::string::npos);
      CHECK(text.find("secret-credential-123") == std::string::npos);
    }
    for (const auto& event : h.events()) {
      const std::string text = event.data.dump();
      CAPTURE(text);
      CHECK(text.find(token) == std::string::npos);
      CHECK(text.find(admin_key) == std::string::npos);
    }
    const auto step = f.step();
    CHECK(step.body().dump().find(token) == std::string::npos);
  }
}
