// Fault tests for the common conventions: bodies, error shape, rejected requests,
// credentials and unknown fields (C-1..3, C-5, C-6).
#include <catch2/catch.hpp>

#include <string>

#include "faults/fault_contrast.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference::fault;

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
