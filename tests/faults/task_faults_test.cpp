// Fault tests for tasks: creation, status, pending calls, tool results, timeout, output,
// call ids and the tools offered (TASK-1..10).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "faults/fault_contrast.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference_server::fault;

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

namespace {

//! POSTs a task body; returns the response.
toolwire::protocol::api_response create_task_with(core_harness& h, const json& changes) {
  json body = {{"assistant_id", 1},
               {"input", json::array({{{"type", "text"}, {"text", "where am I?"}}})},
               {"client_tools", json::array({task_tool("locate")})}};
  body.update(changes);
  return h.request("POST", "/api/tasks", body);
}

//! Answers every pending call of the task with `content`; returns the status.
int answer_all(core_harness& h, const std::string& uuid, const json& content) {
  json results = json::array();
  for (const auto& id : pending_ids(get_task(h, uuid)))
    results.push_back({{"id", id}, {"content", content}});
  return h.request("POST", tool_results_path(uuid), {{"tool_results", results}}).status;
}

}  // namespace

TEST_CASE("fault unknown_assistant_accepted breaks TASK-1", "[faults][TASK-1]") {
  // TASK-1: "[P] ... unknown `assistant_id` 404."
  const auto seen = run_clean_and_faulty(fault::unknown_assistant_accepted, [](core_harness& h) {
    return create_task_with(h, {{"assistant_id", 987654321}}).status;
  });
  CHECK(seen.clean == json(404));
  CHECK(seen.faulty == json(201));
}

TEST_CASE("fault assistant_id_coerced breaks TASK-1", "[faults][TASK-1]") {
  // TASK-1: "[P] ... `assistant_id` is an integer".
  const auto seen = run_clean_and_faulty(fault::assistant_id_coerced, [](core_harness& h) {
    return json{create_task_with(h, {{"assistant_id", "1"}}).status,
                create_task_with(h, {{"assistant_id", 1.5}}).status,
                create_task_with(h, {{"assistant_id", "one"}}).status};
  });
  CHECK(seen.clean == json{400, 400, 400});
  CHECK(seen.faulty == json{201, 201, 400});
}

TEST_CASE("fault task_tool_description_optional breaks TASK-1", "[faults][TASK-1]") {
  // TASK-1: "`name` and `description` are required, `input_schema` ... optional."
  const auto seen =
      run_clean_and_faulty(fault::task_tool_description_optional, [](core_harness& h) {
        return json{
            create_task_with(h, {{"client_tools", json::array({{{"name", "locate"}}})}}).status,
            create_task_with(h, {{"client_tools", json::array({{{"description", "x"}}})}}).status};
      });
  CHECK(seen.clean == json{400, 400});
  CHECK(seen.faulty == json{201, 400});
}

TEST_CASE("fault task_status_renamed breaks TASK-2", "[faults][TASK-2]") {
  // TASK-2: "status one of `pending`, `processing`, `interrupted`, `completed`, `failed`."
  const auto seen = run_clean_and_faulty(fault::task_status_renamed, [](core_harness& h) {
    const auto uuid = task_calling(h, {"locate"});
    const json task = get_task(h, uuid);
    return json{{"status", task["status"]}, {"pending", pending_ids(task).size()}};
  });
  CHECK(seen.clean == json{{"status", "interrupted"}, {"pending", 1}});
  CHECK(seen.faulty == json{{"status", "requires_action"}, {"pending", 1}});
}

TEST_CASE("fault pending_shows_model_call_ids breaks TASK-3", "[faults][TASK-3]") {
  // TASK-3: "the task becomes `interrupted` with `pending_tool_calls: [{"id", "name",
  // "arguments"}]`" — the ids TASK-4's submission names.
  const auto seen = run_clean_and_faulty(fault::pending_shows_model_call_ids, [](core_harness& h) {
    const auto uuid = task_calling(h, {"locate"});
    return json{{"submitted", answer_all(h, uuid, "Paris")},
                {"status", get_task(h, uuid)["status"]}};
  });
  CHECK(seen.clean == json{{"submitted", 200}, {"status", "processing"}});
  CHECK(seen.faulty == json{{"submitted", 400}, {"status", "interrupted"}});
}

