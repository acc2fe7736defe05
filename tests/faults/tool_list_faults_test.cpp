// Fault tests for tool lists: replacement, rejected PUTs, withdrawal (TOOLS-1..5, C-3).
#include <catch2/catch.hpp>

#include <string>

#include "faults/fault_contrast.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference_server::fault;

namespace {

json tools_named(std::initializer_list<const char*> names) {
  json tools = json::array();
  for (const char* name : names)
    tools.push_back(core_harness::tool(name));
  return tools;
}

//! PUTs a client's tool list; returns the response.
toolwire::protocol::api_response put_tools(core_harness& h, const std::string& sid,
                                           const std::string& cid, const json& tools) {
  return h.request("PUT", h.client_path(sid, cid) + "/tools", {{"tools", tools}});
}

json names_in(const json& tools) {
  json names = json::array();
  for (const auto& tool : tools)
    names.push_back(tool.is_string() ? tool : tool["name"]);
  return names;
}

}  // namespace

TEST_CASE("fault put_merges_tools breaks TOOLS-1", "[faults][TOOLS-1]") {
  // TOOLS-1: "PUT ... replaces the whole list; a tool not named again is withdrawn."
  const auto seen = run_clean_and_faulty(fault::put_merges_tools, [](core_harness& h) {
    const auto sid = h.create_session();
    const std::string cid =
        h.register_client(sid, "web", core_harness::never(), tools_named({"a", "b"}))["client_id"];
    const auto put = put_tools(h, sid, cid, tools_named({"c"}));
    REQUIRE(put.status == 200);
    const auto updated = h.find_event(sid, "client_tools_updated", {{"client_id", cid}});
    REQUIRE(updated);
    start_turn(h, sid);
    return json{{"response", names_in(put.body["tools"])},
                {"event", names_in(updated->data["tools"])},
                {"offered", offered_in_next_step(h)}};
  });
  CHECK(seen.clean == json{{"response", {"c"}}, {"event", {"c"}}, {"offered", {"web__c"}}});
  CHECK(seen.faulty == json{{"response", {"a", "b", "c"}},
                            {"event", {"a", "b", "c"}},
                            {"offered", {"web__a", "web__b", "web__c"}}});
}

TEST_CASE("fault invalid_put_clears_tools breaks C-3", "[faults][C-3]") {
  // C-3: "A rejected request changes nothing: no client, no event, no call state."
  // TOOLS-2: "an invalid list changes nothing."
  const auto seen = run_clean_and_faulty(fault::invalid_put_clears_tools, [](core_harness& h) {
    const auto sid = h.create_session();
    const std::string cid =
        h.register_client(sid, "web", core_harness::never(), tools_named({"a"}))["client_id"];
    const auto put = put_tools(h, sid, cid, tools_named({"b", "b"}));  // REG-3 duplicate
    start_turn(h, sid);
    return json{{"put", put.status},
                {"updated_events", count_events(h, sid, "client_tools_updated")},
                {"offered", offered_in_next_step(h)}};
  });
  CHECK(seen.clean == json{{"put", 400}, {"updated_events", 0}, {"offered", {"web__a"}}});
  CHECK(seen.faulty == json{{"put", 400}, {"updated_events", 0}, {"offered", json::array()}});
}

TEST_CASE("fault withdrawn_tool_offered breaks TOOLS-3", "[faults][TOOLS-3]") {
  // TOOLS-3: "The model is offered exactly the tools that live clients offer at the moment
  // of each model step: withdrawn tools never, added tools from the next step on."
  const auto seen = run_clean_and_faulty(fault::withdrawn_tool_offered, [](core_harness& h) {
    const auto sid = h.create_session();
    const std::string cid =
        h.register_client(sid, "web", core_harness::never(), tools_named({"a", "b"}))["client_id"];
    REQUIRE(put_tools(h, sid, cid, tools_named({"a", "c"})).status == 200);
    start_turn(h, sid);
    return offered_in_next_step(h);
  });
  CHECK(seen.clean == json{"web__a", "web__c"});
  CHECK(seen.faulty == json{"web__a", "web__c", "web__b"});
}

