// Fault tests for calls: dispatch, deadlines, settlement and results (CALL-1..9).
#include <catch2/catch.hpp>

#include <string>

#include "faults/fault_contrast.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference::fault;

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
