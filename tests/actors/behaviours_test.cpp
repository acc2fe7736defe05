// Simulated participants: each client behaviour preset, the scripted model and the task caller.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "actors/actor_test_support.hpp"
#include "toolwire/reference_server/faults.hpp"
#include "toolwire/scenarios/loader.hpp"

using namespace toolwire::actor_test;
using toolwire::scenarios::build::message_at;

namespace {

// Each behaviour must hold whatever the interleaving: every test runs under these seeds.
constexpr std::uint64_t interleavings = 6;

//! Times of records, in trace order.
std::vector<time_ms> times_of(const std::vector<trace_record>& found) {
  std::vector<time_ms> at;
  for (const auto& r : found)
    at.push_back(r.at);
  return at;
}

//! The one event of `type` about `call_id`.
trace_record call_event(const trace& run, const std::string& type, const std::string& call_id) {
  std::vector<trace_record> found;
  for (const auto& r : events(run, type)) {
    if (r.data["data"].value("call_id", "") == call_id) found.push_back(r);
  }
  INFO(type << " events for " << call_id);
  REQUIRE(found.size() == 1);
  return found.front();
}

//! The tool result the model got for its call `model_call_id`, as the model sees it.
std::string model_got(const trace_record& step, const std::string& model_call_id) {
  for (const auto& result : step.data["tool_results"]) {
    if (result.value("tool_call_id", "") == model_call_id) return result.value("content", "");
  }
  FAIL("model step " << step.data.dump() << " has no tool result for " << model_call_id);
  return "";
}

//! The ids of the tool calls the model made in the reply to step `step_id`.
std::vector<std::string> model_call_ids(const trace& run, std::uint64_t step_id) {
  for (const auto& r : records(run, "model", "model_reply")) {
    if (r.data.value("step_id", std::uint64_t{0}) != step_id) continue;
    std::vector<std::string> ids;
    for (const auto& call : r.data["reply"]["tool_calls"])
      ids.push_back(call.value("id", ""));
    return ids;
  }
  FAIL("no model reply to step " << step_id);
  return {};
}

//! The `error.reason` of an error tool result as the model receives it (CALL-8).
std::string error_reason(const std::string& content) {
  const json parsed = json::parse(content, nullptr, false);
  INFO("tool result content: " << content);
  REQUIRE(parsed.is_object());
  REQUIRE(parsed.contains("error"));
  return parsed["error"].value("reason", "");
}

//! The call ids named by `kind` requests ("ack" or "result") of `actor`, with the client
//! id their path addresses: "/v1/sessions/{sid}/clients/{cid}/calls/{call}/{kind}".
std::multimap<std::string, std::string> addressed_calls(const trace& run, const std::string& actor,
                                                        const std::string& kind) {
  std::multimap<std::string, std::string> calls;  // call id -> client id in the path
  for (const auto& r : exchanges(run, actor, "request", "POST", "/" + kind)) {
    const std::string path = r.data.value("path", "");
    const auto clients = path.find("/clients/");
    const auto calls_at = path.find("/calls/");
    REQUIRE(clients != std::string::npos);
    REQUIRE(calls_at != std::string::npos);
    const std::string cid = path.substr(clients + 9, calls_at - clients - 9);
    const auto call_end = path.find('/', calls_at + 7);
    calls.emplace(path.substr(calls_at + 7, call_end - calls_at - 7), cid);
  }
  return calls;
}

void require_no_violation(const trace& run) {
  const auto violations = toolwire::actors::check_invariants(run);
  INFO(describe_all(violations));
  CHECK(violations.empty());
}

}  // namespace