TEST_CASE("fault tool_results_items_applied_one_by_one breaks TASK-4", "[faults][TASK-4]") {
  // TASK-4: "Missing, unknown or duplicate ids, or an item with both or neither of
  // `content`/`error`: 400 and nothing is applied."
  const auto seen =
      run_clean_and_faulty(fault::tool_results_items_applied_one_by_one, [](core_harness& h) {
        const auto uuid = task_calling(h, {"locate", "locate"});
        const auto pending = pending_ids(get_task(h, uuid));
        REQUIRE(pending.size() == 2);
        const auto bad =
            h.request("POST", tool_results_path(uuid),
                      {{"tool_results",
                        json::array({{{"id", pending[0]}, {"content", "Paris"}},
                                     {{"id", pending[1]}, {"content", "a"}, {"error", "b"}}})}});
        return json{{"bad", bad.status}, {"still_pending", pending_ids(get_task(h, uuid)).size()}};
      });
  CHECK(seen.clean == json{{"bad", 400}, {"still_pending", 2}});
  CHECK(seen.faulty == json{{"bad", 400}, {"still_pending", 1}});
}

TEST_CASE("fault task_409_checked_after_items breaks TASK-4", "[faults][TASK-4]") {
  // TASK-4: "Not interrupted: 409 (checked before the items)."
  const auto seen = run_clean_and_faulty(fault::task_409_checked_after_items, [](core_harness& h) {
    const auto uuid = create_locate_task(h);  // processing: its model step is pending
    return h
        .request("POST", tool_results_path(uuid),
                 {{"tool_results", json::array({{{"content", "no id"}}})}})
        .status;
  });
  CHECK(seen.clean == json(409));
  CHECK(seen.faulty == json(400));
}

TEST_CASE("fault tool_results_status_unchecked breaks TASK-4", "[faults][TASK-4]") {
  // TASK-4: "Not interrupted: 409 (checked before the items)." A round posted again once
  // accepted finds the task processing, whatever its ids.
  const auto seen = run_clean_and_faulty(fault::tool_results_status_unchecked, [](core_harness& h) {
    const auto uuid = create_locate_task(h);  // processing: its model step is pending
    return h
        .request("POST", tool_results_path(uuid),
                 {{"tool_results", json::array({{{"id", "call-1"}, {"content", "Paris"}}})}})
        .status;
  });
  CHECK(seen.clean == json(409));
  CHECK(seen.faulty == json(400));
}

TEST_CASE("fault tool_results_unknown_task_409 breaks TASK-4", "[faults][TASK-4]") {
  // TASK-4 routes a submission to an existing task; an unknown uuid is not_found (C-2).
  const auto seen = run_clean_and_faulty(fault::tool_results_unknown_task_409, [](core_harness& h) {
    return h.request("POST", tool_results_path("no-such-task"), {{"tool_results", json::array()}})
        .status;
  });
  CHECK(seen.clean == json(404));
  CHECK(seen.faulty == json(409));
}

TEST_CASE("fault interrupt_deadline_from_creation breaks TASK-7", "[faults][TASK-7]") {
  // TASK-7: "A task interrupted longer than the profile's `interrupt_timeout` becomes
  // `failed`" — interrupted, not alive: the time counts from the interruption.
  const auto seen =
      run_clean_and_faulty(fault::interrupt_deadline_from_creation, [](core_harness& h) {
        const auto uuid = create_locate_task(h);
        const auto step = h.next_model_step();
        h.advance(h.core().config().interrupt_timeout_ms / 2);
        h.answer_calls(step.step_id, {{"locate", json::object()}});
        h.advance(h.core().config().interrupt_timeout_ms / 2 + 1);
        return get_task(h, uuid)["status"];
      });
  CHECK(seen.clean == json("interrupted"));
  CHECK(seen.faulty == json("failed"));
}

