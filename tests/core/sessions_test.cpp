// Core tests of SPEC section 2, sessions and the event stream: SES-1, SES-3, SES-4, SES-5.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/core_test_support.hpp"

using namespace toolwire::core_test;
using toolwire::reference_server::event_window;

namespace {

//! Emits `n` events in the session (tool-list updates of one client).
void emit_updates(session_fixture& f, const std::string& cid, int n) {
  for (int i = 0; i < n; ++i)
    REQUIRE(f.put_tools(cid, tool_list({"t" + std::to_string(i)})).status == 200);
}

std::vector<std::uint64_t> seqs(const std::vector<session_event>& events) {
  std::vector<std::uint64_t> out;
  for (const auto& event : events)
    out.push_back(event.seq);
  return out;
}

std::vector<std::uint64_t> range(std::uint64_t first, std::uint64_t last) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t s = first; s <= last; ++s)
    out.push_back(s);
  return out;
}

}  // namespace

TEST_CASE("SES-1 creating a session", "[core][sessions]") {
  // SPEC SES-1: "POST /v1/sessions {} -> 201 {"id", "token"}."
  core_harness h;
  auto first = h.request("POST", "/v1/sessions", json::object());
  auto second = h.request("POST", "/v1/sessions", json::object());
  REQUIRE(first.status == 201);
  REQUIRE(second.status == 201);
  CHECK(first.body["id"].is_string());
  CHECK(first.body["token"].is_string());
  CHECK(first.body["id"] != second.body["id"]);
  CHECK(first.body["token"] != second.body["token"]);

  SECTION("SES-1 the token is the session's credential") {
    const std::string sid = first.body["id"];
    const std::string token = first.body["token"];
    CHECK(h.request("POST", h.clients_path(sid), {{"name", "a"}, {"lifetime", {{"type", "never"}}}},
                    token)
              .status == 201);
  }
  SECTION("SES-1 a body that is not an object is 400; malformed JSON is 400") {
    CHECK(h.request_raw("POST", "/v1/sessions", "[]").status == 400);
    CHECK(h.request_raw("POST", "/v1/sessions", "{").status == 400);
  }
  SECTION("SES-1 a new session starts with no events") {
    const std::string sid = first.body["id"];
    CHECK(h.events_of(sid).empty());
    CHECK(h.core().events_after(sid, 0).events.empty());
  }
}

