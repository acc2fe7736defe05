// Fault tests for the common conventions: bodies, error shape, rejected requests,
// credentials and unknown fields (C-1..3, C-5, C-6).
#include <catch2/catch.hpp>

#include <string>

#include "faults/fault_contrast.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference_server::fault;

TEST_CASE("fault malformed_json_treated_as_empty breaks C-1", "[faults][C-1]") {
  // C-1: "Bodies are JSON (UTF-8)". C-2: "Malformed JSON is 400."
  const auto seen =
      run_clean_and_faulty(fault::malformed_json_treated_as_empty, [](core_harness& h) {
        const auto created = h.request_raw("POST", "/v1/sessions", "{\"not\": json");
        const auto sid = h.create_session();
        const auto message = h.request_raw("POST", messages_path(sid), "content=hello");
        return json{{"create_session", created.status}, {"message", message.status}};
      });
  // Without the fault both are malformed; with it the first reads as `{}` (a valid create)
  // and the second as a message without content (still 400, for another reason).
  CHECK(seen.clean == json{{"create_session", 400}, {"message", 400}});
  CHECK(seen.faulty == json{{"create_session", 201}, {"message", 400}});
}

TEST_CASE("fault error_body_is_string breaks C-2", "[faults][C-2]") {
  // C-2: "Errors are `{"error": {"type": "<code>", "message": "<text>"}}`".
  const auto seen = run_clean_and_faulty(fault::error_body_is_string, [](core_harness& h) {
    const auto sid = h.create_session();
    const auto missing = h.request("POST", h.client_path(sid, "no-such-client") + "/ping");
    const auto unauthenticated =
        h.request("POST", messages_path(sid), {{"content", "hi"}}, std::nullopt);
    return json{{"statuses", {missing.status, unauthenticated.status}},
                {"types",
                 {missing.body["error"].is_object() ? missing.body["error"]["type"] : json("?"),
                  unauthenticated.body["error"].is_object() ? unauthenticated.body["error"]["type"]
                                                            : json("?")}}};
  });
  CHECK(seen.clean == json{{"statuses", {404, 401}}, {"types", {"not_found", "unauthenticated"}}});
  CHECK(seen.faulty == json{{"statuses", {404, 401}}, {"types", {"?", "?"}}});
}

TEST_CASE("fault rejected_result_acks_call breaks C-3", "[faults][C-3]") {
  // C-3: "A rejected request changes nothing: no client, no event, no call state."
  const auto seen = run_clean_and_faulty(fault::rejected_result_acks_call, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    const auto rejected =
        h.request("POST", h.call_path(turn.sid, turn.cid, turn.calls[0]) + "/result",
                  {{"content", "a"}, {"error", "b"}});
    h.advance(h.core().config().ack_timeout_ms);
    return json{{"rejected", rejected.status}, {"failures", failure_reasons(h, turn.sid)}};
  });
  CHECK(seen.clean == json{{"rejected", 400}, {"failures", {"ack_timeout"}}});
  CHECK(seen.faulty == json{{"rejected", 400}, {"failures", json::array()}});
}

TEST_CASE("fault access_token_accepted_everywhere breaks C-5", "[faults][C-5]") {
  // C-5: "Credentials travel as `Authorization: Bearer <credential>`." AUTH-5 makes the
  // `access_token` query parameter an exception for the events route only.
  const auto seen =
      run_clean_and_faulty(fault::access_token_accepted_everywhere, [](core_harness& h) {
        const auto sid = h.create_session();
        const std::string cid = h.register_client(sid, "web", core_harness::ttl(60))["client_id"];
        const std::string query = "?access_token=" + h.token_of(sid);
        const auto events = h.request("GET", events_path(sid) + query, json(), std::nullopt);
        const auto ping =
            h.request("POST", h.client_path(sid, cid) + "/ping" + query, json(), std::nullopt);
        return json{{"events", events.status}, {"ping", ping.status}};
      });
  CHECK(seen.clean == json{{"events", 200}, {"ping", 401}});
  CHECK(seen.faulty == json{{"events", 200}, {"ping", 200}});
}

