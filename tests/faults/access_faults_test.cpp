// Fault tests for access and the session stream: credentials (AUTH-1, AUTH-2, AUTH-4,
// AUTH-5), session creation (SES-1), Last-Event-ID (SES-3), event data (SES-4) and event
// order (SES-5).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "faults/fault_contrast.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference_server::fault;

TEST_CASE("fault api_key_rejected_on_client_routes breaks AUTH-1", "[faults][AUTH-1]") {
  // AUTH-1: "Every `/v1/sessions/{sid}/clients...` route accepts either the session's own
  // token or a workspace API key that has scope `session.manage`."
  const auto seen =
      run_clean_and_faulty(fault::api_key_rejected_on_client_routes, [](core_harness& h) {
        const auto sid = h.create_session();
        const auto with_key = h.request("POST", h.clients_path(sid),
                                        {{"name", "web"}, {"lifetime", core_harness::never()}});
        const auto with_token =
            h.request("POST", h.clients_path(sid),
                      {{"name", "app"}, {"lifetime", core_harness::never()}}, h.token_of(sid));
        const auto message = h.request("POST", messages_path(sid), {{"content", "hi"}});
        return json{{"api_key", with_key.status},
                    {"token", with_token.status},
                    {"message_with_key", message.status}};
      });
  CHECK(seen.clean == json{{"api_key", 201}, {"token", 201}, {"message_with_key", 202}});
  CHECK(seen.faulty == json{{"api_key", 403}, {"token", 201}, {"message_with_key", 202}});
}

TEST_CASE("fault unknown_credential_is_403 breaks AUTH-2", "[faults][AUTH-2]") {
  // AUTH-2: "Missing or unknown credential: 401. A known credential without access ...: 403."
  const auto seen = run_clean_and_faulty(fault::unknown_credential_is_403, [](core_harness& h) {
    const auto sid = h.create_session();
    const auto unknown =
        h.request("POST", messages_path(sid), {{"content", "hi"}}, std::string("not-a-key"));
    const auto missing = h.request("POST", messages_path(sid), {{"content", "hi"}}, std::nullopt);
    const auto task = h.request("GET", "/api/tasks/x", json(), std::string("not-a-key"));
    return json{{"unknown", unknown.status}, {"missing", missing.status}, {"task", task.status}};
  });
  CHECK(seen.clean == json{{"unknown", 401}, {"missing", 401}, {"task", 401}});
  CHECK(seen.faulty == json{{"unknown", 403}, {"missing", 401}, {"task", 403}});
}

TEST_CASE("fault session_token_creates_session breaks AUTH-4", "[faults][AUTH-4]") {
  // AUTH-4: "`POST /v1/sessions` (create) needs an API key with `session.manage`; a session
  // token is not enough (403)."
  const auto seen = run_clean_and_faulty(fault::session_token_creates_session, [](core_harness& h) {
    const auto sid = h.create_session();
    const auto created = h.request("POST", "/v1/sessions", json::object(), h.token_of(sid));
    const auto limited = h.request("POST", "/v1/sessions", json::object(), reader_key);
    return json{{"token", created.status}, {"limited_key", limited.status}};
  });
  CHECK(seen.clean == json{{"token", 403}, {"limited_key", 403}});
  CHECK(seen.faulty == json{{"token", 201}, {"limited_key", 403}});
}

TEST_CASE("fault access_token_query_ignored breaks AUTH-5", "[faults][AUTH-5]") {
  // AUTH-5: "`GET /v1/sessions/{sid}/events` also accepts the credential as the query
  // parameter `access_token`, because a browser's `EventSource` cannot set headers."
  const auto seen = run_clean_and_faulty(fault::access_token_query_ignored, [](core_harness& h) {
    const auto sid = h.create_session();
    const auto by_query = h.request("GET", events_path(sid) + "?access_token=" + h.token_of(sid),
                                    json(), std::nullopt);
    const auto by_header = h.request("GET", events_path(sid), json(), h.token_of(sid));
    return json{{"query", by_query.status}, {"header", by_header.status}};
  });
  CHECK(seen.clean == json{{"query", 200}, {"header", 200}});
  CHECK(seen.faulty == json{{"query", 401}, {"header", 200}});
}

