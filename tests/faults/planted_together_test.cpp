// Faults planted together compose (reference_server/faults/policy_layer.hpp): each is a
// layer over the policy beneath it, so a core with two faults shows both, also where both
// answer the same decision. Each case runs one scenario on four cores (clean, each fault
// alone, both) and expects four different observations: a layer that dropped the answer
// beneath it would make "both" equal to one fault alone.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "faults/fault_contrast.hpp"
#include "toolwire/protocol/validation.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference_server::fault;
using toolwire::reference_server::fault_set;

namespace {

//! The scenario's observation on clean, first-only, second-only and both-faults cores.
template <typename Scenario>
json on_four_cores(fault first, fault second, Scenario scenario) {
  json seen = json::object();
  const std::pair<const char*, fault_set> cores[]{
      {"clean", {}}, {"first", {first}}, {"second", {second}}, {"both", {first, second}}};
  for (const auto& [name, faults] : cores) {
    INFO("core: " << name);
    core_harness h{default_config(faults)};
    seen[name] = scenario(h);
  }
  return seen;
}

}  // namespace

TEST_CASE("two faults that relax one registration body both let it through",
          "[faults][REG-1][LIFE-1]") {
  // A registration with no name (REG-1) and a TTL over the maximum (LIFE-1): each fault lets
  // one of the two through, so only both together accept it, keeping the TTL as sent.
  const auto seen = on_four_cores(
      fault::client_name_defaulted, fault::ttl_upper_bound_unchecked, [](core_harness& h) {
        const auto sid = h.create_session();
        const auto registered =
            h.request("POST", h.clients_path(sid),
                      {{"lifetime", core_harness::ttl(toolwire::protocol::max_ttl_seconds + 1)},
                       {"tools", json::array()}});
        if (registered.status != 201) return json{{"status", registered.status}};
        return json{{"status", 201},
                    {"name", registered.body["name"]},
                    {"ttl_ms", registered.body["expires_at_ms"].get<std::int64_t>() - h.now()}};
      });
  CHECK(seen["clean"] == json{{"status", 400}});
  CHECK(seen["first"] == json{{"status", 400}});
  CHECK(seen["second"] == json{{"status", 400}});
  CHECK(seen["both"] == json{{"status", 201},
                             {"name", "client"},
                             {"ttl_ms", (toolwire::protocol::max_ttl_seconds + 1) * 1000}});
}

TEST_CASE("two faults that reshape one event both show in it", "[faults][CALL-4]") {
  // An error result's client_tool_completed: one fault drops client_id, the other reports
  // is_error false (both CALL-4).
  const auto seen =
      on_four_cores(fault::completed_event_without_client_id,
                    fault::error_result_reported_as_success, [](core_harness& h) {
                      const auto turn = dispatch_reads(h, 1);
                      const auto posted = h.request(
                          "POST", h.call_path(turn.sid, turn.cid, turn.calls[0]) + "/result",
                          {{"error", "it broke"}});
                      REQUIRE(posted.status == 200);
                      const auto completed = h.find_event(turn.sid, "client_tool_completed");
                      REQUIRE(completed);
                      return json{{"client_id", completed->data.contains("client_id")},
                                  {"is_error", completed->data.value("is_error", json())}};
                    });
  CHECK(seen["clean"] == json{{"client_id", true}, {"is_error", true}});
  CHECK(seen["first"] == json{{"client_id", false}, {"is_error", true}});
  CHECK(seen["second"] == json{{"client_id", true}, {"is_error", false}});
  CHECK(seen["both"] == json{{"client_id", false}, {"is_error", false}});
}

TEST_CASE("two faults of one decision each answer their own part of it", "[faults][TOOLS-5]") {
  // One model answer calls a tool its live client withdrew while the model thought
  // (web__a) and a tool of no client at all (ghost__x). TOOLS-5 settles both at once;
  // unavailable_tool_dispatched dispatches the first, unresolved_call_never_settled leaves
  // the second open. The dispatched call, if any, is answered; the turn then moves on
  // only if nothing was left open.
  const auto seen = on_four_cores(
      fault::unavailable_tool_dispatched, fault::unresolved_call_never_settled,
      [](core_harness& h) {
        const auto sid = h.create_session();
        json tools = json::array({core_harness::tool("a"), core_harness::tool("b")});
        const std::string cid =
            h.register_client(sid, "web", core_harness::never(), tools)["client_id"];
        start_turn(h, sid);
        const auto step = h.next_model_step();
        REQUIRE(h.request("PUT", h.client_path(sid, cid) + "/tools",
                          {{"tools", json::array({core_harness::tool("b")})}})
                    .status == 200);
        h.answer_calls(step.step_id, {{"web__a", json::object()}, {"ghost__x", json::object()}});
        const auto dispatched = h.dispatched_calls(sid);
        for (const auto& call : dispatched) {
          REQUIRE(h.request("POST", h.call_path(sid, cid, call) + "/result", {{"content", "ok"}})
                      .status == 200);
        }
        return json{{"dispatched", dispatched.size()},
                    {"failures", failure_reasons(h, sid)},
                    {"next_step", h.has_model_step()}};
      });
  CHECK(seen["clean"] ==
        json{{"dispatched", 0}, {"failures", {"tool_unavailable"}}, {"next_step", true}});
  CHECK(seen["first"] == json{{"dispatched", 1}, {"failures", json::array()}, {"next_step", true}});
  CHECK(seen["second"] ==
        json{{"dispatched", 0}, {"failures", {"tool_unavailable"}}, {"next_step", false}});
  CHECK(seen["both"] == json{{"dispatched", 1}, {"failures", json::array()}, {"next_step", false}});
}