TEST_CASE("Browser tab: pings keep it alive; once vanished it expires and its call fails",
          "[actors][clients][LIFE-2][LIFE-5]") {
  const std::uint64_t seed = GENERATE(range<std::uint64_t>(0, interleavings));
  CAPTURE(seed);
  // A tab with a 10 s TTL pings every 4 s, takes a call it never finishes, and is closed
  // at 13 s without a word. Its last ping was at 12 s, so it ends at 22 s.
  scenario s;
  s.name = "browser_tab_vanishes";
  auto tab =
      toolwire::scenarios::browser_tab(client("tab", "web", tools({"read_form"})), 10, 4'000);
  tab.result_delay = 600'000;
  tab.vanish_at = 13'000;
  s.clients = {tab};
  s.steps = {message_at(1'000, "read the form")};
  s.model_script = script(json::array(
      {call_step({{"web__read_form", {{"form", "checkout"}}}}), text_step("the tab went away")}));
  s.duration = 60'000;
  const auto result = run(s, seed);
  const trace& t = result.trace;
  const std::string cid = client_id_of(t, "tab");

  SECTION("LIFE-2 registration counts as the first ping; pings on the interval extend it") {
    const auto registered = exchanges(t, "tab", "response", "POST", "/clients");
    REQUIRE(registered.size() == 1);
    CHECK(registered[0].data["body"]["expires_at_ms"] == epoch_ms + 10'000);
    const auto pings = exchanges(t, "tab", "response", "POST", "/ping");
    CHECK(times_of(pings) == std::vector<time_ms>{4'000, 8'000, 12'000});
    for (const auto& ping : pings) {
      CAPTURE(ping.at);
      CHECK(ping.data["status"] == 200);
      CHECK(ping.data["body"]["expires_at_ms"] == epoch_ms + ping.at + 10'000);
    }
  }
  SECTION("LIFE-2 it outlives its TTL while pinging and expires at last ping + ttl") {
    const auto gone = events(t, "client_unregistered");
    REQUIRE(gone.size() == 1);
    CHECK(gone[0].at == 22'000);
    CHECK(gone[0].data["data"]["client_id"] == cid);
    CHECK(gone[0].data["data"]["reason"] == "expired");
  }
  SECTION("after vanishing it neither pings nor receives events") {
    for (const auto& r : t.records()) {
      if (r.actor != "tab" || r.at < 13'000) continue;
      INFO("tab record after vanishing: " << trace::line_of(r));
      CHECK(r.kind == "act");
      CHECK(r.data["what"] == "vanish");
    }
    std::vector<time_ms> vanished;
    for (const auto& r : records(t, "tab", "act")) {
      if (r.data["what"] == "vanish") vanished.push_back(r.at);
    }
    CHECK(vanished == std::vector<time_ms>{13'000});
  }
  SECTION("LIFE-5 its open call fails client_expired and the model gets the error") {
    const auto dispatched = events(t, "client_tool_dispatched");
    REQUIRE(dispatched.size() == 1);
    CHECK(dispatched[0].at == 1'000);
    const std::string call_id = dispatched[0].data["data"]["call_id"];
    CHECK(times_of(exchanges(t, "tab", "response", "POST", "/calls/" + call_id + "/ack")) ==
          std::vector<time_ms>{1'000});
    CHECK(exchanges(t, "tab", "request", "POST", "/result").empty());
    const auto failed = call_event(t, "client_tool_failed", call_id);
    CHECK(failed.at == 22'000);
    CHECK(failed.data["data"]["reason"] == "client_expired");

    const auto steps = model_steps(t);
    REQUIRE(steps.size() == 2);
    CHECK(steps[1].at == 22'000);
    CHECK(offered(steps[1]).empty());  // LIFE-4: its tools are never offered again
    const auto ids = model_call_ids(t, steps[0].data["step_id"]);
    REQUIRE(ids.size() == 1);
    CHECK(error_reason(model_got(steps[1], ids[0])) == "client_expired");
    const auto completed = events(t, "turn_completed");
    REQUIRE(completed.size() == 1);
    CHECK(completed[0].at == 22'000);
    CHECK(completed[0].data["data"]["output"] == "the tab went away");
  }
  require_no_violation(t);
}

TEST_CASE("Backend worker: lives without pings until it leaves by DELETE",
          "[actors][clients][LIFE-1][LIFE-5]") {
  const std::uint64_t seed = GENERATE(range<std::uint64_t>(0, interleavings));
  CAPTURE(seed);
  scenario s;
  s.name = "backend_worker_leaves";
  auto leaver = toolwire::scenarios::backend_worker(client("leaver", "db", tools({"query"})));
  leaver.result_delay = 50'000;  // still working when it leaves
  leaver.leave_at = 5'000;
  auto stayer = toolwire::scenarios::backend_worker(client("stayer", "cache", tools({"get"})));
  s.clients = {leaver, stayer};
  s.steps = {message_at(1'000, "query")};
  s.model_script = script(
      json::array({call_step({{"db__query", {{"sql", "select 1"}}}}), text_step("recovered")}));
  s.duration = 100'000;  // far beyond any TTL: a `never` client does not lapse
  const auto result = run(s, seed);
  const trace& t = result.trace;
  const std::string leaver_id = client_id_of(t, "leaver");
  const std::string stayer_id = client_id_of(t, "stayer");

  SECTION("LIFE-1 a never client registers without expiry and never pings") {
    for (const std::string actor : {"leaver", "stayer"}) {
      CAPTURE(actor);
      const auto registered = exchanges(t, actor, "response", "POST", "/clients");
      REQUIRE(registered.size() == 1);
      CHECK(registered[0].data["body"]["lifetime"] == json{{"type", "never"}});
      CHECK(registered[0].data["body"]["expires_at_ms"].is_null());
      CHECK(exchanges(t, actor, "request", "POST", "/ping").empty());
    }
  }
  SECTION("LIFE-1 it leaves by DELETE: 204 and client_unregistered reason left") {
    const auto deleted = exchanges(t, "leaver", "response", "DELETE", "/clients/" + leaver_id);
    REQUIRE(deleted.size() == 1);
    CHECK(deleted[0].at == 5'000);
    CHECK(deleted[0].data["status"] == 204);
    const auto gone = events(t, "client_unregistered");
    REQUIRE(gone.size() == 1);  // the stayer is never unregistered, settle-out included
    CHECK(gone[0].at == 5'000);
    CHECK(gone[0].data["data"]["client_id"] == leaver_id);
    CHECK(gone[0].data["data"]["reason"] == "left");
    const auto ended = records(t, "director", "end");
    REQUIRE(ended.size() == 1);
    CHECK(ended[0].at == 100'000);  // the stayer was live all along
  }
  SECTION("LIFE-5 its open call fails client_left; the model goes on without it") {
    const auto dispatched = events(t, "client_tool_dispatched");
    REQUIRE(dispatched.size() == 1);
    CHECK(dispatched[0].data["data"]["client_id"] == leaver_id);
    const auto failed = call_event(t, "client_tool_failed", dispatched[0].data["data"]["call_id"]);
    CHECK(failed.at == 5'000);
    CHECK(failed.data["data"]["reason"] == "client_left");
    const auto steps = model_steps(t);
    REQUIRE(steps.size() == 2);
    CHECK(steps[1].at == 5'000);
    CHECK(offered(steps[1]) == std::vector<std::string>{"cache__get"});
    const auto ids = model_call_ids(t, steps[0].data["step_id"]);
    REQUIRE(ids.size() == 1);
    CHECK(error_reason(model_got(steps[1], ids[0])) == "client_left");
    CHECK(events(t, "turn_completed").size() == 1);
  }
  CHECK_FALSE(stayer_id.empty());
  require_no_violation(t);
}

TEST_CASE("Navigating tab: re-PUTs its tools per screen; each model step sees only that screen",
          "[actors][clients][TOOLS-1][TOOLS-3][TOOLS-4]") {
  const std::uint64_t seed = GENERATE(range<std::uint64_t>(0, interleavings));
  CAPTURE(seed);
  // Screen 1 (list_orders) until 2 s, screen 2 (edit, cancel) until 4 s, then checkout.
  // A call to list_orders dispatched at 1 s is answered at 2.5 s, after the screen change.
  scenario s;
  s.name = "navigating_tab";
  auto tab = toolwire::scenarios::navigating_tab(
      toolwire::scenarios::backend_worker(client("tab", "web", tools({"list_orders"}))),
      {{2'000, tools({"edit_order", "cancel_order"})}, {4'000, tools({"checkout"})}});
  tab.result_delay = 1'500;
  s.clients = {tab};
  s.steps = {message_at(1'000, "list"), message_at(5'000, "pay")};
  s.model_script = {
      {"rules",
       json::array({{{"match", "list"},
                     {"steps", json::array({call_step({{"web__list_orders", json::object()}}),
                                            text_step("listed")})}},
                    {{"match", "pay"}, {"steps", json::array({text_step("paid")})}}})}};
  s.duration = 10'000;
  const auto result = run(s, seed);
  const trace& t = result.trace;

  SECTION("TOOLS-1 one PUT per screen change, each replacing the whole list") {
    const auto puts = exchanges(t, "tab", "response", "PUT", "/tools");
    CHECK(times_of(puts) == std::vector<time_ms>{2'000, 4'000});
    for (const auto& put : puts)
      CHECK(put.data["status"] == 200);
    const auto updated = events(t, "client_tools_updated");
    REQUIRE(updated.size() == 2);
    CHECK(updated[0].data["data"]["tools"] == json{"edit_order", "cancel_order"});
    CHECK(updated[1].data["data"]["tools"] == json{"checkout"});
  }
  SECTION("TOOLS-3 every model step is offered the current screen's tools only") {
    const auto steps = model_steps(t);
    REQUIRE(steps.size() == 3);
    CHECK(times_of(steps) == std::vector<time_ms>{1'000, 2'500, 5'000});
    CHECK(offered(steps[0]) == std::vector<std::string>{"web__list_orders"});
    CHECK(offered(steps[1]) == std::vector<std::string>{"web__cancel_order", "web__edit_order"});
    CHECK(offered(steps[2]) == std::vector<std::string>{"web__checkout"});
  }
  SECTION("TOOLS-4 the call dispatched before the change is still answered") {
    const auto answered = exchanges(t, "tab", "response", "POST", "/result");
    REQUIRE(answered.size() == 1);
    CHECK(answered[0].at == 2'500);
    CHECK(answered[0].data["status"] == 200);
    const auto steps = model_steps(t);
    REQUIRE(steps.size() == 3);
    const auto ids = model_call_ids(t, steps[0].data["step_id"]);
    REQUIRE(ids.size() == 1);
    CHECK(model_got(steps[1], ids[0]) == "ok");
  }
  require_no_violation(t);
}

TEST_CASE("Slow client: its ack and result land at the configured virtual times",
          "[actors][clients][CALL-3]") {
  const std::uint64_t seed = GENERATE(range<std::uint64_t>(0, interleavings));
  CAPTURE(seed);
  scenario s;
  s.name = "slow_client";
  s.steps = {message_at(1'000, "think")};
  s.model_script =
      script(json::array({call_step({{"slow__think", json::object()}}), text_step("done")}));
  s.duration = 60'000;  // ack_timeout 10 s, result_timeout 300 s (the defaults)
  const auto base = toolwire::scenarios::backend_worker(client("slow", "slow", tools({"think"})));

  SECTION("CALL-3 an ack within ack_timeout buys the longer result deadline") {
    // Acks 3 s after dispatch and answers 20 s after it: past ack_timeout, before
    // result_timeout.
    s.clients = {toolwire::scenarios::slow_client(base, 3'000, 20'000)};
    const auto result = run(s, seed);
    const trace& t = result.trace;
    const auto acks = exchanges(t, "slow", "response", "POST", "/ack");
    CHECK(times_of(acks) == std::vector<time_ms>{4'000});
    REQUIRE(acks.size() == 1);
    CHECK(acks[0].data["status"] == 200);
    const auto answers = exchanges(t, "slow", "response", "POST", "/result");
    CHECK(times_of(answers) == std::vector<time_ms>{21'000});
    REQUIRE(answers.size() == 1);
    CHECK(answers[0].data["status"] == 200);
    const auto completed = events(t, "client_tool_completed");
    CHECK(times_of(completed) == std::vector<time_ms>{21'000});
    CHECK(events(t, "client_tool_failed").empty());
    const auto steps = model_steps(t);
    REQUIRE(steps.size() == 2);
    CHECK(steps[1].at == 21'000);
    CHECK(times_of(events(t, "turn_completed")) == std::vector<time_ms>{21'000});
    require_no_violation(t);
  }
  SECTION("CALL-3 CALL-6 an ack later than ack_timeout finds the call failed: 409") {
    s.clients = {toolwire::scenarios::slow_client(base, 12'000, 15'000)};
    const auto result = run(s, seed);
    const trace& t = result.trace;
    const auto failed = events(t, "client_tool_failed");
    REQUIRE(failed.size() == 1);
    CHECK(failed[0].at == 11'000);
    CHECK(failed[0].data["data"]["reason"] == "ack_timeout");
    const auto acks = exchanges(t, "slow", "response", "POST", "/ack");
    CHECK(times_of(acks) == std::vector<time_ms>{13'000});
    REQUIRE(acks.size() == 1);
    CHECK(acks[0].data["status"] == 409);
    const auto answers = exchanges(t, "slow", "response", "POST", "/result");
    CHECK(times_of(answers) == std::vector<time_ms>{16'000});
    REQUIRE(answers.size() == 1);
    CHECK(answers[0].data["status"] == 409);
    CHECK(events(t, "client_tool_completed").empty());
    CHECK(times_of(events(t, "turn_completed")) == std::vector<time_ms>{11'000});
    require_no_violation(t);
  }
}

TEST_CASE("Forgetful client: never acks, so its call fails at dispatch + ack_timeout",
          "[actors][clients][CALL-3]") {
  const std::uint64_t seed = GENERATE(range<std::uint64_t>(0, interleavings));
  CAPTURE(seed);
  scenario s;
  s.name = "forgetful_client";
  s.clients = {toolwire::scenarios::forgetful_client(
      toolwire::scenarios::backend_worker(client("forgetful", "lazy", tools({"nap"}))))};
  s.steps = {message_at(500, "nap")};
  s.model_script =
      script(json::array({call_step({{"lazy__nap", json::object()}}), text_step("it forgot")}));
  s.ack_timeout_ms = 2'000;
  s.result_timeout_ms = 10'000;
  s.duration = 20'000;
  const auto result = run(s, seed);
  const trace& t = result.trace;

  const auto dispatched = events(t, "client_tool_dispatched");
  REQUIRE(dispatched.size() == 1);
  CHECK(dispatched[0].at == 500);
  bool delivered = false;  // it saw the call: forgetting is not missing it
  for (const auto& r : records(t, "forgetful", "deliver")) {
    delivered = delivered || r.data["type"] == "client_tool_dispatched";
  }
  CHECK(delivered);
  CHECK(exchanges(t, "forgetful", "request", "POST", "/ack").empty());
  CHECK(exchanges(t, "forgetful", "request", "POST", "/result").empty());
  const auto failed = call_event(t, "client_tool_failed", dispatched[0].data["data"]["call_id"]);
  CHECK(failed.at == 2'500);
  CHECK(failed.data["data"]["reason"] == "ack_timeout");
  const auto steps = model_steps(t);
  REQUIRE(steps.size() == 2);
  CHECK(steps[1].at == 2'500);
  const auto ids = model_call_ids(t, steps[0].data["step_id"]);
  REQUIRE(ids.size() == 1);
  CHECK(error_reason(model_got(steps[1], ids[0])) == "ack_timeout");
  CHECK(times_of(events(t, "turn_completed")) == std::vector<time_ms>{2'500});
  require_no_violation(t);
}

TEST_CASE("Duplicating client: its second result gets 409 and the call completes once",
          "[actors][clients][CALL-6]") {
  const std::uint64_t seed = GENERATE(range<std::uint64_t>(0, interleavings));
  CAPTURE(seed);
  scenario s;
  s.name = "duplicating_client";
  auto eager = toolwire::scenarios::duplicating_client(
      toolwire::scenarios::backend_worker(client("eager", "eager", tools({"jump"}))));
  eager.result_content = "jumped";
  s.clients = {eager};
  s.steps = {message_at(100, "jump")};
  s.model_script =
      script(json::array({call_step({{"eager__jump", json::object()}}), text_step("landed")}));
  s.duration = 5'000;
  const auto result = run(s, seed);
  const trace& t = result.trace;

  const auto answers = exchanges(t, "eager", "response", "POST", "/result");
  REQUIRE(answers.size() == 2);
  CHECK(answers[0].data["status"] == 200);
  CHECK(answers[1].data["status"] == 409);
  CHECK(answers[1].data["body"]["error"]["type"] == "conflict");
  const auto dispatched = events(t, "client_tool_dispatched");
  REQUIRE(dispatched.size() == 1);
  const auto completed =
      call_event(t, "client_tool_completed", dispatched[0].data["data"]["call_id"]);
  CHECK(completed.data["data"]["is_error"] == false);
  CHECK(events(t, "client_tool_completed").size() == 1);
  const auto steps = model_steps(t);
  REQUIRE(steps.size() == 2);
  REQUIRE(steps[1].data["tool_results"].size() == 1);  // CALL-8: exactly one tool result
  const auto ids = model_call_ids(t, steps[0].data["step_id"]);
  REQUIRE(ids.size() == 1);
  CHECK(model_got(steps[1], ids[0]) == "jumped");
  require_no_violation(t);
}

TEST_CASE("Erroring client: its error result completes the call and reaches the model as an error",
          "[actors][clients][CALL-4][CALL-8]") {
  const std::uint64_t seed = GENERATE(range<std::uint64_t>(0, interleavings));
  CAPTURE(seed);
  scenario s;
  s.name = "erroring_client";
  s.clients = {toolwire::scenarios::erroring_client(
      toolwire::scenarios::backend_worker(client("erring", "broken", tools({"fail"}))))};
  s.steps = {message_at(1'000, "try")};
  s.model_script =
      script(json::array({call_step({{"broken__fail", json::object()}}), text_step("recovered")}));
  s.duration = 5'000;
  const auto result = run(s, seed);
  const trace& t = result.trace;

  const auto dispatched = events(t, "client_tool_dispatched");
  REQUIRE(dispatched.size() == 1);
  const auto completed =
      call_event(t, "client_tool_completed", dispatched[0].data["data"]["call_id"]);
  CHECK(completed.at == 1'000);
  CHECK(completed.data["data"]["is_error"] == true);
  CHECK(events(t, "client_tool_failed").empty());
  const auto steps = model_steps(t);
  REQUIRE(steps.size() == 2);
  const auto ids = model_call_ids(t, steps[0].data["step_id"]);
  REQUIRE(ids.size() == 1);
  const json seen = json::parse(model_got(steps[1], ids[0]), nullptr, false);
  INFO("the model received " << seen.dump());
  REQUIRE(seen.is_object());
  CHECK(seen["error"]["reason"] == "client_error");
  CHECK(seen["error"]["message"] == "the tool failed in the client");
  CHECK(events(t, "turn_completed").size() == 1);
  require_no_violation(t);
}

TEST_CASE("Each client answers only the calls addressed to it", "[actors][clients][CALL-7]") {
  const std::uint64_t seed = GENERATE(range<std::uint64_t>(0, interleavings));
  CAPTURE(seed);
  scenario s;
  s.name = "two_clients_three_calls";
  auto alpha = toolwire::scenarios::backend_worker(client("alpha", "a", tools({"x"})));
  alpha.result_content = "from alpha";
  auto beta = toolwire::scenarios::backend_worker(client("beta", "b", tools({"y"})));
  beta.result_content = "from beta";
  s.clients = {alpha, beta};
  s.steps = {message_at(1'000, "go")};
  s.model_script = script(
      json::array({call_step({{"a__x", {{"n", 1}}}, {"b__y", {{"n", 2}}}, {"a__x", {{"n", 3}}}}),
                   text_step("all three answered")}));
  s.duration = 5'000;
  const auto result = run(s, seed);
  const trace& t = result.trace;
  const std::map<std::string, std::string> owner_actor = {{client_id_of(t, "alpha"), "alpha"},
                                                          {client_id_of(t, "beta"), "beta"}};

  std::map<std::string, std::string> owner_of_call;  // call id -> actor it belongs to
  for (const auto& r : events(t, "client_tool_dispatched")) {
    owner_of_call[r.data["data"]["call_id"]] = owner_actor.at(r.data["data"]["client_id"]);
  }
  REQUIRE(owner_of_call.size() == 3);
  for (const std::string actor : {"alpha", "beta"}) {
    for (const std::string kind : {"ack", "result"}) {
      CAPTURE(actor, kind);
      const auto addressed = addressed_calls(t, actor, kind);
      std::multiset<std::string> expected;
      for (const auto& [call, owner] : owner_of_call) {
        if (owner == actor) expected.insert(call);
      }
      std::multiset<std::string> seen;
      for (const auto& [call, cid] : addressed) {
        seen.insert(call);
        CHECK(owner_actor.at(cid) == actor);  // through its own cid (CALL-7)
      }
      CHECK(seen == expected);  // each of its calls once, nobody else's
    }
  }
  const auto steps = model_steps(t);
  REQUIRE(steps.size() == 2);
  const auto ids = model_call_ids(t, steps[0].data["step_id"]);
  REQUIRE(ids.size() == 3);
  CHECK(model_got(steps[1], ids[0]) == "from alpha");
  CHECK(model_got(steps[1], ids[1]) == "from beta");
  CHECK(model_got(steps[1], ids[2]) == "from alpha");
  require_no_violation(t);
}

TEST_CASE("Scripted model: answers from its script and records what it was offered and got",
          "[actors][model][MODEL-1][MODEL-4][CALL-8]") {
  const std::uint64_t seed = GENERATE(range<std::uint64_t>(0, interleavings));
  CAPTURE(seed);
  scenario s;
  s.name = "scripted_model";
  auto web =
      toolwire::scenarios::backend_worker(client("web", "web", tools({"read_form", "fill_form"})));
  web.result_content = json{{"form", "checkout"}};  // JSON content reaches the model serialized
  s.clients = {web};
  s.steps = {message_at(1'000, "hello"), message_at(2'000, "fill the form"),
             message_at(3'000, "nothing in the script matches this")};
  s.model_script = {
      {"rules",
       json::array({{{"match", "hello"}, {"steps", json::array({text_step("hi there")})}},
                    {{"match", "fill"},
                     {"steps", json::array({call_step({{"web__read_form", json::object()}}),
                                            call_step({{"web__fill_form", {{"name", "Ada"}}}}),
                                            text_step("filled")})}}})}};
  s.duration = 10'000;
  const auto result = run(s, seed);
  const trace& t = result.trace;
  const auto steps = model_steps(t);
  const auto replies = records(t, "model", "model_reply");
  REQUIRE(steps.size() == 5);  // hello: 1; fill: 3; unmatched: 1
  REQUIRE(replies.size() == 5);

  SECTION("MODEL-1 every step records the tools offered, as <client>__<tool>") {
    for (const auto& step : steps) {
      CHECK(offered(step) == std::vector<std::string>{"web__fill_form", "web__read_form"});
    }
  }
  SECTION("a text answer completes the turn with that text") {
    CHECK(steps[0].at == 1'000);
    CHECK(steps[0].data["tool_results"] == json::array());
    CHECK(replies[0].data["reply"]["text"] == "hi there");
    const auto completed = events(t, "turn_completed");
    REQUIRE(completed.size() == 2);
    CHECK(completed[0].at == 1'000);
    CHECK(completed[0].data["data"]["output"] == "hi there");
    CHECK(completed[1].at == 2'000);
    CHECK(completed[1].data["data"]["output"] == "filled");
  }
  SECTION("tool calls are dispatched as given, and their results come back by call id") {
    const auto dispatched = events(t, "client_tool_dispatched");
    REQUIRE(dispatched.size() == 2);
    CHECK(dispatched[0].data["data"]["tool"] == "read_form");
    CHECK(dispatched[1].data["data"]["tool"] == "fill_form");
    CHECK(dispatched[1].data["data"]["arguments"] == json{{"name", "Ada"}});
    const auto first_ids = model_call_ids(t, steps[1].data["step_id"]);
    const auto second_ids = model_call_ids(t, steps[2].data["step_id"]);
    REQUIRE(first_ids.size() == 1);
    REQUIRE(second_ids.size() == 1);
    CHECK(steps[2].data["tool_results"].size() == 1);
    CHECK(model_got(steps[2], first_ids[0]) == R"({"form":"checkout"})");
    CHECK(steps[3].data["tool_results"].size() == 1);
    CHECK(model_got(steps[3], second_ids[0]) == R"({"form":"checkout"})");
  }
  SECTION("MODEL-4 a conversation the script does not cover fails the turn, nothing hangs") {
    CHECK(replies[4].data["reply"].contains("failure"));
    const auto failed = events(t, "turn_failed");
    REQUIRE(failed.size() == 1);
    CHECK(failed[0].at == 3'000);
    CHECK(failed[0].data["data"]["reason"].get<std::string>().rfind("model_error", 0) == 0);
  }
  require_no_violation(t);
}

TEST_CASE("Task caller: three interrupt rounds, then completed with every call in the output",
          "[actors][tasks][TASK-3][TASK-5][TASK-6]") {
  const std::uint64_t seed = GENERATE(range<std::uint64_t>(0, interleavings));
  CAPTURE(seed);
  scenario s;
  s.name = "task_caller_three_rounds";
  toolwire::scenarios::task_caller_spec caller;
  caller.actor = "caller";
  caller.input = "where am I";
  caller.client_tools = tools({"locate", "confirm"});
  caller.poll_every = 500;
  caller.answer_delay = 200;
  caller.result_content = "fine";
  s.task_callers = {caller};
  s.model_script = script(json::array(
      {call_step({{"locate", json::object()}}), call_step({{"confirm", {{"q", "here?"}}}}),
       call_step({{"locate", json::object()}, {"confirm", json::object()}}),
       text_step("you are here")}));
  s.duration = 20'000;
  const auto result = run(s, seed);
  const trace& t = result.trace;

  const auto created = exchanges(t, "caller", "response", "POST", "/api/tasks");
  REQUIRE(created.size() == 1);
  CHECK(created[0].data["status"] == 201);
  CHECK(created[0].data["body"]["status"] == "pending");

  // What the caller saw when polling: the rounds of pending calls, then completion.
  std::vector<json> rounds;
  json final_body;
  for (const auto& r : exchanges(t, "caller", "response", "GET", "")) {
    const json& body = r.data["body"];
    if (body.value("status", "") == "interrupted") {
      json names = json::array();
      for (const auto& call : body["pending_tool_calls"])
        names.push_back(call["name"]);
      if (rounds.empty() || rounds.back() != names) rounds.push_back(names);
    }
    if (body.value("status", "") == "completed") final_body = body;
  }
  CHECK(rounds == std::vector<json>{json{"locate"}, json{"confirm"}, json{"locate", "confirm"}});

  const auto submitted = exchanges(t, "caller", "response", "POST", "/tool-results");
  REQUIRE(submitted.size() == 3);
  for (const auto& r : submitted) {
    CHECK(r.data["status"] == 200);
    CHECK(r.data["body"]["status"] == "processing");
  }
  // Each round is answered answer_delay after the poll that showed it.
  CHECK(times_of(submitted) == std::vector<time_ms>{700, 1'400, 2'100});

  REQUIRE(final_body.is_object());
  const json fine = {{"type", "content"},
                     {"content", json::array({{{"type", "text"}, {"text", "fine"}}})}};
  const json expected_output = json::array(
      {{{"type", "tool_call"},
        {"tool_call", {{"name", "locate"}, {"input", json::object()}, {"output", fine}}}},
       {{"type", "tool_call"},
        {"tool_call", {{"name", "confirm"}, {"input", {{"q", "here?"}}}, {"output", fine}}}},
       {{"type", "tool_call"},
        {"tool_call", {{"name", "locate"}, {"input", json::object()}, {"output", fine}}}},
       {{"type", "tool_call"},
        {"tool_call", {{"name", "confirm"}, {"input", json::object()}, {"output", fine}}}},
       {{"type", "text"}, {"text", "you are here"}}});
  CHECK(final_body["output"] == expected_output);

  // It stops polling once the task is final.
  const auto gets = exchanges(t, "caller", "response", "GET", "");
  REQUIRE_FALSE(gets.empty());
  CHECK(gets.back().data["body"]["status"] == "completed");

  const auto steps = model_steps(t, "task");
  REQUIRE(steps.size() == 4);
  for (const auto& step : steps) {
    CHECK(offered(step) == std::vector<std::string>{"confirm", "locate"});  // TASK-10: unprefixed
  }
  require_no_violation(t);
}

TEST_CASE(
    "Repeating task caller: a round posted again once accepted, and once the task is over, "
    "is refused with 409",
    "[actors][behaviours]") {
  auto plan = toolwire::scenarios::load_text(R"(name: repeated_round
purpose: a caller posts each accepted round again, and the last once more at the end (TASK-4)
spec: [TASK-4]
needs: [part_b]
duration: 10s
task_callers:
  caller1:
    input: one tool
    tools: [locate]
    poll_every: 250ms
    repeat_results: true
model:
  rules:
    - match: one tool
      steps:
        - tool_calls: [{name: locate, arguments: {}}]
        - content: done
          hold: 1s
)",
                                             "repeated_round.yaml");
  REQUIRE(plan);
  const auto statuses = [](const toolwire::actors::trace& run) {
    std::vector<int> out;  // each tool-results answer, in order
    for (const auto& r : run.records()) {
      if (r.actor == "caller1" && r.kind == "response" &&
          r.data.value("path", "").ends_with("/tool-results"))
        out.push_back(r.data.value("status", 0));
    }
    return out;
  };
  // Accepted, then the repeat finds the task processing (its model holds its answer for a
  // second), then the task completed.
  CHECK(statuses(run(*plan).trace) == std::vector<int>{200, 409, 409});
  // A server that does not check the status judges the repeats by the pending calls: none.
  auto faulty_plan = *plan;
  faulty_plan.faults = {*toolwire::reference_server::parse_fault("tool_results_status_unchecked")};
  CHECK(statuses(run(faulty_plan).trace) == std::vector<int>{200, 400, 400});
}

TEST_CASE("Partial task caller: posts one result of a round alone, refused, then the whole round",
          "[actors][behaviours]") {
  auto plan = toolwire::scenarios::load_text(R"(name: partial_round
purpose: a caller posts a partial round first (TASK-4), then the whole one
spec: [TASK-4]
needs: [part_b]
duration: 10s
task_callers:
  caller1:
    input: two tools
    tools: [locate, confirm]
    poll_every: 250ms
    partial_results: true
model:
  rules:
    - match: two tools
      steps:
        - tool_calls:
            - {name: locate, arguments: {}}
            - {name: confirm, arguments: {}}
        - content: done
)",
                                             "partial_round.yaml");
  REQUIRE(plan);
  const auto posted = [](const toolwire::actors::trace& run) {
    std::vector<std::pair<std::size_t, int>> out;  // results posted, status answered
    std::size_t sent = 0;
    for (const auto& r : run.records()) {
      const std::string path = r.data.value("path", "");
      if (r.actor != "caller1" || !path.ends_with("/tool-results")) continue;
      if (r.kind == "request") sent = r.data["body"]["tool_results"].size();
      if (r.kind == "response") out.emplace_back(sent, r.data.value("status", 0));
    }
    return out;
  };
  const auto clean = run(*plan).trace;
  CHECK(posted(clean) == std::vector<std::pair<std::size_t, int>>{{1, 400}, {2, 200}});
  // Against a server that applies a partial round, the first post is taken and the whole
  // round, which then finds the task processing, is refused.
  auto faulty_plan = *plan;
  faulty_plan.faults = {*toolwire::reference_server::parse_fault("partial_tool_results_accepted")};
  const auto faulty = run(faulty_plan).trace;
  const auto answers = posted(faulty);
  REQUIRE(answers.size() == 2);
  CHECK(answers[0] == std::pair<std::size_t, int>{1, 200});
  CHECK(answers[1].second == 409);
}