TEST_CASE("fault task_call_ids_restart_each_round breaks TASK-9", "[faults][TASK-9]") {
  // TASK-9: "Call ids are never reused within a task".
  const auto seen =
      run_clean_and_faulty(fault::task_call_ids_restart_each_round, [](core_harness& h) {
        const auto uuid = task_calling(h, {"locate"});
        const auto first = pending_ids(get_task(h, uuid));
        REQUIRE(answer_all(h, uuid, "Paris") == 200);
        h.answer_calls(h.next_model_step().step_id, {{"locate", json::object()}});
        const auto second = pending_ids(get_task(h, uuid));
        // Round one's submission, sent again now.
        const auto again =
            h.request("POST", tool_results_path(uuid),
                      {{"tool_results", json::array({{{"id", first[0]}, {"content", "Paris"}}})}});
        return json{{"ids_reused", first == second}, {"resubmitted", again.status}};
      });
  CHECK(seen.clean == json{{"ids_reused", false}, {"resubmitted", 400}});
  CHECK(seen.faulty == json{{"ids_reused", true}, {"resubmitted", 200}});
}

TEST_CASE("fault task_tools_offered_prefixed breaks TASK-10", "[faults][TASK-10]") {
  // TASK-10: "The model is offered a task's client tools under their declared names,
  // unprefixed".
  const auto seen = run_clean_and_faulty(fault::task_tools_offered_prefixed, [](core_harness& h) {
    create_locate_task(h);
    return offered_in_next_step(h);
  });
  CHECK(seen.clean == json{"locate"});
  CHECK(seen.faulty == json{"client_tools__locate"});
}

TEST_CASE("fault task_duplicate_tools_collapsed breaks TASK-1", "[faults][TASK-1]") {
  // TASK-1: "[P] Auth: API key; tool names follow REG-1; duplicate names 400".
  const auto seen =
      run_clean_and_faulty(fault::task_duplicate_tools_collapsed, [](core_harness& h) {
        const json twice = json::array({{{"name", "locate"}, {"description", "first"}},
                                        {{"name", "locate"}, {"description", "second"}}});
        const auto created = create_task_with(h, {{"client_tools", twice}});
        json observed = {{"status", created.status}};
        if (h.has_model_step()) {
          const auto step = h.next_model_step();
          json offered = json::array();
          for (const auto& tool : step.tools.to_json())
            offered.push_back(json{tool["function"]["name"], tool["function"]["description"]});
          observed["offered"] = offered;
        }
        return observed;
      });
  CHECK(seen.clean == json{{"status", 400}});
  CHECK(seen.faulty == json{{"status", 201}, {"offered", json::array({{"locate", "first"}})}});
}

TEST_CASE("fault interrupt_deadline_early breaks TASK-7", "[faults][TASK-7]") {
  // TASK-7: "A task interrupted longer than the profile's `interrupt_timeout` becomes
  // `failed` with `error.reason = "tool_results_timeout"`."
  // The profile's timeout, as configured: the faulty core's own config holds 9/10 of it.
  const time_ms timeout = default_config().interrupt_timeout_ms;
  const auto seen = run_clean_and_faulty(fault::interrupt_deadline_early, [&](core_harness& h) {
    const auto uuid = task_calling(h, {"locate"});
    REQUIRE(get_task(h, uuid)["status"] == "interrupted");
    auto state = [&] {
      const json task = get_task(h, uuid);
      return json{task["status"], task.contains("error") ? task["error"]["reason"] : json()};
    };
    h.advance(timeout * 9 / 10);
    const json at_nine_tenths = state();
    h.advance(timeout - timeout * 9 / 10);
    return json{{"at_nine_tenths", at_nine_tenths}, {"at_timeout", state()}};
  });
  CHECK(seen.clean == json{{"at_nine_tenths", {"interrupted", nullptr}},
                           {"at_timeout", {"failed", "tool_results_timeout"}}});
  CHECK(seen.faulty == json{{"at_nine_tenths", {"failed", "tool_results_timeout"}},
                            {"at_timeout", {"failed", "tool_results_timeout"}}});
}
