// Tests for the route table (protocol/routes.hpp): every part that serves, sends or reads a
// request asks it, so a wrong row here is a wrong route everywhere.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "toolwire/protocol/routes.hpp"

using namespace toolwire::protocol;

TEST_CASE("route_of finds each route's own row", "[routes]") {
  std::set<std::string> seen;
  for (const auto& route : routes()) {
    CAPTURE(route.pattern);
    CHECK(&route_of(route.id) == &route);
    // One row per method and path: a second would never be reached.
    CHECK(seen.insert(std::string(route.method) + " " + std::string(route.pattern)).second);
    CHECK_FALSE(route.rules.empty());
  }
  CHECK(routes().size() == 14);
}

TEST_CASE("match_route reads SPEC's paths and their ids", "[routes]") {
  SECTION("REG-1: a registration carries its session") {
    const auto found = match_route("POST", "/v1/sessions/s1/clients");
    REQUIRE(found);
    CHECK(found->route->id == route_id::register_client);
    CHECK(found->ids == std::vector<std::string>{"s1"});
  }
  SECTION("CALL-4: a result carries session, client and call, in that order") {
    const auto found = match_route("POST", "/v1/sessions/s1/clients/c1/calls/k9/result");
    REQUIRE(found);
    CHECK(found->route->id == route_id::post_result);
    CHECK(found->ids == std::vector<std::string>{"s1", "c1", "k9"});
  }
  SECTION("TASK-2 and TASK-4: a task's routes carry its uuid") {
    CHECK(match_route("GET", "/api/tasks/u1")->route->id == route_id::get_task);
    CHECK(match_route("POST", "/api/tasks/u1/tool-results")->ids == std::vector<std::string>{"u1"});
    CHECK(match_route("POST", "/api/tasks")->route->id == route_id::create_task);
  }
  SECTION("an id is never empty, and the method counts") {
    CHECK_FALSE(match_route("POST", "/v1/sessions//clients"));
    CHECK_FALSE(match_route("GET", "/v1/sessions/s1/clients"));
    CHECK_FALSE(match_route("POST", "/v1/sessions/s1/clients/"));
    CHECK_FALSE(match_route("POST", "/v1/sessions/s1"));
    CHECK_FALSE(match_route("GET", "/api/tasks/u1/extra"));
  }
  SECTION("a path of many segments fits no route, whatever it starts with") {
    // The longest route and then some: every path below is longer than any pattern.
    std::string path = "/v1/sessions/s1/clients/c1/calls/k9/result";
    for (int i = 0; i < 40; ++i) {
      path += "/x";
      INFO(path);
      CHECK_FALSE(match_route("POST", path));
      CHECK_FALSE(match_route("DELETE", path));
      CHECK(methods_at(path).empty());
    }
    CHECK(under_a_session(path));
  }
}

TEST_CASE("methods_at lists what a 405 allows, in table order", "[routes]") {
  CHECK(methods_at("/v1/sessions/s1/clients/c1") == std::vector<std::string_view>{"DELETE"});
  CHECK(methods_at("/v1/sessions") == std::vector<std::string_view>{"POST"});
  CHECK(methods_at("/v1/_test/clock") == std::vector<std::string_view>{"GET"});
  CHECK(methods_at("/nowhere").empty());
}

TEST_CASE("route_path writes what match_route reads", "[routes]") {
  CHECK(route_path(route_id::ping, {"s1", "c1"}) == "/v1/sessions/s1/clients/c1/ping");
  CHECK(route_path(route_id::create_session) == "/v1/sessions");
  CHECK(route_path(route_id::post_tool_results, {"u1"}) == "/api/tasks/u1/tool-results");
  CHECK(route_shown(route_id::post_message) == "POST /v1/sessions/{sid}/messages");
  for (const auto& route : routes()) {
    CAPTURE(route.pattern);
    const auto path = route_path(route.id, {"a1", "b2", "c3"});
    const auto found = match_route(route.method, path);
    REQUIRE(found);
    CHECK(found->route->id == route.id);
  }
}

TEST_CASE(
    "what a success implies: the events of REG-9, LIFE-4, CALL-4 and the model work of "
    "SES-2, TASK-1, TASK-4",
    "[routes]") {
  std::set<route_id> implying_events, starting_model_work;
  for (const auto& route : routes()) {
    if (route.implies_event_on != 0) implying_events.insert(route.id);
    if (route.starts_model_work_on != 0) starting_model_work.insert(route.id);
  }
  CHECK(implying_events == std::set<route_id>{route_id::register_client, route_id::delete_client,
                                              route_id::post_result});
  CHECK(starting_model_work == std::set<route_id>{route_id::post_message, route_id::create_task,
                                                  route_id::post_tool_results});
  CHECK(route_of(route_id::post_message).starts_model_work_on == 202);
  CHECK(route_of(route_id::delete_client).implies_event_on == 204);
}
