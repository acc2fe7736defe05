// Fault tests for calls: dispatch, deadlines, settlement and results (CALL-1..9).
#include <catch2/catch.hpp>

#include <string>

#include "faults/fault_contrast.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference_server::fault;

namespace {

//! The model's tool messages of the next step as `{tool_call_id: content}` (consumes it).
json tool_results_seen_by_model(core_harness& h) {
  json seen = json::object();
  for (const auto& message : core_harness::tool_messages(h.next_model_step())) {
    seen[message["tool_call_id"].get<std::string>()] = message["content"];
  }
  return seen;
}

}  // namespace

TEST_CASE("fault dispatch_namespaced_tool breaks CALL-1", "[faults][CALL-1]") {
  // CALL-1: "Each call to a client tool emits `client_tool_dispatched` with ... the tool
  // name as the client declared it (no namespace)."
  const auto seen = run_clean_and_faulty(fault::dispatch_namespaced_tool, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    const auto event = h.find_event(turn.sid, "client_tool_dispatched");
    REQUIRE(event);
    return json{{"tool", event->data["tool"]}, {"arguments", event->data["arguments"]}};
  });
  CHECK(seen.clean == json{{"tool", "read"}, {"arguments", {{"n", 0}}}});
  CHECK(seen.faulty == json{{"tool", "web__read"}, {"arguments", {{"n", 0}}}});
}

TEST_CASE("fault ack_does_not_extend_deadline breaks CALL-3", "[faults][CALL-3]") {
  // CALL-3: "An un-acked call fails at `dispatched + ack_timeout` (reason `ack_timeout`);
  // an acked one at `dispatched + result_timeout` (reason `result_timeout`)."
  const auto seen = run_clean_and_faulty(fault::ack_does_not_extend_deadline, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    REQUIRE(h.request("POST", h.call_path(turn.sid, turn.cid, turn.calls[0]) + "/ack").status ==
            200);
    h.advance(h.core().config().ack_timeout_ms);
    json observed = {{"failures_at_ack_timeout", failure_reasons(h, turn.sid)},
                     {"result", post_content(h, turn, turn.calls[0], "done")}};
    return observed;
  });
  CHECK(seen.clean == json{{"failures_at_ack_timeout", json::array()}, {"result", 200}});
  CHECK(seen.faulty == json{{"failures_at_ack_timeout", {"result_timeout"}}, {"result", 409}});
}

TEST_CASE("fault double_result_accepted breaks CALL-6", "[faults][CALL-6]") {
  // CALL-6: "A second result, or a result or ack after the call was settled ...: 409, and
  // nothing changes (the first outcome stands and is what the model saw)."
  const auto seen = run_clean_and_faulty(fault::double_result_accepted, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    REQUIRE(post_content(h, turn, turn.calls[0], "first") == 200);
    const int second = post_content(h, turn, turn.calls[0], "second");
    return json{{"second_result", second},
                {"completed_events", count_events(h, turn.sid, "client_tool_completed")},
                {"model_saw", tool_results_seen_by_model(h)}};
  });
  CHECK(seen.clean ==
        json{{"second_result", 409}, {"completed_events", 1}, {"model_saw", {{"mc_1", "first"}}}});
  CHECK(seen.faulty ==
        json{{"second_result", 200}, {"completed_events", 2}, {"model_saw", {{"mc_1", "first"}}}});
}

TEST_CASE("fault results_matched_by_position breaks CALL-9", "[faults][CALL-9]") {
  // CALL-9: "Calls run concurrently: results may arrive in any order and are matched by
  // `call_id`, never by position."
  const auto seen = run_clean_and_faulty(fault::results_matched_by_position, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 2);
    const int later_first = post_content(h, turn, turn.calls[1], "for the second call");
    json completed = json::array();
    for (const auto& event : h.events_of(turn.sid, "client_tool_completed")) {
      completed.push_back(event.data["call_id"] == turn.calls[0] ? "first" : "second");
    }
    const int earlier_last = post_content(h, turn, turn.calls[0], "for the first call");
    return json{{"statuses", {later_first, earlier_last}},
                {"completed", completed},
                {"next_step", h.has_model_step()}};
  });
  CHECK(seen.clean ==
        json{{"statuses", {200, 200}}, {"completed", {"second"}}, {"next_step", true}});
  CHECK(seen.faulty ==
        json{{"statuses", {200, 409}}, {"completed", {"first"}}, {"next_step", false}});
}