TEST_CASE("fault session_created_with_200 breaks SES-1", "[faults][SES-1]") {
  // SES-1: "`POST /v1/sessions` `{}` -> 201 `{"id", "token"}`."
  const auto seen = run_clean_and_faulty(fault::session_created_with_200, [](core_harness& h) {
    const auto created = h.request("POST", "/v1/sessions", json::object());
    return json{{"status", created.status},
                {"has_id", created.body.contains("id")},
                {"has_token", created.body.contains("token")}};
  });
  CHECK(seen.clean == json{{"status", 201}, {"has_id", true}, {"has_token", true}});
  CHECK(seen.faulty == json{{"status", 200}, {"has_id", true}, {"has_token", true}});
}

TEST_CASE("fault left_reason_named_deleted breaks SES-4", "[faults][SES-4]") {
  // SES-4: "`client_unregistered {client_id, name, reason: "left" | "expired"}`".
  const auto seen = run_clean_and_faulty(fault::left_reason_named_deleted, [](core_harness& h) {
    const auto sid = h.create_session();
    const std::string left = h.register_client(sid, "web", core_harness::never())["client_id"];
    h.register_client(sid, "tab", core_harness::ttl(5));
    REQUIRE(h.request("DELETE", h.client_path(sid, left)).status == 204);
    h.advance(5'000);
    json reasons = json::array();
    for (const auto& event : h.events_of(sid, "client_unregistered"))
      reasons.push_back(event.data["reason"]);
    return reasons;
  });
  CHECK(seen.clean == json{"left", "expired"});
  CHECK(seen.faulty == json{"deleted", "expired"});
}

TEST_CASE("fault completed_event_deferred breaks SES-5", "[faults][SES-5]") {
  // SES-5: "Events appear in the order their causes happened."
  const auto seen = run_clean_and_faulty(fault::completed_event_deferred, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 2);
    REQUIRE(post_content(h, turn, turn.calls[0], "first") == 200);
    const auto after_result = count_events(h, turn.sid, "client_tool_completed");
    h.advance(h.core().config().ack_timeout_ms);  // the second call times out
    json order = json::array();
    for (const auto& event : h.events_of(turn.sid)) {
      if (event.type == "client_tool_completed" || event.type == "client_tool_failed") {
        order.push_back(event.type + " " + (event.data["call_id"] == turn.calls[0] ? "1" : "2"));
      }
    }
    return json{{"completed_after_result", after_result}, {"order", order}};
  });
  CHECK(seen.clean == json{{"completed_after_result", 1},
                           {"order", {"client_tool_completed 1", "client_tool_failed 2"}}});
  CHECK(seen.faulty == json{{"completed_after_result", 0},
                            {"order", {"client_tool_failed 2", "client_tool_completed 1"}}});
}

TEST_CASE("fault api_key_scopes_ignored breaks AUTH-2", "[faults][AUTH-2]") {
  // AUTH-2: "A known credential without access (... an API key without
  // `session.manage`): 403."
  const auto seen = run_clean_and_faulty(fault::api_key_scopes_ignored, [](core_harness& h) {
    const auto sid = h.create_session();
    const auto create = h.request("POST", "/v1/sessions", json::object(), reader_key);
    const auto message = h.request("POST", messages_path(sid), {{"content", "hi"}}, reader_key);
    return json{{"create", create.status}, {"message", message.status}};
  });
  CHECK(seen.clean == json{{"create", 403}, {"message", 403}});
  CHECK(seen.faulty == json{{"create", 201}, {"message", 202}});
}

TEST_CASE("fault session_token_accepted_on_tasks breaks AUTH-2", "[faults][AUTH-2]") {
  // AUTH-2: "The clock routes (section 7) and Part B take any workspace API key; a session
  // token there is 403."
  const auto seen =
      run_clean_and_faulty(fault::session_token_accepted_on_tasks, [](core_harness& h) {
        const auto sid = h.create_session();
        return h.request("GET", "/api/tasks/no-such-task", json(), h.token_of(sid)).status;
      });
  CHECK(seen.clean == json(403));
  CHECK(seen.faulty == json(404));
}

