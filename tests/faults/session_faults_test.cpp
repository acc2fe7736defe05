// Fault tests for sessions: authentication (AUTH-3), turns (SES-2) and the stream (SES-3).
#include <catch2/catch.hpp>

#include <string>

#include "faults/fault_contrast.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference_server::fault;

TEST_CASE("fault foreign_session_token_accepted breaks AUTH-3", "[faults][AUTH-3]") {
  // AUTH-3: "A session token grants nothing on any other session." AUTH-2: "A known
  // credential without access (another session's token ...): 403."
  const auto seen =
      run_clean_and_faulty(fault::foreign_session_token_accepted, [](core_harness& h) {
        const auto own = h.create_session();
        const auto other = h.create_session();
        const auto registered =
            h.request("POST", h.clients_path(other),
                      {{"name", "intruder"}, {"lifetime", core_harness::never()}}, h.token_of(own));
        const auto own_route =
            h.request("POST", h.clients_path(own),
                      {{"name", "web"}, {"lifetime", core_harness::never()}}, h.token_of(own));
        return json{{"other_session", registered.status},
                    {"other_registered", count_events(h, other, "client_registered")},
                    {"own_session", own_route.status}};
      });
  CHECK(seen.clean == json{{"other_session", 403}, {"other_registered", 0}, {"own_session", 201}});
  CHECK(seen.faulty == json{{"other_session", 201}, {"other_registered", 1}, {"own_session", 201}});
}

TEST_CASE("fault concurrent_turns_accepted breaks SES-2", "[faults][SES-2]") {
  // SES-2: "One turn at a time per session: a second while one runs is 409."
  const auto seen = run_clean_and_faulty(fault::concurrent_turns_accepted, [](core_harness& h) {
    const auto sid = h.create_session();
    start_turn(h, sid, "first");
    const auto second = h.request("POST", messages_path(sid), {{"content", "second"}});
    return json{{"second_message", second.status},
                {"turns_started", count_events(h, sid, "turn_started")}};
  });
  CHECK(seen.clean == json{{"second_message", 409}, {"turns_started", 1}});
  CHECK(seen.faulty == json{{"second_message", 202}, {"turns_started", 2}});
}

TEST_CASE("fault last_event_id_ignored breaks SES-3", "[faults][SES-3]") {
  // SES-3: "A stream opened with `Last-Event-ID: N` first receives every retained event
  // after N, in order, without gaps or duplicates."
  const auto seen = run_clean_and_faulty(fault::last_event_id_ignored, [](core_harness& h) {
    const auto sid = h.create_session();
    h.register_client(sid, "web", core_harness::never());  // seq 1
    h.register_client(sid, "app", core_harness::never());  // seq 2
    h.register_client(sid, "cli", core_harness::never());  // seq 3
    const auto opened = h.request("GET", events_path(sid), json(), admin_key, "1");
    REQUIRE(opened.status == 200);
    REQUIRE(opened.stream);
    json replayed = json::array();
    for (const auto& event : h.core().events_after(sid, opened.stream->after_seq).events) {
      replayed.push_back(event.seq);
    }
    return json{{"after_seq", opened.stream->after_seq}, {"replayed", replayed}};
  });
  CHECK(seen.clean == json{{"after_seq", 1}, {"replayed", {2, 3}}});
  CHECK(seen.faulty == json{{"after_seq", 3}, {"replayed", json::array()}});
}

TEST_CASE("fault event_seq_gaps breaks SES-3", "[faults][SES-3]") {
  // SES-3: "seq starts at 1 and grows by 1 per session."
  const auto seen = run_clean_and_faulty(fault::event_seq_gaps, [](core_harness& h) {
    const auto turn = dispatch_reads(h, 1);
    REQUIRE(post_content(h, turn, turn.calls[0], "done") == 200);
    json seqs = json::array();
    for (const auto& event : h.events_of(turn.sid))
      seqs.push_back(event.seq);
    return seqs;
  });
  // registered, turn_started, dispatched, completed, then the next step's events.
  CHECK(seen.clean == json::array({1, 2, 3, 4}));
  CHECK(seen.faulty == json::array({1, 2, 3, 5}));
}

TEST_CASE("fault last_event_id_beyond_latest_rejected breaks SES-3", "[faults][SES-3]") {
  // SES-3: "A stream opened with `Last-Event-ID: N` first receives every retained event
  // after N ... a value that is not a non-negative integer is 400." An N beyond the latest
  // event is a non-negative integer: the stream opens, with nothing to replay yet.
  const auto seen =
      run_clean_and_faulty(fault::last_event_id_beyond_latest_rejected, [](core_harness& h) {
        const auto sid = h.create_session();
        h.register_client(sid, "web", core_harness::never());  // seq 1
        h.register_client(sid, "app", core_harness::never());  // seq 2
        auto open = [&](const std::string& last_event_id) {
          const auto opened = h.request("GET", events_path(sid), json(), admin_key, last_event_id);
          return opened.stream ? json{opened.status, opened.stream->after_seq}
                               : json{opened.status, opened.body["error"]["type"]};
        };
        return json{{"latest", open("2")}, {"beyond", open("7")}};
      });
  CHECK(seen.clean == json{{"latest", {200, 2}}, {"beyond", {200, 2}}});
  CHECK(seen.faulty == json{{"latest", {200, 2}}, {"beyond", {400, "invalid_request"}}});
}

TEST_CASE("fault seq_skips_after_tools_update breaks SES-3", "[faults][SES-3]") {
  // SES-3: "`seq` starts at 1 and grows by 1 per session."
  const auto seen = run_clean_and_faulty(fault::seq_skips_after_tools_update, [](core_harness& h) {
    const auto sid = h.create_session();
    const std::string cid = h.register_client(sid, "web", core_harness::never())["client_id"];
    REQUIRE(h.request("PUT", h.client_path(sid, cid) + "/tools",
                      {{"tools", json::array({core_harness::tool("read")})}})
                .status == 200);
    h.register_client(sid, "app", core_harness::never());
    json seqs = json::array();
    for (const auto& event : h.events_of(sid))
      seqs.push_back(json{event.seq, event.type});
    return seqs;
  });
  CHECK(seen.clean ==
        json{{1, "client_registered"}, {2, "client_tools_updated"}, {3, "client_registered"}});
  CHECK(seen.faulty ==
        json{{1, "client_registered"}, {2, "client_tools_updated"}, {4, "client_registered"}});
}