TEST_CASE("fault next_step_before_all_settled breaks CALL-9", "[faults][CALL-9]") {
  // CALL-9: "the next model step runs only once every call of the step is settled."
  const auto seen = run_clean_and_faulty(fault::next_step_before_all_settled, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 2);
    REQUIRE(post_content(h, turn, turn.calls[0], "one") == 200);
    json observed = {{"step_after_one_of_two", h.has_model_step()}};
    if (h.has_model_step()) observed["model_saw"] = tool_results_seen_by_model(h);
    return observed;
  });
  CHECK(seen.clean == json{{"step_after_one_of_two", false}});
  CHECK(seen.faulty == json{{"step_after_one_of_two", true}, {"model_saw", {{"mc_1", "one"}}}});
}

TEST_CASE("fault string_content_serialized breaks CALL-8", "[faults][CALL-8]") {
  // CALL-8: "Content that is a string reaches the model as that string, other JSON as its
  // serialization."
  const auto seen = run_clean_and_faulty(fault::string_content_serialized, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 2);
    REQUIRE(post_content(h, turn, turn.calls[0], "hello") == 200);
    REQUIRE(post_content(h, turn, turn.calls[1], {{"rows", 3}}) == 200);
    return tool_results_seen_by_model(h);
  });
  CHECK(seen.clean == json{{"mc_1", "hello"}, {"mc_2", "{\"rows\":3}"}});
  CHECK(seen.faulty == json{{"mc_1", "\"hello\""}, {"mc_2", "{\"rows\":3}"}});
}

namespace {

//! POSTs an ack for `call_id`; returns the status.
int post_ack(core_harness& h, const dispatched_turn& turn, const std::string& call_id) {
  return h.request("POST", h.call_path(turn.sid, turn.cid, call_id) + "/ack").status;
}

//! POSTs `body` as the result of `call_id`; returns the response.
toolwire::protocol::api_response post_result_body(core_harness& h, const dispatched_turn& turn,
                                                  const std::string& call_id, const json& body) {
  return h.request("POST", h.call_path(turn.sid, turn.cid, call_id) + "/result", body);
}

}  // namespace

TEST_CASE("fault arguments_as_text breaks CALL-1", "[faults][CALL-1]") {
  // CALL-1: "... and the `arguments` exactly as the model gave them."
  const auto seen = run_clean_and_faulty(fault::arguments_as_text, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    return h.find_event(turn.sid, "client_tool_dispatched")->data["arguments"];
  });
  CHECK(seen.clean == json{{"n", 0}});
  CHECK(seen.faulty == json("{\"n\":0}"));
}

TEST_CASE("fault model_name_uses_requested_name breaks CALL-2", "[faults][CALL-2]") {
  // CALL-2: "The model sees a client's tool as `<assigned client name>__<tool>`."
  const auto seen =
      run_clean_and_faulty(fault::model_name_uses_requested_name, [](core_harness& h) {
        const auto sid = h.create_session();
        h.register_client(sid, "web", core_harness::never(),
                          json::array({core_harness::tool("a")}));
        const auto second = h.register_client(sid, "web", core_harness::never(),
                                              json::array({core_harness::tool("a")}));
        REQUIRE(second["name"] == "web_2");
        start_turn(h, sid);
        return offered_in_next_step(h);
      });
  CHECK(seen.clean == json{"web__a", "web_2__a"});
  CHECK(seen.faulty == json{"web__a", "web__a"});
}

TEST_CASE("fault result_timeout_from_ack breaks CALL-3", "[faults][CALL-3]") {
  // CALL-3: "an acked one [fails] at `dispatched + result_timeout`".
  const auto seen = run_clean_and_faulty(fault::result_timeout_from_ack, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    h.advance(1'000);
    REQUIRE(post_ack(h, turn, turn.calls[0]) == 200);
    h.advance(h.core().config().result_timeout_ms - 1'000);  // dispatched + result_timeout
    return failure_reasons(h, turn.sid);
  });
  CHECK(seen.clean == json{"result_timeout"});
  CHECK(seen.faulty == json::array());
}

TEST_CASE("fault ack_timeout_not_enforced breaks CALL-3", "[faults][CALL-3]") {
  // CALL-3: "An un-acked call fails at `dispatched + ack_timeout` (reason `ack_timeout`)".
  const auto seen = run_clean_and_faulty(fault::ack_timeout_not_enforced, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    h.advance(h.core().config().ack_timeout_ms);
    return failure_reasons(h, turn.sid);
  });
  CHECK(seen.clean == json{"ack_timeout"});
  CHECK(seen.faulty == json::array());
}

