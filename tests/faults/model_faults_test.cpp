// Fault tests for the model interface: tool messages, answers, user text and failures
// (MODEL-1..4).
#include <catch2/catch.hpp>

#include <string>

#include "faults/fault_contrast.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference_server::fault;

TEST_CASE("fault tool_message_uses_our_call_id breaks MODEL-1", "[faults][MODEL-1]") {
  // MODEL-1: "tool results go back as `{"role": "tool", "tool_call_id", "content"}`
  // messages" — answering the model's own tool call ids (MODEL-2).
  const auto seen = run_clean_and_faulty(fault::tool_message_uses_our_call_id, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    REQUIRE(post_content(h, turn, turn.calls[0], "done") == 200);
    const auto messages = core_harness::tool_messages(h.next_model_step());
    REQUIRE(messages.size() == 1);
    return messages[0]["tool_call_id"] == "mc_1";
  });
  CHECK(seen.clean == json(true));
  CHECK(seen.faulty == json(false));
}

TEST_CASE("fault only_first_tool_call_taken breaks MODEL-2", "[faults][MODEL-2]") {
  // MODEL-2: "`choices[0].message` with `content` and/or `tool_calls` `[...]`" — every
  // tool call of the answer counts.
  const auto seen = run_clean_and_faulty(fault::only_first_tool_call_taken, [](core_harness& h) {
    const auto sid = h.create_session();
    h.register_client(sid, "web", core_harness::never(), json::array({core_harness::tool("read")}));
    start_turn(h, sid);
    h.answer_calls(
        h.next_model_step().step_id,
        {{"web__read", {{"n", 1}}}, {"web__read", {{"n", 2}}}, {"web__read", {{"n", 3}}}});
    return h.dispatched_calls(sid).size();
  });
  CHECK(seen.clean == json(3));
  CHECK(seen.faulty == json(1));
}

TEST_CASE("fault user_text_trimmed breaks MODEL-3", "[faults][MODEL-3]") {
  // MODEL-3: "The text of the user's message ... reaches the model unchanged as a `user`
  // message".
  const auto seen = run_clean_and_faulty(fault::user_text_trimmed, [](core_harness& h) {
    const auto sid = h.create_session();
    start_turn(h, sid, "  two spaces each side  ");
    return h.next_model_step().conversation["messages"][0]["content"];
  });
  CHECK(seen.clean == json("  two spaces each side  "));
  CHECK(seen.faulty == json("two spaces each side"));
}

TEST_CASE("fault model_failure_hangs_turn breaks MODEL-4", "[faults][MODEL-4]") {
  // MODEL-4: "If the model endpoint fails ..., the turn ends as `turn_failed` (task:
  // `failed`) with a reason; nothing hangs."
  const auto seen = run_clean_and_faulty(fault::model_failure_hangs_turn, [](core_harness& h) {
    const auto uuid = create_locate_task(h);
    h.fail_model(h.next_model_step().step_id, "HTTP 502 from the model endpoint");
    const auto sid = h.create_session();
    start_turn(h, sid);
    h.fail_model(h.next_model_step().step_id, "connection refused");
    const auto next = h.request("POST", messages_path(sid), {{"content", "again"}});
    return json{{"task", get_task(h, uuid)["status"]},
                {"turn_failed", count_events(h, sid, "turn_failed")},
                {"next_message", next.status}};
  });
  CHECK(seen.clean == json{{"task", "failed"}, {"turn_failed", 1}, {"next_message", 202}});
  CHECK(seen.faulty == json{{"task", "processing"}, {"turn_failed", 0}, {"next_message", 409}});
}