TEST_CASE("fault unknown_session_is_403 breaks AUTH-2", "[faults][AUTH-2]") {
  // AUTH-2: "Only then is an unknown session 404."
  const auto seen = run_clean_and_faulty(fault::unknown_session_is_403, [](core_harness& h) {
    return h.request("POST", messages_path("no-such-session"), {{"content", "hi"}}).status;
  });
  CHECK(seen.clean == json(404));
  CHECK(seen.faulty == json(403));
}

TEST_CASE("fault last_event_id_zero_rejected breaks SES-3", "[faults][SES-3]") {
  // SES-3: "(`0` asks for everything retained ...)".
  const auto seen = run_clean_and_faulty(fault::last_event_id_zero_rejected, [](core_harness& h) {
    const auto sid = h.create_session();
    h.register_client(sid, "web", core_harness::never());
    return json{h.request("GET", events_path(sid), json(), admin_key, "0").status,
                h.request("GET", events_path(sid), json(), admin_key, "1").status};
  });
  CHECK(seen.clean == json{200, 200});
  CHECK(seen.faulty == json{400, 200});
}

TEST_CASE("fault invalid_last_event_id_replays_all breaks SES-3", "[faults][SES-3]") {
  // SES-3: "a value that is not a non-negative integer is 400."
  const auto seen =
      run_clean_and_faulty(fault::invalid_last_event_id_replays_all, [](core_harness& h) {
        const auto sid = h.create_session();
        return json{h.request("GET", events_path(sid), json(), admin_key, "-1").status,
                    h.request("GET", events_path(sid), json(), admin_key, "abc").status};
      });
  CHECK(seen.clean == json{400, 400});
  CHECK(seen.faulty == json{200, 200});
}

TEST_CASE("fault session_token_rejected_on_messages breaks AUTH-1", "[faults][AUTH-1]") {
  // AUTH-1: "Every `/v1/sessions/{sid}/clients...` route accepts either the session's own
  // token or a workspace API key that has scope `session.manage`. [P] So do the session's
  // `/messages` and `/events` routes."
  const auto seen =
      run_clean_and_faulty(fault::session_token_rejected_on_messages, [](core_harness& h) {
        const auto by_token = h.create_session();
        const auto by_key = h.create_session();
        const auto with_token =
            h.request("POST", messages_path(by_token), {{"content", "hi"}}, h.token_of(by_token));
        const auto with_key = h.request("POST", messages_path(by_key), {{"content", "hi"}});
        const auto events = h.request("GET", events_path(by_token), json(), h.token_of(by_token));
        return json{{"token", with_token.status},
                    {"turn_started_by_token", count_events(h, by_token, "turn_started")},
                    {"api_key", with_key.status},
                    {"events_with_token", events.status}};
      });
  CHECK(seen.clean == json{{"token", 202},
                           {"turn_started_by_token", 1},
                           {"api_key", 202},
                           {"events_with_token", 200}});
  CHECK(seen.faulty == json{{"token", 403},
                            {"turn_started_by_token", 0},
                            {"api_key", 202},
                            {"events_with_token", 200}});
}

TEST_CASE("fault session_token_rejected_on_delete breaks AUTH-1", "[faults][AUTH-1]") {
  // AUTH-1: "Every `/v1/sessions/{sid}/clients...` route accepts either the session's own
  // token or a workspace API key that has scope `session.manage`."
  const auto seen =
      run_clean_and_faulty(fault::session_token_rejected_on_delete, [](core_harness& h) {
        const auto sid = h.create_session();
        const std::string web = h.register_client(sid, "web", core_harness::never())["client_id"];
        const std::string app = h.register_client(sid, "app", core_harness::never())["client_id"];
        const auto with_token =
            h.request("DELETE", h.client_path(sid, web), json(), h.token_of(sid));
        const auto ping_with_token =
            h.request("POST", h.client_path(sid, app) + "/ping", json(), h.token_of(sid));
        const auto with_key = h.request("DELETE", h.client_path(sid, app));
        json left = json::array();
        for (const auto& event : h.events_of(sid, "client_unregistered"))
          left.push_back(event.data["name"]);
        return json{{"token", with_token.status},
                    {"ping_with_token", ping_with_token.status},
                    {"api_key", with_key.status},
                    {"left", left}};
      });
  CHECK(seen.clean ==
        json{{"token", 204}, {"ping_with_token", 200}, {"api_key", 204}, {"left", {"web", "app"}}});
  CHECK(seen.faulty ==
        json{{"token", 403}, {"ping_with_token", 200}, {"api_key", 204}, {"left", {"app"}}});
}

