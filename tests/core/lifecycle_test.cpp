// The life-cycle tables of reference_server/src/lifecycle.hpp, walked: every transition of
// each table is reached through the core's public commands (the router, as in the other
// core tests), and every (state, event) pair the table does not list is refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "core/core_test_support.hpp"
#include "lifecycle.hpp"

using namespace toolwire::core_test;
namespace lc = toolwire::reference_server::detail;

namespace {

template <typename Event>
using status_of = lc::status_of<Event>;

//! One transition driven through the public interface: `run` takes a fresh core from
//! `from` through `on` and returns the status the core then shows.
template <typename Event>
struct walk {
  status_of<Event> from;
  Event on;
  std::function<status_of<Event>()> run;
};

template <typename Status, typename Event>
std::string describe(const lc::transition<Status, Event>& row) {
  return std::string(lc::life_cycle<Event>::name) + ": " + std::string(lc::to_string(row.from)) +
         " --" + std::string(lc::to_string(row.on)) + "--> " + std::string(lc::to_string(row.to));
}

//! Runs the walk of every row of the table, and checks that no walk is left without a row.
template <typename Event>
void walk_every_transition(const std::vector<walk<Event>>& walks) {
  const auto& table = lc::life_cycle<Event>::table;
  CHECK(walks.size() == table.size());
  for (const auto& row : table) {
    INFO(describe(row));
    auto found = std::find_if(walks.begin(), walks.end(), [&](const walk<Event>& w) {
      return w.from == row.from && w.on == row.on;
    });
    REQUIRE(found != walks.end());
    CHECK(std::string(lc::to_string(found->run())) == std::string(lc::to_string(row.to)));
  }
}

//! `values` must be every enumerator, in declaration order. Why the last check: the value
//! after the last one listed has no name, so a status or event added to lifecycle.hpp but
//! not here fails this test instead of escaping it.
template <typename Enum, std::size_t N>
void require_every_value(const std::array<Enum, N>& values) {
  for (std::size_t i = 0; i < N; ++i)
    REQUIRE(static_cast<std::size_t>(values[i]) == i);
  REQUIRE(std::string(lc::to_string(static_cast<Enum>(N))) == "unknown");
}

//! Every (state, event) pair: a listed one is allowed, once; any other is refused by the
//! table, and `move` throws illegal_transition naming it and leaves the status as it was.
template <typename Event, std::size_t S, std::size_t E>
void check_refusals(const std::array<status_of<Event>, S>& statuses,
                    const std::array<Event, E>& events) {
  require_every_value(statuses);
  require_every_value(events);
  const auto& table = lc::life_cycle<Event>::table;
  for (const auto from : statuses) {
    for (const auto on : events) {
      const std::string from_name(lc::to_string(from));
      const std::string on_name(lc::to_string(on));
      CAPTURE(from_name, on_name);
      const auto rows = std::count_if(table.begin(), table.end(), [&](const auto& row) {
        return row.from == from && row.on == on;
      });
      CHECK(rows <= 1);  // one answer per pair
      if (rows == 1) {
        CHECK(lc::allows(from, on));
        continue;
      }
      CHECK_FALSE(lc::next_status(from, on).has_value());
      auto current = from;
      CHECK_THROWS_AS(lc::move(current, on), lc::illegal_transition);
      CHECK_THROWS_WITH(lc::move(current, on), std::string(lc::life_cycle<Event>::name) +
                                                   ": no transition from " + from_name + " on " +
                                                   on_name);
      CHECK(current == from);
    }
  }
}

// -- calls ------------------------------------------------------------------------------

//! A session with client `app` (tools read, write) and a turn whose first step calls
//! app__read; the call id in `call`.
struct call_walk_fixture : session_fixture {
  std::string app;
  std::string call;

  explicit call_walk_fixture(const json& lifetime = core_harness::never()) {
    app = add("app", {"read", "write"}, lifetime)["client_id"];
    auto ids = turn_with_calls({{"app__read", json::object()}});
    REQUIRE(ids.size() == 1);
    call = ids[0];
  }

  void ack_ok() { REQUIRE(ack(app, call).status == 200); }