TEST_CASE("fault unknown_fields_rejected breaks C-6", "[faults][C-6]") {
  // C-6: "readers ignore fields they do not know" (and REG-1: "unknown keys are ignored").
  const auto seen = run_clean_and_faulty(fault::unknown_fields_rejected, [](core_harness& h) {
    const auto sid = h.create_session();
    const auto registered =
        h.request("POST", h.clients_path(sid),
                  {{"name", "web"}, {"lifetime", core_harness::never()}, {"app_version", "3.1.4"}});
    const auto message =
        h.request("POST", messages_path(sid), {{"content", "hi"}, {"client_ts", 12}});
    return json{{"register", registered.status},
                {"message", message.status},
                {"registered_events", count_events(h, sid, "client_registered")}};
  });
  CHECK(seen.clean == json{{"register", 201}, {"message", 202}, {"registered_events", 1}});
  CHECK(seen.faulty == json{{"register", 400}, {"message", 400}, {"registered_events", 0}});
}

namespace {

//! A response as `{status, error type}` ("?" when the body has no typed error).
json status_and_type(const toolwire::protocol::api_response& response) {
  const bool typed = response.body.is_object() && response.body.contains("error") &&
                     response.body["error"].is_object();
  return json{response.status, typed ? response.body["error"]["type"] : json("?")};
}

}  // namespace

TEST_CASE("fault non_object_body_is_422 breaks C-2", "[faults][C-2]") {
  // C-2: "Errors are `{"error": {"type": "<code>", "message": "<text>"}}` with status 400
  // `invalid_request`, ..."
  const auto seen = run_clean_and_faulty(fault::non_object_body_is_422, [](core_harness& h) {
    const auto sid = h.create_session();
    return json{
        {"message", status_and_type(h.request("POST", messages_path(sid), json::array({"hi"})))},
        {"register", status_and_type(h.request_raw("POST", h.clients_path(sid), "42"))},
        {"turns_started", count_events(h, sid, "turn_started")}};
  });
  CHECK(seen.clean == json{{"message", {400, "invalid_request"}},
                           {"register", {400, "invalid_request"}},
                           {"turns_started", 0}});
  CHECK(seen.faulty == json{{"message", {422, "unprocessable_entity"}},
                            {"register", {422, "unprocessable_entity"}},
                            {"turns_started", 0}});
}

TEST_CASE("fault conflict_typed_invalid_state breaks C-2", "[faults][C-2]") {
  // C-2: "... 404 `not_found`, 409 `conflict`, ..."
  const auto seen = run_clean_and_faulty(fault::conflict_typed_invalid_state, [](core_harness& h) {
    const auto sid = h.create_session();
    start_turn(h, sid);
    return json{{"second_message",
                 status_and_type(h.request("POST", messages_path(sid), {{"content", "again"}}))},
                {"unknown_client",
                 status_and_type(h.request("POST", h.client_path(sid, "nobody") + "/ping"))}};
  });
  CHECK(seen.clean ==
        json{{"second_message", {409, "conflict"}}, {"unknown_client", {404, "not_found"}}});
  CHECK(seen.faulty ==
        json{{"second_message", {409, "invalid_state"}}, {"unknown_client", {404, "not_found"}}});
}