TEST_CASE("fault missing_credential_is_400 breaks AUTH-2", "[faults][AUTH-2]") {
  // AUTH-2: "Missing or unknown credential: 401." C-2: "401 `unauthenticated`".
  const auto seen = run_clean_and_faulty(fault::missing_credential_is_400, [](core_harness& h) {
    const auto sid = h.create_session();
    auto answer = [](const toolwire::protocol::api_response& response) {
      return json{response.status, response.body["error"]["type"]};
    };
    return json{{"missing",
                 answer(h.request("POST", messages_path(sid), {{"content", "hi"}}, std::nullopt))},
                {"missing_on_task", answer(h.request("GET", "/api/tasks/x", json(), std::nullopt))},
                {"unknown", answer(h.request("POST", messages_path(sid), {{"content", "hi"}},
                                             std::string("not-a-key")))},
                {"turns_started", count_events(h, sid, "turn_started")}};
  });
  CHECK(seen.clean == json{{"missing", {401, "unauthenticated"}},
                           {"missing_on_task", {401, "unauthenticated"}},
                           {"unknown", {401, "unauthenticated"}},
                           {"turns_started", 0}});
  CHECK(seen.faulty == json{{"missing", {400, "invalid_request"}},
                            {"missing_on_task", {400, "invalid_request"}},
                            {"unknown", {401, "unauthenticated"}},
                            {"turns_started", 0}});
}

TEST_CASE("fault limited_key_refused_on_workspace_routes breaks AUTH-2", "[faults][AUTH-2]") {
  // AUTH-2: "The clock routes (section 7) and Part B take any workspace API key".
  const auto seen =
      run_clean_and_faulty(fault::limited_key_refused_on_workspace_routes, [](core_harness& h) {
        const auto task = h.request("POST", "/api/tasks",
                                    {{"assistant_id", 1},
                                     {"input", json::array({{{"type", "text"}, {"text", "hi"}}})},
                                     {"client_tools", json::array({task_tool("locate")})}},
                                    reader_key);
        const auto clock = h.request("GET", "/v1/_test/clock", json(), reader_key);
        const auto sid = h.create_session();
        const auto message = h.request("POST", messages_path(sid), {{"content", "hi"}}, reader_key);
        return json{{"create_task", task.status},
                    {"clock", clock.status},
                    {"session_route", message.status}};
      });
  CHECK(seen.clean == json{{"create_task", 201}, {"clock", 200}, {"session_route", 403}});
  CHECK(seen.faulty == json{{"create_task", 403}, {"clock", 403}, {"session_route", 403}});
}

TEST_CASE("fault second_session_answered_200 breaks SES-1", "[faults][SES-1]") {
  // SES-1: "`POST /v1/sessions` `{}` -> 201 `{"id", "token"}`."
  const auto seen = run_clean_and_faulty(fault::second_session_answered_200, [](core_harness& h) {
    json statuses = json::array();
    std::set<std::string> ids;
    for (int i = 0; i < 3; ++i) {
      const auto created = h.request("POST", "/v1/sessions", json::object());
      statuses.push_back(created.status);
      ids.insert(created.body.value("id", std::string()));
    }
    return json{{"statuses", statuses}, {"distinct_ids", ids.size()}};
  });
  CHECK(seen.clean == json{{"statuses", {201, 201, 201}}, {"distinct_ids", 3}});
  CHECK(seen.faulty == json{{"statuses", {201, 200, 200}}, {"distinct_ids", 3}});
}