  //! The call's status as the public interface shows it: its settlement event, or for an
  //! open call whether it outlives its ack deadline (an acked one does). Moves the clock,
  //! so it comes last.
  lc::call_status observed() {
    if (find("client_tool_completed", {{"call_id", call}})) return lc::call_status::completed;
    if (find("client_tool_failed", {{"call_id", call}})) return lc::call_status::failed;
    h.advance(h.core().config().ack_timeout_ms);
    return find("client_tool_failed", {{"call_id", call}, {"reason", "ack_timeout"}})
               ? lc::call_status::dispatched
               : lc::call_status::acked;
  }

  //! CALL-6: a settled call of a live client answers an ack and a result with 409.
  void check_settled_answers_409() {
    CHECK(ack(app, call).status == 409);
    CHECK(content(app, call, "late").status == 409);
  }

  //! The reason of the call's client_tool_failed event.
  std::string failure_reason() {
    auto failed = find("client_tool_failed", {{"call_id", call}});
    REQUIRE(failed);
    return failed->data["reason"];
  }
};

//! TOOLS-5: the model calls app__read after a PUT withdrew it; returns the failed call's id.
std::string unavailable_call(session_fixture& f, const std::string& app) {
  f.start_turn();
  auto step = f.step();
  REQUIRE(f.put_tools(app, tool_list({"write"})).status == 200);
  REQUIRE(f.answer_calls(step, {{"app__read", json::object()}}).empty());
  auto failed = f.find("client_tool_failed", {{"reason", "tool_unavailable"}});
  REQUIRE(failed);
  return failed->data["call_id"];
}

std::vector<walk<lc::call_event>> call_walks() {
  using lc::call_event;
  using lc::call_status;
  return {
      {call_status::dispatched, call_event::acked,
       [] {
         call_walk_fixture f;
         f.ack_ok();
         return f.observed();
       }},
      {call_status::acked, call_event::acked,
       [] {
         call_walk_fixture f;
         f.ack_ok();
         f.ack_ok();  // CALL-6: a repeated ack of an open call is 200
         return f.observed();
       }},
      {call_status::dispatched, call_event::result_posted,
       [] {
         call_walk_fixture f;
         REQUIRE(f.content(f.app, f.call, "r").status == 200);
         f.check_settled_answers_409();
         return f.observed();
       }},
      {call_status::acked, call_event::result_posted,
       [] {
         call_walk_fixture f;
         f.ack_ok();
         REQUIRE(f.content(f.app, f.call, "r").status == 200);
         f.check_settled_answers_409();
         return f.observed();
       }},
      {call_status::dispatched, call_event::deadline_passed,
       [] {
         call_walk_fixture f;
         f.h.advance(f.h.core().config().ack_timeout_ms);
         CHECK(f.failure_reason() == "ack_timeout");
         f.check_settled_answers_409();
         return f.observed();
       }},
      {call_status::acked, call_event::deadline_passed,
       [] {
         call_walk_fixture f;
         f.ack_ok();
         f.h.advance(f.h.core().config().result_timeout_ms);
         CHECK(f.failure_reason() == "result_timeout");
         f.check_settled_answers_409();
         return f.observed();
       }},
      {call_status::dispatched, call_event::client_gone,
       [] {
         call_walk_fixture f;
         REQUIRE(f.remove(f.app).status == 204);
         CHECK(f.failure_reason() == "client_left");
         return f.observed();
       }},
      {call_status::acked, call_event::client_gone,
       [] {
         call_walk_fixture f(core_harness::ttl(5));
         f.ack_ok();
         f.h.advance(5'000);
         CHECK(f.failure_reason() == "client_expired");
         return f.observed();
       }},
      {call_status::dispatched, call_event::tool_unavailable,
       [] {
         session_fixture f;
         const std::string app = f.add("app", {"read", "write"})["client_id"];
         const std::string call = unavailable_call(f, app);
         CHECK(f.events("client_tool_dispatched").empty());
         CHECK(f.ack(app, call).status == 409);
         CHECK(f.content(app, call, "late").status == 409);
         return lc::call_status::failed;  // its only event is the failure: it settled at once
       }},
  };
}

// -- tasks ------------------------------------------------------------------------------

json task_body() {
  return {{"assistant_id", 1},
          {"input", {{{"type", "text"}, {"text", "find it"}}}},
          {"client_tools", {{{"name", "locate"}, {"description", "where the user is"}}}}};
}

//! A harness with one task; its status is what GET shows (TASK-2).
struct task_walk_fixture {
  core_harness h;
  std::string uuid;
  std::string created_status;

  explicit task_walk_fixture(
      toolwire::reference_server::core_config config = toolwire::testing::default_config())
      : h(std::move(config)) {
    auto created = h.request("POST", "/api/tasks", task_body());
    REQUIRE(created.status == 201);
    uuid = created.body["uuid"];
    created_status = created.body["status"];
  }

  json get() {
    auto response = h.request("GET", "/api/tasks/" + uuid);
    REQUIRE(response.status == 200);
    return response.body;
  }
  lc::task_status observed() {
    const std::string status = get()["status"];
    for (auto s :
         {lc::task_status::pending, lc::task_status::processing, lc::task_status::interrupted,
          lc::task_status::completed, lc::task_status::failed}) {
      if (lc::to_string(s) == status) return s;
    }
    FAIL("unknown task status " << status);
    return lc::task_status::pending;
  }
  void call_locate() {
    toolwire::protocol::model_answer answer;
    answer.tool_calls.push_back({"m1", "locate", "{}"});
    h.answer(h.next_model_step().step_id, answer);
    REQUIRE(get()["status"] == "interrupted");
  }
  std::string error_reason() { return get()["error"]["reason"]; }
};

std::vector<walk<lc::task_event>> task_walks() {
  using lc::task_event;
  using lc::task_status;
  return {
      {task_status::pending, task_event::step_requested,
       [] {
         task_walk_fixture f;
         CHECK(f.created_status == "pending");  // TASK-1: the 201 shows the birth status
         CHECK(f.h.has_model_step());
         return f.observed();
       }},
      {task_status::processing, task_event::tool_calls,
       [] {
         task_walk_fixture f;
         f.call_locate();
         return f.observed();
       }},
      {task_status::interrupted, task_event::tool_results,
       [] {
         task_walk_fixture f;
         f.call_locate();
         const std::string id = f.get()["pending_tool_calls"][0]["id"];
         auto submitted = f.h.request("POST", "/api/tasks/" + f.uuid + "/tool-results",
                                      {{"tool_results", {{{"id", id}, {"content", "at home"}}}}});
         REQUIRE(submitted.status == 200);
         return f.observed();
       }},
      {task_status::processing, task_event::text_answer,
       [] {
         task_walk_fixture f;
         f.h.answer_text(f.h.next_model_step().step_id, "found");
         return f.observed();
       }},
      {task_status::processing, task_event::model_failed,
       [] {
         task_walk_fixture f;
         f.h.fail_model(f.h.next_model_step().step_id, "HTTP 502");
         CHECK(f.error_reason() == "model_error");
         return f.observed();
       }},
      {task_status::processing, task_event::step_limit_reached,
       [] {
         auto config = toolwire::testing::default_config();
         config.max_model_steps = 0;  // the first step is already one too many
         task_walk_fixture f(config);
         CHECK(f.error_reason() == "max_steps_exceeded");
         return f.observed();
       }},
      {task_status::interrupted, task_event::interrupt_deadline_passed,
       [] {
         task_walk_fixture f;
         f.call_locate();
         f.h.advance(f.h.core().config().interrupt_timeout_ms);
         CHECK(f.error_reason() == "tool_results_timeout");
         return f.observed();
       }},
  };
}

// -- turns ------------------------------------------------------------------------------

//! A session with client `app` (tool read) and a started turn.
struct turn_walk_fixture : session_fixture {
  std::string app;
  std::string turn;

  explicit turn_walk_fixture(
      toolwire::reference_server::core_config config = toolwire::testing::default_config())
      : session_fixture(std::move(config)) {
    app = add("app", {"read"})["client_id"];
    turn = start_turn();
  }

  //! The turn's status as the public interface shows it, for the statuses that outlive a
  //! command: its end event, a model step in flight, or else (a second message is 409,
  //! SES-2) its calls awaited.
  lc::turn_status observed() {
    if (find("turn_completed", {{"turn_id", turn}})) return lc::turn_status::completed;
    if (find("turn_failed", {{"turn_id", turn}})) return lc::turn_status::failed;
    if (h.has_model_step()) return lc::turn_status::awaiting_model;
    REQUIRE(message("meanwhile").status == 409);
    return lc::turn_status::awaiting_calls;
  }
  std::string failure_reason() {
    auto failed = find("turn_failed", {{"turn_id", turn}});
    REQUIRE(failed);
    return failed->data["reason"];
  }
};

toolwire::reference_server::core_config with_max_steps(std::size_t steps) {
  auto config = toolwire::testing::default_config();
  config.max_model_steps = steps;
  return config;
}

// Why some walks return a status they do not probe: dispatching and settled never outlive
// the command that enters them (lifecycle.hpp). Those walks check what only that status
// produces, inside that command: the answer's calls going out one by one (dispatching),
// and the next step waiting for every timer of the instant (settled).
std::vector<walk<lc::turn_event>> turn_walks() {
  using lc::turn_event;
  using lc::turn_status;
  return {
      {turn_status::started, turn_event::step_requested,
       [] {
         turn_walk_fixture f;
         return f.observed();
       }},
      {turn_status::settled, turn_event::step_requested,
       [] {
         turn_walk_fixture f;
         auto ids = f.answer_calls(f.step(), {{"app__read", json::object()}});
         REQUIRE(ids.size() == 1);
         REQUIRE(f.content(f.app, ids[0], "r").status == 200);
         return f.observed();
       }},
      {turn_status::started, turn_event::step_limit_reached,
       [] {
         turn_walk_fixture f(with_max_steps(0));
         CHECK(f.failure_reason() == "max_steps_exceeded");
         return f.observed();
       }},
      {turn_status::settled, turn_event::step_limit_reached,
       [] {
         turn_walk_fixture f(with_max_steps(1));
         auto ids = f.answer_calls(f.step(), {{"app__read", json::object()}});
         REQUIRE(ids.size() == 1);
         REQUIRE(f.content(f.app, ids[0], "r").status == 200);
         CHECK(f.failure_reason() == "max_steps_exceeded");
         return f.observed();
       }},
      {turn_status::awaiting_model, turn_event::text_answer,
       [] {
         turn_walk_fixture f;
         f.h.answer_text(f.step().step_id, "done");
         return f.observed();
       }},
      {turn_status::awaiting_model, turn_event::model_failed,
       [] {
         turn_walk_fixture f;
         f.h.fail_model(f.step().step_id, "connection refused");
         CHECK(f.failure_reason() == "model_error: connection refused");
         return f.observed();
       }},
      {turn_status::awaiting_model, turn_event::tool_calls,
       [] {
         // Both calls of the answer settle at once (TOOLS-5), the last one while the
         // answer is still being dispatched: the turn asks one next step, not one per
         // settlement, because it moves on only once dispatching is over.
         turn_walk_fixture f;
         f.h.answer_calls(f.step().step_id,
                          {{"ghost__read", json::object()}, {"ghost__write", json::object()}});
         CHECK(f.events("client_tool_dispatched").empty());
         CHECK(core_harness::tool_messages(f.step()).size() == 2);
         CHECK_FALSE(f.h.has_model_step());
         return turn_status::dispatching;
       }},
      {turn_status::dispatching, turn_event::calls_resolved,
       [] {
         turn_walk_fixture f;
         REQUIRE(f.answer_calls(f.step(), {{"app__read", json::object()}}).size() == 1);
         return f.observed();
       }},
      {turn_status::awaiting_calls, turn_event::calls_settled,
       [] {
         // The call fails at its ack deadline while client b expires at the same instant:
         // the settled turn asks its next step only after that instant, so the step does
         // not offer b (TOOLS-3 at LIFE-3).
         turn_walk_fixture f;
         auto ids = f.answer_calls(f.step(), {{"app__read", json::object()}});
         REQUIRE(ids.size() == 1);
         f.add("b", {"z"}, core_harness::ttl(10));  // expires at the ack deadline
         f.h.advance(f.h.core().config().ack_timeout_ms);
         auto gone = f.find("client_unregistered", {{"reason", "expired"}});
         REQUIRE(gone);
         auto next = f.step();
         CHECK(next.after_seq >= gone->seq);
         CHECK(core_harness::offered_names(next) == std::vector<std::string>{"app__read"});
         return turn_status::settled;
       }},
  };
}

// -- clients ----------------------------------------------------------------------------

//! A session with one client `app`; its status is what a ping and the stream show.
struct client_walk_fixture : session_fixture {
  std::string app;

  explicit client_walk_fixture(const json& lifetime) {
    app = add("app", {}, lifetime)["client_id"];
  }

  lc::client_status observed() {
    if (ping(app).status == 200) return lc::client_status::live;
    auto gone = find("client_unregistered", {{"client_id", app}});
    REQUIRE(gone);
    return gone->data["reason"] == "left" ? lc::client_status::left : lc::client_status::expired;
  }
};

std::vector<walk<lc::client_event>> client_walks() {
  using lc::client_event;
  using lc::client_status;
  return {
      {client_status::live, client_event::deleted,
       [] {
         client_walk_fixture f(core_harness::never());
         REQUIRE(f.remove(f.app).status == 204);
         CHECK(f.remove(f.app).status == 404);  // LIFE-4
         return f.observed();
       }},
      {client_status::live, client_event::ttl_lapsed,
       [] {
         client_walk_fixture f(core_harness::ttl(5));
         f.h.advance(5'000);
         CHECK(f.remove(f.app).status == 404);  // LIFE-4
         return f.observed();
       }},
  };
}

}  // namespace

TEST_CASE("life cycle of a call: the table, walked", "[core][lifecycle]") {
  using lc::call_event;
  using lc::call_status;
  SECTION("CALL-3..6, TOOLS-5 every transition is reached through the public interface") {
    walk_every_transition(call_walks());
  }
  SECTION("CALL-6 every other (state, event) pair is refused") {
    check_refusals<call_event>(
        std::array{call_status::dispatched, call_status::acked, call_status::completed,
                   call_status::failed},
        std::array{call_event::acked, call_event::result_posted, call_event::deadline_passed,
                   call_event::client_gone, call_event::tool_unavailable});
  }
}

TEST_CASE("life cycle of a task: the table, walked", "[core][lifecycle]") {
  using lc::task_event;
  using lc::task_status;
  SECTION("TASK-5 every transition is reached through the public interface") {
    walk_every_transition(task_walks());
  }
  SECTION("TASK-5 every other (state, event) pair is refused") {
    check_refusals<task_event>(
        std::array{task_status::pending, task_status::processing, task_status::interrupted,
                   task_status::completed, task_status::failed},
        std::array{task_event::step_requested, task_event::tool_calls, task_event::tool_results,
                   task_event::text_answer, task_event::model_failed,
                   task_event::step_limit_reached, task_event::interrupt_deadline_passed});
  }
}

TEST_CASE("life cycle of a turn: the table, walked", "[core][lifecycle]") {
  using lc::turn_event;
  using lc::turn_status;
  SECTION("Section 6 every transition is reached through the public interface") {
    walk_every_transition(turn_walks());
  }
  SECTION("Section 6 every other (state, event) pair is refused") {
    check_refusals<turn_event>(
        std::array{turn_status::started, turn_status::awaiting_model, turn_status::dispatching,
                   turn_status::awaiting_calls, turn_status::settled, turn_status::completed,
                   turn_status::failed},
        std::array{turn_event::step_requested, turn_event::step_limit_reached,
                   turn_event::text_answer, turn_event::model_failed, turn_event::tool_calls,
                   turn_event::calls_resolved, turn_event::calls_settled});
  }
}

TEST_CASE("life cycle of a client: the table, walked", "[core][lifecycle]") {
  using lc::client_event;
  using lc::client_status;
  SECTION("LIFE-1..4 every transition is reached through the public interface") {
    walk_every_transition(client_walks());
  }
  SECTION("LIFE-4 every other (state, event) pair is refused") {
    check_refusals<client_event>(
        std::array{client_status::live, client_status::left, client_status::expired},
        std::array{client_event::deleted, client_event::ttl_lapsed});
  }
}