TEST_CASE("fault unavailable_tool_dispatched breaks TOOLS-5", "[faults][TOOLS-5]") {
  // TOOLS-5: "A model call that names a tool that is no longer offered ... is not
  // dispatched: it is settled at once with reason `tool_unavailable` and the model gets an
  // error tool result."
  const auto seen = run_clean_and_faulty(fault::unavailable_tool_dispatched, [](core_harness& h) {
    const auto sid = h.create_session();
    const std::string cid =
        h.register_client(sid, "web", core_harness::never(), tools_named({"a", "b"}))["client_id"];
    start_turn(h, sid);
    const auto step = h.next_model_step();
    REQUIRE(core_harness::offered_names(step) == std::vector<std::string>{"web__a", "web__b"});
    // The PUT lands while the model is thinking: `a` is withdrawn before its call arrives.
    REQUIRE(put_tools(h, sid, cid, tools_named({"b"})).status == 200);
    h.answer_calls(step.step_id, {{"web__a", json::object()}});
    json observed = {{"dispatched", count_events(h, sid, "client_tool_dispatched")},
                     {"failures", failure_reasons(h, sid)},
                     {"next_step", h.has_model_step()}};
    if (const auto failed = h.find_event(sid, "client_tool_failed")) {
      observed["failed_tool"] = failed->data["tool"];
    }
    return observed;
  });
  CHECK(seen.clean == json{{"dispatched", 0},
                           {"failures", {"tool_unavailable"}},
                           {"next_step", true},
                           {"failed_tool", "a"}});
  CHECK(seen.faulty == json{{"dispatched", 1}, {"failures", json::array()}, {"next_step", false}});
}

TEST_CASE("fault newly_live_tool_refused breaks TOOLS-5", "[faults][TOOLS-5]") {
  // TOOLS-5: "What decides is whether the named tool is live when the model's answer
  // arrives: a tool that became live during the step (registered or PUT after the step's
  // request) is dispatched, although that step did not offer it."
  const auto seen = run_clean_and_faulty(fault::newly_live_tool_refused, [](core_harness& h) {
    const auto sid = h.create_session();
    const std::string cid =
        h.register_client(sid, "web", core_harness::never(), tools_named({"a"}))["client_id"];
    start_turn(h, sid);
    const auto step = h.next_model_step();
    REQUIRE(core_harness::offered_names(step) == std::vector<std::string>{"web__a"});
    // The PUT lands while the model is thinking: `b` becomes live after the step's request.
    REQUIRE(put_tools(h, sid, cid, tools_named({"a", "b"})).status == 200);
    h.answer_calls(step.step_id, {{"web__b", json::object()}});
    json observed = {{"dispatched", count_events(h, sid, "client_tool_dispatched")},
                     {"failures", failure_reasons(h, sid)}};
    if (const auto dispatched = h.find_event(sid, "client_tool_dispatched")) {
      observed["tool"] = dispatched->data["tool"];
    }
    return observed;
  });
  CHECK(seen.clean == json{{"dispatched", 1}, {"failures", json::array()}, {"tool", "b"}});
  CHECK(seen.faulty == json{{"dispatched", 0}, {"failures", {"tool_unavailable"}}});
}

TEST_CASE("fault put_tools_unvalidated breaks TOOLS-2", "[faults][TOOLS-2]") {
  // TOOLS-2: "Same validation as REG-1..3; an invalid list changes nothing."
  const auto seen = run_clean_and_faulty(fault::put_tools_unvalidated, [](core_harness& h) {
    const auto sid = h.create_session();
    const std::string cid =
        h.register_client(sid, "web", core_harness::never(), tools_named({"a"}))["client_id"];
    const auto put = put_tools(h, sid, cid, tools_named({"has spaces", "b", "b"}));
    start_turn(h, sid);
    return json{{"put", put.status}, {"offered", offered_in_next_step(h)}};
  });
  CHECK(seen.clean == json{{"put", 400}, {"offered", {"web__a"}}});
  CHECK(seen.faulty == json{{"put", 200}, {"offered", {"web__has spaces", "web__b", "web__b"}}});
}