TEST_CASE("fault completed_event_is_error_as_text breaks SES-4", "[faults][SES-4]") {
  // SES-4: "`client_tool_completed {call_id, client_id, is_error}`"; CALL-4 names a
  // client's error result an error, so `is_error` is a boolean.
  const auto seen =
      run_clean_and_faulty(fault::completed_event_is_error_as_text, [](core_harness& h) {
        const auto turn = dispatch_reads(h, 2);
        REQUIRE(post_content(h, turn, turn.calls[0], "fine") == 200);
        REQUIRE(h.request("POST", h.call_path(turn.sid, turn.cid, turn.calls[1]) + "/result",
                          {{"error", "no form"}})
                    .status == 200);
        json is_error = json::array();
        for (const auto& event : h.events_of(turn.sid, "client_tool_completed"))
          is_error.push_back(event.data["is_error"]);
        return is_error;
      });
  CHECK(seen.clean == json{false, true});
  CHECK(seen.faulty == json{"false", "true"});
}

TEST_CASE("fault failed_event_without_tool breaks SES-4", "[faults][SES-4]") {
  // SES-4: "`client_tool_failed {call_id, client_id, tool, reason}`".
  const auto seen = run_clean_and_faulty(fault::failed_event_without_tool, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    h.advance(h.core().config().ack_timeout_ms);
    const auto failed = h.find_event(turn.sid, "client_tool_failed");
    REQUIRE(failed);
    return json{{"call_id", failed->data.value("call_id", "") == turn.calls[0]},
                {"client_id", failed->data.value("client_id", "") == turn.cid},
                {"tool", failed->data.value("tool", json("absent"))},
                {"reason", failed->data["reason"]}};
  });
  CHECK(seen.clean ==
        json{{"call_id", true}, {"client_id", true}, {"tool", "read"}, {"reason", "ack_timeout"}});
  CHECK(
      seen.faulty ==
      json{{"call_id", true}, {"client_id", true}, {"tool", "absent"}, {"reason", "ack_timeout"}});
}

namespace {

//! The types of session `sid`'s events, in order.
json event_types(const core_harness& h, const std::string& sid) {
  json types = json::array();
  for (const auto& event : h.events_of(sid))
    types.push_back(event.type);
  return types;
}

}  // namespace

TEST_CASE("fault turn_failed_named_turn_error breaks SES-4", "[faults][SES-4]") {
  // SES-4: "`turn_failed {turn_id, reason}`"; MODEL-4: "the turn ends as `turn_failed`".
  const auto seen = run_clean_and_faulty(fault::turn_failed_named_turn_error, [](core_harness& h) {
    const auto sid = h.create_session();
    start_turn(h, sid);
    h.fail_model(h.next_model_step().step_id, "model endpoint down");
    const auto last = h.events_of(sid).back();
    return json{{"types", event_types(h, sid)}, {"has_reason", last.data.contains("reason")}};
  });
  CHECK(seen.clean == json{{"types", {"turn_started", "turn_failed"}}, {"has_reason", true}});
  CHECK(seen.faulty == json{{"types", {"turn_started", "turn_error"}}, {"has_reason", true}});
}

TEST_CASE("fault turn_started_omitted breaks SES-4", "[faults][SES-4]") {
  // SES-4: "`turn_started {turn_id}`" is one of the event types a turn emits.
  const auto seen = run_clean_and_faulty(fault::turn_started_omitted, [](core_harness& h) {
    const auto sid = h.create_session();
    const auto message = h.request("POST", messages_path(sid), {{"content", "go"}});
    REQUIRE(message.status == 202);
    h.answer_text(h.next_model_step().step_id, "done");
    json turn_ids = json::array();
    json seqs = json::array();
    for (const auto& event : h.events_of(sid)) {
      turn_ids.push_back(event.data["turn_id"] == message.body["turn_id"]);
      seqs.push_back(event.seq);
    }
    return json{{"types", event_types(h, sid)}, {"of_the_turn", turn_ids}, {"seqs", seqs}};
  });
  CHECK(seen.clean == json{{"types", {"turn_started", "turn_completed"}},
                           {"of_the_turn", {true, true}},
                           {"seqs", {1, 2}}});
  CHECK(seen.faulty == json{{"types", {"turn_completed"}}, {"of_the_turn", {true}}, {"seqs", {1}}});
}
