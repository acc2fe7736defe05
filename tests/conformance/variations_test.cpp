// The variation proof, the mirror of the fault proof: behaviour that SPEC allows but the
// reference does not show by default (`toolwire serve --variation NAME`) never fails a
// case. First each variation is shown to change what it says it changes (so the proof is
// never empty), then the whole catalog runs over HTTP against each one and against all
// of them at once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>
#include <set>

#include "conformance/real_clock_runs.hpp"
#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/runner.hpp"
#include "toolwire/protocol/spec_rules.hpp"
#include "toolwire/reference_server/core.hpp"
#include "toolwire/reference_server/model_script.hpp"
#include "toolwire/reference_server/variations/variations.hpp"

namespace conformance = toolwire::conformance;
namespace reference_server = toolwire::reference_server;
namespace variations = toolwire::reference_server::variations;
namespace web = toolwire::reference_server::web;
using toolwire::protocol::json;
using variations::variation;

namespace {

std::shared_ptr<web::wire_policy> wire_of(variations::variation_set set) {
  web::server_config config;
  variations::apply(set, config);
  REQUIRE(config.wire);
  return config.wire;
}

toolwire::protocol::api_response answer(int status, json body) {
  toolwire::protocol::api_response response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

const std::regex uuid_form("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}");

//! Records the requests a model backend gets; answers only when told.
struct recording_backend final : web::model_backend {
  std::vector<reference_server::model_step_request> requests;
  std::vector<std::function<void(reference_server::model_reply)>> pending;
  void start(const reference_server::model_step_request& request,
             std::function<void(reference_server::model_reply)> done) override {
    requests.push_back(request);
    pending.push_back(std::move(done));
  }
  void close() override {}
};

//! `messages` must be an array: write json::array({...}), since a one-item braced list of
//! json is an array under g++ and a copy of the item under clang.
reference_server::model_step_request turn_step(std::uint64_t id, json messages) {
  return {id,
          reference_server::model_step_request::owner_kind::turn,
          "ses_1",
          0,
          json{{"model", "m"}, {"messages", std::move(messages)}},
          reference_server::offered_tools::from_json(
              json::array({{{"type", "function"}, {"function", {{"name", "web__read"}}}}}))};
}

json user(const std::string& text) {
  return {{"role", "user"}, {"content", text}};
}

reference_server::model_reply text_reply(const std::string& text) {
  toolwire::protocol::model_answer answer;
  answer.text = text;
  return {answer, ""};
}

}  // namespace

TEST_CASE("the variation table: at least 12, each citing SPEC rules", "[variations]") {
  const auto all = variations::all_variations();
  CHECK(all.size() >= 12);
  for (const auto& info : all) {
    INFO(info.name);
    CHECK(variations::parse_variation(info.name) == info.id);
    CHECK(variations::describe(info.id).name == info.name);
    CHECK_FALSE(info.summary.empty());
    std::string ids(info.spec_ids);
    std::size_t from = 0;
    while (from <= ids.size()) {
      const auto comma = std::min(ids.find(',', from), ids.size());
      CHECK(toolwire::protocol::find_spec_rule(ids.substr(from, comma - from)) != nullptr);
      from = comma + 1;
    }
  }
  CHECK_FALSE(variations::parse_variation("no_such_variation"));
}

TEST_CASE("each wire variation changes what it says it changes", "[variations]") {
  const toolwire::protocol::api_request request{"POST", "/v1/sessions", {}, {}, {}, "{}"};

  SECTION("extra_fields: every object, array items included; client payloads untouched") {
    auto response = answer(201, json::parse(R"({"client_id": "cli_1", "tools": [
        {"name": "read", "parameters": {"type": "object"}}],
        "output": [{"type": "tool_call", "tool_call": {"name": "read", "input": {"a": 1}}}]})"));
    wire_of({variation::extra_fields})->outbound(request, response);
    const json& body = response.body;
    CHECK(body.contains("x_extra"));
    CHECK(body["tools"][0].contains("x_extra"));
    CHECK(body["tools"][0]["parameters"] == json{{"type", "object"}});
    CHECK(body["output"][0]["tool_call"].contains("id"));
    CHECK(body["output"][0]["tool_call"]["input"] == json{{"a", 1}});
  }
  SECTION("uuid_ids: ids go out in another form and come back mapped") {
    auto wire = wire_of({variation::uuid_ids});
    auto created = answer(201, {{"id", "ses_1"}, {"token", "st_secret"}});
    wire->outbound(request, created);
    const std::string sid = created.body["id"];
    CHECK(std::regex_match(sid, uuid_form));
    CHECK(created.body["token"] == "st_secret");
    auto task = answer(200, json::parse(R"({"uuid": "00000000-0000-4000-8000-000000000001",
        "pending_tool_calls": [{"id": "tc_1", "name": "x", "arguments": {"id": "tc_1"}}]})"));
    wire->outbound(request, task);
    const std::string uuid = task.body["uuid"];
    const std::string call = task.body["pending_tool_calls"][0]["id"];
    CHECK(call != "tc_1");
    CHECK(task.body["pending_tool_calls"][0]["arguments"]["id"] == "tc_1");

    toolwire::protocol::api_request in{
        "POST", "/v1/sessions/" + sid + "/messages", {}, {}, {}, R"({"content": "hi"})"};
    wire->inbound(in);
    CHECK(in.path == "/v1/sessions/ses_1/messages");
    CHECK(in.body == R"({"content": "hi"})");  // nothing to map: the bytes stay
    toolwire::protocol::api_request results{
        "POST",
        "/api/tasks/" + uuid + "/tool-results",
        {},
        {},
        {},
        json{{"tool_results", {{{"id", call}, {"content", "ok"}}, {{"id", "nope"}}}}}.dump()};
    wire->inbound(results);
    CHECK(results.path == "/api/tasks/00000000-0000-4000-8000-000000000001/tool-results");
    CHECK(json::parse(results.body)["tool_results"][0]["id"] == "tc_1");
    CHECK(json::parse(results.body)["tool_results"][1]["id"] == "nope");
  }
  SECTION("other_texts: free texts change, named reasons and types stay") {
    auto wire = wire_of({variation::other_texts});
    auto error = answer(404, {{"error", {{"type", "not_found"}, {"message", "no client cli_9"}}}});
    wire->outbound(request, error);
    CHECK(error.body["error"]["type"] == "not_found");
    CHECK(error.body["error"]["message"] != "no client cli_9");
    auto timed_out = answer(
        200,
        {{"status", "failed"}, {"error", {{"reason", "tool_results_timeout"}, {"message", "m"}}}});
    wire->outbound(request, timed_out);
    CHECK(timed_out.body["error"]["reason"] == "tool_results_timeout");  // TASK-7 names it
    auto model_failed = answer(
        200, {{"status", "failed"}, {"error", {{"reason", "model_error"}, {"message", "m"}}}});
    wire->outbound(request, model_failed);
    CHECK(model_failed.body["error"]["reason"] != "model_error");  // MODEL-4 names none
  }
  SECTION("HTTP framing: charset, pretty JSON, extra headers, Connection: close, chunked") {
    auto message_of = [](variations::variation_set set) {
      auto message = web::to_http_response(answer(200, {{"a", 1}}), 11, /*keep_alive=*/true);
      wire_of(std::move(set))->message(message);
      return message;
    };
    namespace http = boost::beast::http;
    CHECK(message_of({variation::json_charset})[http::field::content_type] ==
          "application/json; charset=utf-8");
    const auto pretty = message_of({variation::pretty_json});
    CHECK(pretty.body() == "{\n  \"a\": 1\n}\n");
    CHECK(pretty[http::field::content_length] == std::to_string(pretty.body().size()));
    CHECK(message_of({variation::extra_headers}).count("X-Request-Id") == 1);
    CHECK_FALSE(message_of({variation::connection_close}).keep_alive());
    const auto chunked = message_of({variation::chunked_bodies});
    CHECK(chunked.chunked());
    CHECK(chunked.count(http::field::content_length) == 0);
    const auto plain = web::to_http_response(answer(200, {{"a", 1}}), 11, true);
    CHECK(plain[http::field::content_type] == "application/json");
    CHECK(plain.keep_alive());
    CHECK_FALSE(plain.chunked());
  }
  SECTION("SSE: keep-alive every second, a preamble, compact frames") {
    web::server_config config;
    variations::apply({variation::sse_keepalive_1s}, config);
    CHECK(config.keepalive == std::chrono::milliseconds(1'000));
    const auto preamble = wire_of({variation::sse_preamble})->preamble();
    CHECK(preamble.starts_with(": "));
    CHECK(preamble.find("\nretry: ") != std::string::npos);
    const reference_server::session_event event{"ses_1", 7, "turn_started", {{"turn_id", "t"}}, 0};
    CHECK(wire_of({variation::sse_compact_frames})->frame(event) ==
          "event:turn_started\r\nid:7\r\ndata:{\"turn_id\":\"t\"}\r\n\r\n");
    CHECK(web::wire_policy{}.frame(event) ==
          "id: 7\nevent: turn_started\ndata: {\"turn_id\":\"t\"}\n\n");
  }
}

TEST_CASE("departure_reordered: LIFE-5's events in the other order, seqs in place",
          "[variations]") {
  reference_server::core_config config;
  config.api_keys = {{"k", {reference_server::scope_session_manage}}};
  reference_server::core core(config);
  const auto session = *core.create_session(1'000);
  const json tool = {{"name", "read"}, {"description", "d"}, {"parameters", {{"type", "object"}}}};
  auto client = core.register_client(
      session.id, {{"name", "web"}, {"lifetime", {{"type", "never"}}}, {"tools", {tool}}}, 1'000);
  REQUIRE(client);
  const std::string cid = (*client)["client_id"];
  REQUIRE(core.post_message(session.id, {{"content", "go"}}, 1'000));
  const auto steps = core.drain().model_steps;
  REQUIRE(steps.size() == 1);
  toolwire::protocol::model_answer calls;
  calls.tool_calls = {{"m1", "web__read", "{}"}, {"m2", "web__read", "{}"}};
  core.model_replied(steps[0].step_id, {calls, ""}, 1'000);
  REQUIRE(core.delete_client(session.id, cid, 1'001));

  auto types = [](const std::vector<reference_server::session_event>& events) {
    std::vector<std::string> out;
    for (const auto& e : events)
      out.push_back(e.type);
    return out;
  };
  const auto plain = core.events_after(session.id, 0).events;
  const auto varied = wire_of({variation::departure_reordered})->events(core, session.id, 0).events;
  REQUIRE(plain.size() == varied.size());
  for (std::size_t i = 0; i < varied.size(); ++i)
    CHECK(varied[i].seq == i + 1);
  const auto n = plain.size();
  REQUIRE(n >= 3);
  const auto plain_types = types(plain);
  const auto varied_types = types(varied);
  const std::vector<std::string> plain_tail(plain_types.end() - 3, plain_types.end());
  const std::vector<std::string> varied_tail(varied_types.end() - 3, varied_types.end());
  CHECK(plain_tail == std::vector<std::string>{"client_unregistered", "client_tool_failed",
                                               "client_tool_failed"});
  CHECK(varied_tail == std::vector<std::string>{"client_tool_failed", "client_tool_failed",
                                                "client_unregistered"});
  // A stream resumed in the middle of the departure sees the same event at each seq.
  const auto resumed =
      wire_of({variation::departure_reordered})->events(core, session.id, n - 2).events;
  REQUIRE(resumed.size() == 2);
  CHECK(resumed[0].type == varied[n - 2].type);
  CHECK(resumed[0].data == varied[n - 2].data);
  CHECK(resumed[1].type == "client_unregistered");
}

TEST_CASE("The slow variations delay only their own seam, by seeded jitter in their range",
          "[variations]") {
  using web::slowness;
  const std::pair<variation, slowness> seams[] = {
      {variation::slow_responses, slowness::response},
      {variation::slow_events, slowness::events},
      {variation::late_timers, slowness::timer},
      {variation::slow_model_calls, slowness::model_call},
  };
  for (const auto& [slow, seam] : seams) {
    INFO(variations::describe(slow).name);
    auto wire = wire_of({slow});
    auto again = wire_of({slow});
    std::set<std::int64_t> seen;
    for (int i = 0; i < 200; ++i) {
      const auto ms = wire->delay(seam).count();
      CHECK(ms == again->delay(seam).count());  // the same sequence in every run
      CHECK(ms >= (slow == variation::late_timers ? 0 : 5));
      CHECK(ms <= (slow == variation::late_timers ? 100 : 50));
      seen.insert(ms);
    }
    CHECK(seen.size() > 20);  // jitter, not one fixed delay
    for (const auto& [other, other_seam] : seams) {
      if (other != slow) CHECK(wire->delay(other_seam).count() == 0);
    }
  }
}

TEST_CASE("tool_lists_reversed: client_tools_updated names the tools in reverse order",
          "[variations]") {
  reference_server::core_config config;
  config.api_keys = {{"k", {reference_server::scope_session_manage}}};
  reference_server::core core(config);
  const auto session = *core.create_session(1'000);
  auto client = core.register_client(
      session.id, {{"name", "web"}, {"lifetime", {{"type", "never"}}}, {"tools", json::array()}},
      1'000);
  REQUIRE(client);
  auto tool = [](const char* name) {
    return json{{"name", name}, {"description", "d"}, {"parameters", {{"type", "object"}}}};
  };
  REQUIRE(core.put_tools(session.id, (*client)["client_id"],
                         {{"tools", {tool("highlight_row"), tool("pick_date")}}}, 1'001));
  auto updated = [](const std::vector<reference_server::session_event>& events) {
    for (const auto& e : events) {
      if (e.type == "client_tools_updated") return e.data["tools"];
    }
    return json();
  };
  CHECK(updated(core.events_after(session.id, 0).events) ==
        json::array({"highlight_row", "pick_date"}));
  CHECK(updated(wire_of({variation::tool_lists_reversed})->events(core, session.id, 0).events) ==
        json::array({"pick_date", "highlight_row"}));
}

TEST_CASE("pending_calls_reversed: an interrupted task lists its pending calls reversed",
          "[variations]") {
  const toolwire::protocol::api_request poll{"GET", "/api/tasks/u", {}, {}, {}, "", {}};
  auto response = answer(200, json::parse(R"({"uuid": "u", "status": "interrupted",
      "pending_tool_calls": [{"id": "tc_1", "name": "locate", "arguments": {}},
                             {"id": "tc_2", "name": "pick_city", "arguments": {}}]})"));
  wire_of({variation::pending_calls_reversed})->outbound(poll, response);
  CHECK(response.body["pending_tool_calls"][0]["id"] == "tc_2");
  CHECK(response.body["pending_tool_calls"][1]["id"] == "tc_1");
  auto other = answer(200, {{"uuid", "u"}, {"status", "completed"}});
  wire_of({variation::pending_calls_reversed})->outbound(poll, other);
  CHECK(other.body == json{{"uuid", "u"}, {"status", "completed"}});
}

TEST_CASE("each model variation changes the model's requests within MODEL-1..3", "[variations]") {
  auto recorder = std::make_unique<recording_backend>();
  auto* seen = recorder.get();
  SECTION("an empty set leaves the backend as it is") {
    CHECK(variations::wrap_backend({}, std::move(recorder)).get() == seen);
  }
  // Two turns of one session through `set`, the first answered with `first_reply`: the
  // second turn's request body.
  auto second_turn = [&](variations::variation_set set, reference_server::model_reply first_reply) {
    auto backend = variations::wrap_backend(set, std::move(recorder));
    backend->start(turn_step(1, json::array({user("first")})),
                   [](reference_server::model_reply) {});
    seen->pending[0](std::move(first_reply));
    backend->start(turn_step(2, json::array({user("second")})),
                   [](reference_server::model_reply) {});
    return seen->requests[1].body();
  };
  //! What a script whose second rule answers "B" answers to `body`: the current turn's.
  auto answered = [](const json& body, const char* first_steps) {
    auto script = reference_server::model_script::parse(
        std::string(R"({"rules": [{"match": "first", "steps": )") + first_steps +
            R"(}, {"match": "second", "steps": [{"content": "B"}]}]})",
        "script.json");
    REQUIRE(script);
    const auto reply = script->answer(body);
    return reply.answer && reply.answer->text == "B";
  };
  const reference_server::model_reply failed{std::nullopt, "the model failed"};
  SECTION("model_history: a turn's requests carry the session's earlier turns") {
    const json body = second_turn({variation::model_history}, text_reply("one"));
    const json expected =
        json::array({user("first"), {{"role", "assistant"}, {"content", "one"}}, user("second")});
    CHECK(body["messages"] == expected);
    // A script reading it still answers the current turn's first step.
    CHECK(answered(body, R"([{"content": "A"}])"));
  }
  SECTION("model_history_failed: a failed turn's user message stays, with no reply") {
    const json body = second_turn({variation::model_history_failed}, failed);
    CHECK(body["messages"] == json::array({user("first"), user("second")}));
    // The script answers the second turn, whose rule comes after the failed turn's.
    CHECK(answered(body, "[]"));
  }
  SECTION("model_history leaves a failed turn out") {
    CHECK(second_turn({variation::model_history}, failed)["messages"] ==
          json::array({user("second")}));
  }
  SECTION("model_reserialised: no null content, re-indented arguments") {
    auto backend = variations::wrap_backend({variation::model_reserialised}, std::move(recorder));
    const json call = {{"id", "call_0_0"},
                       {"type", "function"},
                       {"function", {{"name", "web__read"}, {"arguments", R"({"row":2})"}}}};
    backend->start(
        turn_step(
            1,
            json::array(
                {user("hello"),
                 {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", json::array({call})}},
                 {{"role", "tool"}, {"tool_call_id", "call_0_0"}, {"content", "x"}}})),
        [](reference_server::model_reply) {});
    const json& assistant = seen->requests[0].conversation["messages"][1];
    CHECK(assistant["content"] == "");
    const std::string arguments = assistant["tool_calls"][0]["function"]["arguments"];
    CHECK(arguments != R"({"row":2})");
    CHECK(json::parse(arguments) == json{{"row", 2}});
  }
  SECTION("model_system_prompt, model_request_extras, model_text_parts, other_texts") {
    auto backend =
        variations::wrap_backend({variation::model_system_prompt, variation::model_request_extras,
                                  variation::model_text_parts, variation::other_texts},
                                 std::move(recorder));
    const json error = {{"error", {{"reason", "ack_timeout"}, {"message", "the call failed"}}}};
    backend->start(
        turn_step(1, {user("hello"),
                      {{"role", "assistant"}, {"content", nullptr}},
                      {{"role", "tool"}, {"tool_call_id", "m1"}, {"content", error.dump()}}}),
        [](reference_server::model_reply) {});
    const json& body = seen->requests[0].body();
    const json& messages = body["messages"];
    CHECK(messages[0]["role"] == "system");
    CHECK(body["temperature"] == 0);
    CHECK(body["tools"][0]["function"]["strict"] == false);
    auto user_message = std::find_if(messages.begin(), messages.end(),
                                     [](const json& m) { return m["role"] == "user"; });
    REQUIRE(user_message != messages.end());
    CHECK((*(user_message - 1))["role"] == "system");
    CHECK((*user_message)["content"] == json::array({{{"type", "text"}, {"text", "hello"}}}));
    const json tool_content = json::parse(messages.back()["content"].get<std::string>());
    CHECK(tool_content["error"]["reason"] == "ack_timeout");
    CHECK(tool_content["error"]["message"] != "the call failed");
  }
}

TEST_CASE("a model script counts steps from the latest user message (history allowed)",
          "[variations][model_script]") {
  auto script = reference_server::model_script::parse(
      R"({"rules": [{"match": "first", "steps": [{"content": "A1"}]},
                    {"match": "second", "steps": [{"tool_calls": [{"name": "web__read"}]},
                                                  {"content": "B2"}]}]})",
      "script.json");
  REQUIRE(script);
  const json history = json::array({user("first"), {{"role", "assistant"}, {"content", "A1"}}});
  json body = {{"messages", history}};
  body["messages"].push_back({{"role", "system"}, {"content", "be brief"}});
  body["messages"].push_back(user("second"));
  auto step1 = script->answer(body);
  REQUIRE(step1.answer);
  CHECK(step1.answer->tool_calls.size() == 1);
  body["messages"].push_back({{"role", "assistant"}, {"content", nullptr}});
  body["messages"].push_back({{"role", "tool"}, {"tool_call_id", "call_0_0"}, {"content", "x"}});
  auto step2 = script->answer(body);
  REQUIRE(step2.answer);
  CHECK(step2.answer->text == "B2");
  // A failed earlier turn's user message (no reply) before the current one: the latest
  // user message decides, whatever the order of the rules.
  auto after_failure = script->answer({{"messages", {user("second"), user("first")}}});
  REQUIRE(after_failure.answer);
  CHECK(after_failure.answer->text == "A1");
  auto failure_first = script->answer({{"messages", {user("first"), user("second")}}});
  REQUIRE(failure_first.answer);
  CHECK(failure_first.answer->tool_calls.size() == 1);
  // A task's input items are consecutive user messages: the first of them opens the turn.
  auto task = script->answer({{"messages", {user("first"), user("and more")}}});
  REQUIRE(task.answer);
  CHECK(task.answer->text == "A1");
}

namespace {

std::vector<conformance::case_result> run_catalog(variations::variation_set set) {
  auto loaded = conformance::load_catalog(conformance::default_catalog_dir());
  if (!loaded) FAIL(loaded.error().message);
  conformance::target_choice target;
  target.kind.emplace<conformance::bundled_server>().variations = std::move(set);
  conformance::run_settings settings;
  settings.jobs = 16;
  auto results = conformance::run_cases(*loaded, target, settings);
  REQUIRE(results);
  return *results;
}

//! The values of `"key":"..."` in the case traces: what the bundled server really sent.
std::vector<std::string> traced_values(const std::vector<conformance::case_result>& results,
                                       const std::string& key) {
  std::vector<std::string> values;
  const std::string opening = "\"" + key + "\":\"";
  for (const auto& r : results) {
    const std::string text = r.trace.dump();
    for (auto at = text.find(opening); at != std::string::npos; at = text.find(opening, at + 1)) {
      const auto from = at + opening.size();
      values.push_back(text.substr(from, text.find('"', from) - from));
    }
  }
  return values;
}

void check_all_pass(const std::vector<conformance::case_result>& results, std::string_view name) {
  std::size_t passed = 0;
  for (const auto& r : results) {
    // Every line of evidence, not the first: an expectation that failed because a request
    // timed out on a loaded machine shows the transport error only further down.
    std::string evidence;
    for (const auto& item : r.evidence)
      evidence.append(item.text()).append("\n");
    INFO(name << ": " << r.id << "\n" << evidence);
    CHECK(r.verdict != conformance::verdict::fail);
    CHECK(r.verdict != conformance::verdict::warn);
    if (r.verdict == conformance::verdict::pass) ++passed;
    // The browser cases open tabs, which this run does not (browser_scenarios.sh does).
    if (r.not_applicable_because == conformance::no_browser_reason) ++passed;
  }
  // No empty proof: the bundled server applies to every case.
  INFO(name);
  CHECK(passed == results.size());
}

}  // namespace

// Hidden from the default run (a minute or more each); CTest runs them as
// `conformance_variations` and, those tagged [slow] or [real-clock], as
// `conformance_variations_wall_clock` (tests/CMakeLists.txt).
// Tagged [each-variation]: the sanitized stage runs the all-at-once case below instead
// (one catalog run that meets every wire form), tests/CMakeLists.txt.
// Tagged [slow]: a slow variation's lag is waited out by a quiet time on the wall clock
// (60 ms, bundled_reference.cpp), which a loaded machine can outlast, so those runs take
// the `wall_clock` lock; the others wait for what the target owes by name.
namespace {
void check_each_variation(bool slow) {
  namespace real = toolwire::conformance_test;
  for (const auto& info : variations::all_variations()) {
    if (real::is_slow({info.id}) != slow) continue;
    DYNAMIC_SECTION(info.name) {
      check_all_pass(run_catalog({info.id}), info.name);
    }
  }
}
}  // namespace

TEST_CASE("the catalog passes over HTTP against each variation that is not slow",
          "[.variations][catalog][http][each-variation]") {
  check_each_variation(false);
}

TEST_CASE("the catalog passes over HTTP against each slow variation",
          "[.variations][catalog][http][each-variation][slow]") {
  check_each_variation(true);
}

// On a real clock: each slow variation alone, the others together, then all at once.
// Why the others not one by one: they change the wire's form (fields, ids, framing, texts,
// orders), not its timing; each is proved alone on the virtual clock above, and on a real
// clock their forms all meet in one run (short timeouts, a few seconds), where one by one
// they cost CI a minute and a half.
TEST_CASE(
    "the catalog passes on a real clock against each slow variation, the others "
    "together, and all at once",
    "[.variations][catalog][http][real-clock]") {
  auto loaded = conformance::load_catalog(conformance::default_catalog_dir());
  if (!loaded) FAIL(loaded.error().message);
  namespace real = toolwire::conformance_test;
  variations::variation_set all;
  variations::variation_set not_slow;
  for (const auto& info : variations::all_variations()) {
    all.insert(info.id);
    if (!real::is_slow({info.id})) {
      not_slow.insert(info.id);
      continue;
    }
    DYNAMIC_SECTION(info.name) {
      const auto results =
          real::run_with_reruns(*loaded, real::bundled_real_clock({info.id}), info.name);
      real::check_real_clock_results(results, info.name);
    }
  }
  REQUIRE(not_slow.size() >= 12);
  SECTION("every variation that is not slow, at once") {
    const auto results =
        real::run_with_reruns(*loaded, real::bundled_real_clock(not_slow), "not slow");
    real::check_real_clock_results(results, "every variation that is not slow");
  }
  // All at once, the slow ones included (so at their 1000/3000/4000 ms): the window and
  // the waiting hold when every slowness adds up (bench/run_suite_bench --real-clock-runs
  // N --slow repeats the slow ones alone, under load).
  SECTION("all variations at once") {
    const auto results = real::run_with_reruns(*loaded, real::bundled_real_clock(all), "all");
    real::check_real_clock_results(results, "all variations at once");
  }
}

TEST_CASE("the catalog passes over HTTP against all variations at once",
          "[.variations][catalog][http][slow]") {
  variations::variation_set all;
  for (const auto& info : variations::all_variations())
    all.insert(info.id);
  const auto results = run_catalog(all);
  check_all_pass(results, "all variations");
  // Not an empty proof: the bundled server did vary.
  CHECK_FALSE(traced_values(results, "note").empty());  // extra_fields' x_extra
  const auto client_ids = traced_values(results, "client_id");
  REQUIRE_FALSE(client_ids.empty());
  for (const auto& id : client_ids) {
    INFO(id);
    CHECK(std::regex_match(id, uuid_form));
  }
}