TEST_CASE("SES-3 sequence numbers, resumption and gaps", "[core][sessions]") {
  // SPEC SES-3: "seq starts at 1 and grows by 1 per session. A stream opened without
  // Last-Event-ID starts with the events that happen after it opened. A stream opened with
  // Last-Event-ID: N first receives every retained event after N, in order, without gaps or
  // duplicates (0 asks for everything retained; at least the last 1024 events are retained;
  // a value that is not a non-negative integer is 400). If events after N are no longer
  // retained, the stream starts with a stream_gap {oldest_seq} event."
  session_fixture f;

  SECTION("SES-3 seq starts at 1 and grows by 1, per session") {
    const std::string other = f.h.create_session();
    const std::string cid = f.add("a", {"x"})["client_id"];
    f.h.register_client(other, "b", core_harness::never());
    emit_updates(f, cid, 3);
    f.h.register_client(other, "c", core_harness::never());
    f.start_turn();
    CHECK(seqs(f.events()) == range(1, 5));
    CHECK(seqs(f.h.events_of(other)) == range(1, 2));
  }
  SECTION("SES-3 a stream without Last-Event-ID starts after the current last event") {
    const std::string cid = f.add("a")["client_id"];
    emit_updates(f, cid, 2);
    auto opened = f.open_events();
    REQUIRE(opened.status == 200);
    REQUIRE(opened.stream);
    CHECK(opened.stream->after_seq == 3);
    CHECK(f.h.core().events_after(f.sid, opened.stream->after_seq).events.empty());
    emit_updates(f, cid, 1);
    CHECK(seqs(f.h.core().events_after(f.sid, opened.stream->after_seq).events) ==
          std::vector<std::uint64_t>{4});
  }
  SECTION("SES-3 Last-Event-ID N replays every retained event after N, in order") {
    const std::string cid = f.add("a")["client_id"];
    emit_updates(f, cid, 9);  // seq 1..10
    auto opened = f.open_events(admin_key, "4");
    REQUIRE(opened.status == 200);
    REQUIRE(opened.stream);
    CHECK(opened.stream->after_seq == 4);
    auto window = f.h.core().events_after(f.sid, 4);
    CHECK_FALSE(window.gap_oldest_seq);
    CHECK(seqs(window.events) == range(5, 10));
    // The replay is the same events as the live ones, not copies with other content.
    for (const auto& event : window.events) {
      CHECK(event.data == f.events().at(event.seq - 1).data);
      CHECK(event.type == f.events().at(event.seq - 1).type);
    }
  }
  SECTION("SES-3 Last-Event-ID 0 asks for everything retained") {
    const std::string cid = f.add("a")["client_id"];
    emit_updates(f, cid, 4);
    auto opened = f.open_events(admin_key, "0");
    REQUIRE(opened.stream);
    CHECK(opened.stream->after_seq == 0);
    auto window = f.h.core().events_after(f.sid, 0);
    CHECK_FALSE(window.gap_oldest_seq);
    CHECK(seqs(window.events) == range(1, 5));
  }
  SECTION("SES-3 Last-Event-ID at or beyond the last event replays nothing") {
    const std::string cid = f.add("a")["client_id"];
    emit_updates(f, cid, 2);
    CHECK(f.h.core().events_after(f.sid, 3).events.empty());
    CHECK_FALSE(f.h.core().events_after(f.sid, 3).gap_oldest_seq);
  }
  SECTION("SES-3 a Last-Event-ID that is not a non-negative integer is 400") {
    auto value = GENERATE(as<std::string>{}, "-1", "abc", "1.5", "", " 3", "3 ", "+3", "0x10",
                          "99999999999999999999999");
    CAPTURE(value);
    auto opened = f.open_events(admin_key, value);
    CHECK(opened.status == 400);
    CHECK(error_type(opened) == "invalid_request");
    CHECK_FALSE(opened.stream);
  }
  SECTION("SES-3 the default retention keeps at least the last 1024 events") {
    const std::string cid = f.add("a")["client_id"];
    emit_updates(f, cid, 1499);  // seq 1..1500
    auto window = f.h.core().events_after(f.sid, 1500 - 1024);
    CHECK_FALSE(window.gap_oldest_seq);
    CHECK(seqs(window.events) == range(1500 - 1024 + 1, 1500));
  }
}

TEST_CASE("SES-3 stream_gap when the events after N are no longer retained", "[core][sessions]") {
  auto config = toolwire::testing::default_config();
  config.event_retention = 5;
  session_fixture f(config);
  const std::string cid = f.add("a")["client_id"];
  emit_updates(f, cid, 11);  // seq 1..12; retained 8..12

  SECTION("SES-3 N before the oldest retained: gap with oldest_seq, then what is left") {
    auto window = f.h.core().events_after(f.sid, 3);
    REQUIRE(window.gap_oldest_seq);
    CHECK(*window.gap_oldest_seq == 8);
    CHECK(seqs(window.events) == range(8, 12));
  }
  SECTION("SES-3 N = 0 after events were dropped is a gap too") {
    auto window = f.h.core().events_after(f.sid, 0);
    REQUIRE(window.gap_oldest_seq);
    CHECK(*window.gap_oldest_seq == 8);
  }
  SECTION("SES-3 N = oldest - 1 is no gap: nothing after N was lost") {
    auto window = f.h.core().events_after(f.sid, 7);
    CHECK_FALSE(window.gap_oldest_seq);
    CHECK(seqs(window.events) == range(8, 12));
  }
  SECTION("SES-3 seq keeps growing by 1 while old events are dropped") {
    CHECK(seqs(f.events()) == range(1, 12));
    emit_updates(f, cid, 1);
    CHECK(f.events().back().seq == 13);
  }
}