TEST_CASE("fault error_result_reported_as_success breaks CALL-4", "[faults][CALL-4]") {
  // CALL-4: "... -> 200, emits `client_tool_completed {call_id, client_id, is_error}`."
  const auto seen =
      run_clean_and_faulty(fault::error_result_reported_as_success, [](core_harness& h) {
        const auto turn = dispatch_reads(h, 1);
        REQUIRE(post_result_body(h, turn, turn.calls[0], {{"error", "no form"}}).status == 200);
        return h.find_event(turn.sid, "client_tool_completed")->data["is_error"];
      });
  CHECK(seen.clean == json(true));
  CHECK(seen.faulty == json(false));
}

TEST_CASE("fault empty_result_accepted breaks CALL-4", "[faults][CALL-4]") {
  // CALL-4: "Both or neither of `content`/`error`: 400."
  const auto seen = run_clean_and_faulty(fault::empty_result_accepted, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    const auto empty = post_result_body(h, turn, turn.calls[0], json::object());
    return json{{"empty", empty.status},
                {"completed", count_events(h, turn.sid, "client_tool_completed")}};
  });
  CHECK(seen.clean == json{{"empty", 400}, {"completed", 0}});
  CHECK(seen.faulty == json{{"empty", 200}, {"completed", 1}});
}

TEST_CASE("fault content_preferred_over_error breaks CALL-4", "[faults][CALL-4]") {
  // CALL-4: "Both or neither of `content`/`error`: 400."
  const auto seen = run_clean_and_faulty(fault::content_preferred_over_error, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    const auto both =
        post_result_body(h, turn, turn.calls[0], {{"content", "ok"}, {"error", "not ok"}});
    return json{{"both", both.status},
                {"completed", count_events(h, turn.sid, "client_tool_completed")}};
  });
  CHECK(seen.clean == json{{"both", 400}, {"completed", 0}});
  CHECK(seen.faulty == json{{"both", 200}, {"completed", 1}});
}

TEST_CASE("fault non_string_content_rejected breaks CALL-4", "[faults][CALL-4]") {
  // CALL-4: "`{"content": <string or JSON>}`".
  const auto seen = run_clean_and_faulty(fault::non_string_content_rejected, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 2);
    return json{post_content(h, turn, turn.calls[0], "text"),
                post_content(h, turn, turn.calls[1], {{"rows", 3}})};
  });
  CHECK(seen.clean == json{200, 200});
  CHECK(seen.faulty == json{200, 400});
}

TEST_CASE("fault deadline_not_cancelled_on_result breaks CALL-5", "[faults][CALL-5]") {
  // CALL-5: "Every dispatched call is settled exactly once ... Never both, never twice".
  const auto seen =
      run_clean_and_faulty(fault::deadline_not_cancelled_on_result, [](core_harness& h) {
        const auto turn = dispatch_reads(h, 1);
        REQUIRE(post_content(h, turn, turn.calls[0], "done") == 200);
        h.advance(h.core().config().ack_timeout_ms);
        return json{{"completed", count_events(h, turn.sid, "client_tool_completed")},
                    {"failed", failure_reasons(h, turn.sid)}};
      });
  CHECK(seen.clean == json{{"completed", 1}, {"failed", json::array()}});
  CHECK(seen.faulty == json{{"completed", 1}, {"failed", {"ack_timeout"}}});
}

TEST_CASE("fault ack_after_settle_accepted breaks CALL-6", "[faults][CALL-6]") {
  // CALL-6: "a result or ack after the call was settled (completed or failed): 409".
  const auto seen = run_clean_and_faulty(fault::ack_after_settle_accepted, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 2);
    REQUIRE(post_content(h, turn, turn.calls[0], "done") == 200);
    h.advance(h.core().config().ack_timeout_ms);  // the second call fails
    return json{post_ack(h, turn, turn.calls[0]), post_ack(h, turn, turn.calls[1])};
  });
  CHECK(seen.clean == json{409, 409});
  CHECK(seen.faulty == json{200, 200});
}

TEST_CASE("fault wrong_client_result_accepted breaks CALL-7", "[faults][CALL-7]") {
  // CALL-7: "A call is addressed only through the client it was dispatched to: another
  // client's `cid` in the path gives 404."
  const auto seen = run_clean_and_faulty(fault::wrong_client_result_accepted, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    const std::string other =
        h.register_client(turn.sid, "app", core_harness::never())["client_id"];
    const auto wrong = h.request("POST", h.call_path(turn.sid, other, turn.calls[0]) + "/result",
                                 {{"content", "not mine"}});
    return json{{"wrong_client", wrong.status},
                {"completed", count_events(h, turn.sid, "client_tool_completed")}};
  });
  CHECK(seen.clean == json{{"wrong_client", 404}, {"completed", 0}});
  CHECK(seen.faulty == json{{"wrong_client", 200}, {"completed", 1}});
}

