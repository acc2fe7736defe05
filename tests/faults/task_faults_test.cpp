// Fault tests for tasks: result coverage, undeclared tools, timeout, output (TASK-4, 6..8).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "faults/fault_contrast.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference::fault;

namespace {

//! Creates a `locate` task and answers its first model step with `calls` (names as the
//! model gives them, unprefixed: TASK-10).
std::string task_calling(core_harness& h, const std::vector<std::string>& calls) {
  const auto uuid = create_locate_task(h);
  const auto step = h.next_model_step();
  REQUIRE(step.owner_id == uuid);
  std::vector<std::pair<std::string, json>> answer;
  for (const auto& name : calls)
    answer.push_back({name, {{"city", "Paris"}}});
  h.answer_calls(step.step_id, answer);
  return uuid;
}

}  // namespace

TEST_CASE("fault partial_tool_results_accepted breaks TASK-4", "[faults][TASK-4]") {
  // TASK-4: "It must cover every pending call. Missing, unknown or duplicate ids ...: 400
  // and nothing is applied."
  const auto seen = run_clean_and_faulty(fault::partial_tool_results_accepted, [](core_harness& h) {
    const auto uuid = task_calling(h, {"locate", "locate"});
    const auto pending = pending_ids(get_task(h, uuid));
    REQUIRE(pending.size() == 2);
    const auto partial =
        h.request("POST", tool_results_path(uuid),
                  {{"tool_results", json::array({{{"id", pending[0]}, {"content", "Paris"}}})}});
    const json after = get_task(h, uuid);
    return json{{"partial", partial.status},
                {"status", after["status"]},
                {"still_pending", pending_ids(after).size()}};
  });
  CHECK(seen.clean == json{{"partial", 400}, {"status", "interrupted"}, {"still_pending", 2}});
  CHECK(seen.faulty == json{{"partial", 200}, {"status", "processing"}, {"still_pending", 0}});
}

TEST_CASE("fault undeclared_tool_surfaced breaks TASK-8", "[faults][TASK-8]") {
  // TASK-8: "A model call to a tool that is neither a client tool of the task nor the
  // assistant's own is not surfaced as pending; the model gets an error tool result
  // instead."
  const auto seen = run_clean_and_faulty(fault::undeclared_tool_surfaced, [](core_harness& h) {
    const auto uuid = task_calling(h, {"delete_everything"});
    const json task = get_task(h, uuid);
    json pending_names = json::array();
    if (task.contains("pending_tool_calls")) {
      for (const auto& call : task["pending_tool_calls"])
        pending_names.push_back(call["name"]);
    }
    json observed = {{"status", task["status"]}, {"pending", pending_names}};
    if (h.has_model_step()) {
      const auto results = core_harness::tool_messages(h.next_model_step());
      REQUIRE(results.size() == 1);
      observed["model_saw"] =
          json::parse(results[0]["content"].get<std::string>())["error"]["reason"];
    }
    return observed;
  });
  CHECK(seen.clean ==
        json{{"status", "processing"}, {"pending", json::array()}, {"model_saw", "unknown_tool"}});
  CHECK(seen.faulty == json{{"status", "interrupted"}, {"pending", {"delete_everything"}}});
}

TEST_CASE("fault interrupt_never_times_out breaks TASK-7", "[faults][TASK-7]") {
  // TASK-7: "A task interrupted longer than the profile's `interrupt_timeout` becomes
  // `failed` with `error.reason = "tool_results_timeout"`."
  const auto seen = run_clean_and_faulty(fault::interrupt_never_times_out, [](core_harness& h) {
    const auto uuid = task_calling(h, {"locate"});
    REQUIRE(get_task(h, uuid)["status"] == "interrupted");
    h.advance(h.core().config().interrupt_timeout_ms);
    const json task = get_task(h, uuid);
    return json{{"status", task["status"]},
                {"reason", task.contains("error") ? task["error"]["reason"] : json(nullptr)}};
  });
  CHECK(seen.clean == json{{"status", "failed"}, {"reason", "tool_results_timeout"}});
  CHECK(seen.faulty == json{{"status", "interrupted"}, {"reason", nullptr}});
}

TEST_CASE("fault task_output_prefixed breaks TASK-6", "[faults][TASK-6]") {
  // TASK-6: "On completion `output` lists every client tool call as `{"type":
  // "tool_call", "tool_call": {"name", "input", "output"}}`, `name` without any prefix."
  const auto seen = run_clean_and_faulty(fault::task_output_prefixed, [](core_harness& h) {
    const auto uuid = task_calling(h, {"locate"});
    const auto pending = pending_ids(get_task(h, uuid));
    REQUIRE(pending.size() == 1);
    REQUIRE(h.request("POST", tool_results_path(uuid),
                      {{"tool_results", json::array({{{"id", pending[0]}, {"content", "Paris"}}})}})
                .status == 200);
    h.answer_text(h.next_model_step().step_id, "You are in Paris.");
    const json task = get_task(h, uuid);
    REQUIRE(task["status"] == "completed");
    json names = json::array();
    for (const auto& item : task["output"]) {
      if (item["type"] == "tool_call") names.push_back(item["tool_call"]["name"]);
    }
    return names;
  });
  CHECK(seen.clean == json{"locate"});
  CHECK(seen.faulty == json{"client_tools__locate"});
}

TEST_CASE("fault task_requeued_as_pending breaks TASK-5", "[faults][TASK-5]") {
  // TASK-5: "Statuses only move along pending -> processing -> (interrupted ->
  // processing)* -> completed | failed."
  const auto seen = run_clean_and_faulty(fault::task_requeued_as_pending, [](core_harness& h) {
    const auto uuid = task_calling(h, {"locate"});
    const auto pending = pending_ids(get_task(h, uuid));
    REQUIRE(pending.size() == 1);
    const auto accepted =
        h.request("POST", tool_results_path(uuid),
                  {{"tool_results", json::array({{{"id", pending[0]}, {"content", "Paris"}}})}});
    return json{{"code", accepted.status}, {"status", accepted.body["status"]}};
  });
  CHECK(seen.clean == json{{"code", 200}, {"status", "processing"}});
  CHECK(seen.faulty == json{{"code", 200}, {"status", "pending"}});
}