TEST_CASE("fault withdrawn_tool_calls_failed breaks TOOLS-4", "[faults][TOOLS-4]") {
  // TOOLS-4: "A call already dispatched when its tool is withdrawn stays open and can still
  // be acked and answered."
  const auto seen = run_clean_and_faulty(fault::withdrawn_tool_calls_failed, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    REQUIRE(put_tools(h, turn.sid, turn.cid, json::array()).status == 200);
    const auto ack = h.request("POST", h.call_path(turn.sid, turn.cid, turn.calls[0]) + "/ack");
    const int result = post_content(h, turn, turn.calls[0], "still here");
    return json{
        {"failures", failure_reasons(h, turn.sid)}, {"ack", ack.status}, {"result", result}};
  });
  CHECK(seen.clean == json{{"failures", json::array()}, {"ack", 200}, {"result", 200}});
  CHECK(seen.faulty == json{{"failures", {"tool_unavailable"}}, {"ack", 409}, {"result", 409}});
}

TEST_CASE("fault unresolved_call_never_settled breaks TOOLS-5", "[faults][TOOLS-5]") {
  // TOOLS-5: "where no live client has that name, only the model's error result records
  // it." The model gets that result and the turn goes on.
  const auto seen = run_clean_and_faulty(fault::unresolved_call_never_settled, [](core_harness& h) {
    const auto sid = h.create_session();
    h.register_client(sid, "web", core_harness::never(), tools_named({"a"}));
    start_turn(h, sid);
    h.answer_calls(h.next_model_step().step_id, {{"ghost__a", json::object()}});
    json observed = {{"next_step", h.has_model_step()},
                     {"failed_events", count_events(h, sid, "client_tool_failed")}};
    if (h.has_model_step()) {
      const auto results = core_harness::tool_messages(h.next_model_step());
      REQUIRE(results.size() == 1);
      observed["model_saw"] =
          json::parse(results[0]["content"].get<std::string>())["error"]["reason"];
    }
    return observed;
  });
  CHECK(seen.clean ==
        json{{"next_step", true}, {"failed_events", 0}, {"model_saw", "tool_unavailable"}});
  CHECK(seen.faulty == json{{"next_step", false}, {"failed_events", 0}});
}

TEST_CASE("fault put_applied_in_two_phases breaks TOOLS-6", "[faults][TOOLS-6]") {
  // TOOLS-6: "Each model step sees one consistent tool list: the list before a PUT or the
  // list after it, never a mix of the two."
  const auto seen = run_clean_and_faulty(fault::put_applied_in_two_phases, [](core_harness& h) {
    const auto sid = h.create_session();
    const std::string cid =
        h.register_client(sid, "web", core_harness::never(), tools_named({"a", "b"}))["client_id"];
    start_turn(h, sid);
    h.answer_calls(h.next_model_step().step_id, {{"web__a", json::object()}});
    REQUIRE(put_tools(h, sid, cid, tools_named({"b", "c"})).status == 200);
    // Clean: the call on `a` stays open (TOOLS-4), so no step runs yet; answering it runs
    // one. Faulty: the PUT's first phase failed it, and the step ran mid-PUT.
    if (!h.has_model_step()) {
      REQUIRE(post_content(h, {sid, cid, h.dispatched_calls(sid)}, h.dispatched_calls(sid)[0],
                           "done") == 200);
    }
    return offered_in_next_step(h);
  });
  CHECK(seen.clean == json{"web__b", "web__c"});
  CHECK(seen.faulty == json{"web__b"});
}