TEST_CASE("fault error_result_message_only breaks CALL-8", "[faults][CALL-8]") {
  // CALL-8: "an error reaches the model as a tool message whose content is `{"error":
  // {"reason": "<reason>", "message": "<text>"}}`."
  const auto seen = run_clean_and_faulty(fault::error_result_message_only, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    REQUIRE(post_result_body(h, turn, turn.calls[0], {{"error", "denied"}, {"reason", "refused"}})
                .status == 200);
    return tool_results_seen_by_model(h);
  });
  CHECK(seen.clean ==
        json{{"mc_1", "{\"error\":{\"message\":\"denied\",\"reason\":\"refused\"}}"}});
  CHECK(seen.faulty == json{{"mc_1", "denied"}});
}

TEST_CASE("fault result_after_timeout_accepted breaks CALL-6", "[faults][CALL-6]") {
  // CALL-6: "a result or ack after the call was settled (completed or failed): 409, and
  // nothing changes (the first outcome stands and is what the model saw)."
  const auto seen = run_clean_and_faulty(fault::result_after_timeout_accepted, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    h.advance(h.core().config().ack_timeout_ms);  // the call fails: ack_timeout
    const int late = post_content(h, turn, turn.calls[0], "late");
    const json model_saw = tool_results_seen_by_model(h);
    return json{
        {"late_result", late},
        {"completed", count_events(h, turn.sid, "client_tool_completed")},
        {"failed", failure_reasons(h, turn.sid)},
        {"model_saw", json::parse(model_saw["mc_1"].get<std::string>())["error"]["reason"]}};
  });
  CHECK(seen.clean == json{{"late_result", 409},
                           {"completed", 0},
                           {"failed", {"ack_timeout"}},
                           {"model_saw", "ack_timeout"}});
  CHECK(seen.faulty == json{{"late_result", 200},
                            {"completed", 0},
                            {"failed", {"ack_timeout"}},
                            {"model_saw", "ack_timeout"}});
}

TEST_CASE("fault completed_event_without_client_id breaks CALL-4", "[faults][CALL-4]") {
  // CALL-4: "... -> 200, emits `client_tool_completed {call_id, client_id, is_error}`."
  const auto seen =
      run_clean_and_faulty(fault::completed_event_without_client_id, [](core_harness& h) {
        const auto turn = dispatch_reads(h, 1);
        REQUIRE(post_content(h, turn, turn.calls[0], "done") == 200);
        const auto completed = h.find_event(turn.sid, "client_tool_completed");
        REQUIRE(completed);
        const json& data = completed->data;
        return json{{"call_id", data.value("call_id", "") == turn.calls[0]},
                    {"client_id", data.contains("client_id")
                                      ? json(data["client_id"] == turn.cid ? "the owner" : "other")
                                      : json("absent")},
                    {"is_error", data.value("is_error", json("absent"))}};
      });
  CHECK(seen.clean == json{{"call_id", true}, {"client_id", "the owner"}, {"is_error", false}});
  CHECK(seen.faulty == json{{"call_id", true}, {"client_id", "absent"}, {"is_error", false}});
}

TEST_CASE("fault result_requires_ack breaks CALL-3", "[faults][CALL-3]") {
  // CALL-3: "`POST .../clients/{cid}/calls/{call_id}/ack` -> 200. Acking is optional and
  // idempotent."
  const auto seen = run_clean_and_faulty(fault::result_requires_ack, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 2);
    const int without_ack = post_content(h, turn, turn.calls[0], "no ack");
    REQUIRE(post_ack(h, turn, turn.calls[1]) == 200);
    const int after_ack = post_content(h, turn, turn.calls[1], "acked");
    return json{{"statuses", {without_ack, after_ack}},
                {"completed", count_events(h, turn.sid, "client_tool_completed")},
                {"next_step", h.has_model_step()}};
  });
  CHECK(seen.clean == json{{"statuses", {200, 200}}, {"completed", 2}, {"next_step", true}});
  CHECK(seen.faulty == json{{"statuses", {409, 200}}, {"completed", 1}, {"next_step", false}});
}