TEST_CASE("SES-4 event types and their data", "[core][sessions]") {
  // SPEC SES-4 lists each event type with its data fields.
  session_fixture f;
  const auto registered = f.add("app", {"read", "write"}, core_harness::ttl(600));
  const std::string cid = registered["client_id"];
  const std::string leaver = f.add("leaver", {"x"})["client_id"];
  REQUIRE(f.put_tools(cid, tool_list({"read", "write", "more"})).status == 200);
  const std::string turn_id = f.start_turn();
  auto ids = f.answer_calls(f.step(), {{"app__read", {{"a", 1}}}, {"leaver__x", json::object()}});
  REQUIRE(ids.size() == 2);
  REQUIRE(f.content(cid, ids[0], "ok").status == 200);
  REQUIRE(f.remove(leaver).status == 204);
  f.h.answer_text(f.step().step_id, "bye");
  f.start_turn();
  f.h.fail_model(f.step().step_id, "boom");
  f.h.advance(600'000);

  auto keys_of = [](const json& data) {
    std::set<std::string> keys;
    for (const auto& [key, value] : data.items())
      keys.insert(key);
    return keys;
  };
  // C-6 allows extra fields; SES-4's fields must all be there with their values.
  auto has_keys = [&](const session_event& event, const std::set<std::string>& expected) {
    const auto keys = keys_of(event.data);
    for (const auto& key : expected) {
      CAPTURE(event.type, key);
      CHECK(keys.count(key) == 1);
    }
  };

  SECTION("SES-4 client_registered {client_id, name, requested_name}") {
    auto event = f.find("client_registered", {{"client_id", cid}});
    REQUIRE(event);
    has_keys(*event, {"client_id", "name", "requested_name"});
    CHECK(event->data["name"] == "app");
    CHECK(event->data["requested_name"] == "app");
  }
  SECTION("SES-4 client_tools_updated {client_id, tools: [names]}") {
    auto event = f.find("client_tools_updated");
    REQUIRE(event);
    CHECK(event->data["client_id"] == cid);
    CHECK(event->data["tools"] == json::array({"read", "write", "more"}));
  }
  SECTION("SES-4 client_unregistered {client_id, name, reason: left | expired}") {
    auto left = f.find("client_unregistered", {{"client_id", leaver}});
    REQUIRE(left);
    CHECK(left->data["name"] == "leaver");
    CHECK(left->data["reason"] == "left");
    auto expired = f.find("client_unregistered", {{"client_id", cid}});
    REQUIRE(expired);
    CHECK(expired->data["reason"] == "expired");
  }
  SECTION("SES-4 turn_started {turn_id}") {
    auto event = f.find("turn_started");
    REQUIRE(event);
    CHECK(event->data["turn_id"] == turn_id);
  }
  SECTION("SES-4 client_tool_dispatched {call_id, client_id, tool, arguments, turn_id}") {
    auto event = f.find("client_tool_dispatched", {{"call_id", ids[0]}});
    REQUIRE(event);
    has_keys(*event, {"call_id", "client_id", "tool", "arguments", "turn_id"});
    CHECK(event->data["arguments"] == json{{"a", 1}});
  }
  SECTION("SES-4 client_tool_completed {call_id, client_id, is_error}") {
    auto event = f.find("client_tool_completed", {{"call_id", ids[0]}});
    REQUIRE(event);
    CHECK(event->data["client_id"] == cid);
    CHECK(event->data["is_error"].is_boolean());
  }
  SECTION("SES-4 client_tool_failed {call_id, client_id, tool, reason}") {
    auto event = f.find("client_tool_failed", {{"call_id", ids[1]}});
    REQUIRE(event);
    CHECK(event->data["client_id"] == leaver);
    CHECK(event->data["tool"] == "x");
    CHECK(event->data["reason"] == "client_left");
  }
  SECTION("SES-4 turn_completed {turn_id, output}") {
    auto event = f.find("turn_completed");
    REQUIRE(event);
    CHECK(event->data["turn_id"] == turn_id);
    CHECK(event->data["output"] == "bye");
  }
  SECTION("SES-4 turn_failed {turn_id, reason}") {
    auto event = f.find("turn_failed");
    REQUIRE(event);
    CHECK(event->data["turn_id"].is_string());
    CHECK(event->data["reason"].is_string());
  }
  SECTION("SES-4 only the listed types appear") {
    const std::set<std::string> listed = {
        "client_registered",  "client_tools_updated",   "client_unregistered",
        "turn_started",       "client_tool_dispatched", "client_tool_completed",
        "client_tool_failed", "turn_completed",         "turn_failed"};
    for (const auto& event : f.events())
      CHECK(listed.count(event.type) == 1);
  }
}

TEST_CASE("SES-5 events appear in the order their causes happened", "[core][sessions]") {
  // SPEC SES-5: "every client_tool_dispatched precedes the settlement of that call, and every
  // settlement of a step's calls precedes the next client_tool_dispatched of that turn and
  // its turn_completed."
  session_fixture f;
  const std::string a = f.add("a", {"x", "y"})["client_id"];
  const std::string b = f.add("b", {"z"}, core_harness::ttl(20))["client_id"];
  f.start_turn();
  auto first = f.answer_calls(
      f.step(), {{"a__x", json::object()}, {"b__z", json::object()}, {"a__y", json::object()}});
  REQUIRE(first.size() == 3);
  REQUIRE(f.content(a, first[2], "y").status == 200);
  f.h.advance(10'000);  // first[0] and first[1]: ack_timeout
  auto second = f.answer_calls(f.step(), {{"a__x", json::object()}, {"b__z", json::object()}});
  REQUIRE(second.size() == 2);
  REQUIRE(f.ack(a, second[0]).status == 200);
  f.h.advance(10'000);  // b expires at 20 s: second[1] client_expired
  REQUIRE(f.content(a, second[0], "x").status == 200);
  f.h.answer_text(f.step().step_id, "done");

  const auto events = f.events();
  std::map<std::string, std::size_t> dispatched_at, settled_at;
  std::size_t completed_at = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const auto& e = events[i];
    if (e.type == "client_tool_dispatched") dispatched_at[e.data["call_id"]] = i;
    if (e.type == "client_tool_completed" || e.type == "client_tool_failed") {
      settled_at[e.data["call_id"]] = i;
    }
    if (e.type == "turn_completed") completed_at = i;
  }
  SECTION("SES-5 dispatch precedes settlement") {
    for (const auto& [call, at] : dispatched_at) {
      CAPTURE(call);
      REQUIRE(settled_at.count(call) == 1);
      CHECK(at < settled_at[call]);
    }
  }
  SECTION("SES-5 a step's settlements precede the next dispatch and turn_completed") {
    for (const auto& id : first) {
      for (const auto& next : second)
        CHECK(settled_at[id] < dispatched_at[next]);
    }
    for (const auto& [call, at] : settled_at)
      CHECK(at < completed_at);
    CHECK(completed_at == events.size() - 1);
  }
  SECTION("SES-5 event times never go backwards and the seq follows the order") {
    for (std::size_t i = 1; i < events.size(); ++i) {
      CHECK(events[i - 1].at <= events[i].at);
      CHECK(events[i].seq == events[i - 1].seq + 1);
    }
  }
  SECTION("SES-5 timeouts fire at their own instants, in time order") {
    CHECK(f.find("client_tool_failed", {{"call_id", first[0]}})->at == start_time + 10'000);
    CHECK(f.find("client_tool_failed", {{"call_id", second[1]}})->at == start_time + 20'000);
    CHECK(f.find("client_unregistered", {{"client_id", b}})->at == start_time + 20'000);
  }
}