TEST_CASE("fault not_found_typed_unknown_resource breaks C-2", "[faults][C-2]") {
  // C-2: "... 404 `not_found`, 409 `conflict`, ..."
  const auto seen =
      run_clean_and_faulty(fault::not_found_typed_unknown_resource, [](core_harness& h) {
        const auto sid = h.create_session();
        start_turn(h, sid);
        return json{{"unknown_client",
                     status_and_type(h.request("POST", h.client_path(sid, "nobody") + "/ping"))},
                    {"unknown_task", status_and_type(h.request("GET", "/api/tasks/no-such-task"))},
                    {"second_message", status_and_type(h.request("POST", messages_path(sid),
                                                                 {{"content", "again"}}))}};
      });
  CHECK(seen.clean == json{{"unknown_client", {404, "not_found"}},
                           {"unknown_task", {404, "not_found"}},
                           {"second_message", {409, "conflict"}}});
  CHECK(seen.faulty == json{{"unknown_client", {404, "unknown_resource"}},
                            {"unknown_task", {404, "unknown_resource"}},
                            {"second_message", {409, "conflict"}}});
}

TEST_CASE("fault malformed_json_is_500 breaks C-2", "[faults][C-2]") {
  // C-2: "Malformed JSON is 400."
  const auto seen = run_clean_and_faulty(fault::malformed_json_is_500, [](core_harness& h) {
    const auto sid = h.create_session();
    const auto message = h.request_raw("POST", messages_path(sid), "{\"content\": \"hi\"");
    const auto task = h.request_raw("POST", "/api/tasks", "{assistant_id: 1}");
    return json{{"message", status_and_type(message)},
                {"task", status_and_type(task)},
                {"turns_started", count_events(h, sid, "turn_started")}};
  });
  CHECK(seen.clean == json{{"message", {400, "invalid_request"}},
                           {"task", {400, "invalid_request"}},
                           {"turns_started", 0}});
  CHECK(seen.faulty ==
        json{{"message", {500, "internal"}}, {"task", {500, "internal"}}, {"turns_started", 0}});
}

TEST_CASE("fault rejected_message_starts_turn breaks C-3", "[faults][C-3]") {
  // C-3: "A rejected request changes nothing: no client, no event, no call state."
  const auto seen = run_clean_and_faulty(fault::rejected_message_starts_turn, [](core_harness& h) {
    const auto sid = h.create_session();
    const auto rejected = h.request("POST", messages_path(sid), {{"content", 42}});
    json observed = {{"rejected", status_and_type(rejected)},
                     {"turns_started", count_events(h, sid, "turn_started")},
                     {"model_step", h.has_model_step()}};
    if (h.has_model_step()) {
      const auto step = h.next_model_step();
      observed["user_text"] = step.conversation["messages"].back()["content"];
    }
    return observed;
  });
  CHECK(seen.clean ==
        json{{"rejected", {400, "invalid_request"}}, {"turns_started", 0}, {"model_step", false}});
  CHECK(seen.faulty == json{{"rejected", {400, "invalid_request"}},
                            {"turns_started", 1},
                            {"model_step", true},
                            {"user_text", "{\"content\":42}"}});
}

TEST_CASE("fault rejected_registration_registers_client breaks C-3", "[faults][C-3]") {
  // C-3: "A rejected request changes nothing: no client, no event, no call state."
  const auto seen =
      run_clean_and_faulty(fault::rejected_registration_registers_client, [](core_harness& h) {
        const auto sid = h.create_session();
        const auto rejected = h.request("POST", h.clients_path(sid),
                                        {{"name", "web"},
                                         {"lifetime", core_harness::never()},
                                         {"tools", json::array({core_harness::tool("bad name")})}});
        const auto registered_events = count_events(h, sid, "client_registered");
        const json next = h.register_client(sid, "web", core_harness::never());
        return json{{"rejected", status_and_type(rejected)},
                    {"registered_events", registered_events},
                    {"next_web_gets", next["name"]}};
      });
  CHECK(seen.clean == json{{"rejected", {400, "invalid_request"}},
                           {"registered_events", 0},
                           {"next_web_gets", "web"}});
  CHECK(seen.faulty == json{{"rejected", {400, "invalid_request"}},
                            {"registered_events", 1},
                            {"next_web_gets", "web_2"}});
}
