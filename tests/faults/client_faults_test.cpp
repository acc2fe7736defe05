// Fault tests for clients: registration checks (REG-3, REG-4, REG-8) and lifetimes
// (LIFE-1, LIFE-4).
#include <catch2/catch.hpp>

#include <string>

#include "faults/fault_contrast.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference::fault;

namespace {

//! POSTs a registration body; returns the status.
int register_status(core_harness& h, const std::string& sid, const json& body) {
  return h.request("POST", h.clients_path(sid), body).status;
}

}  // namespace

TEST_CASE("fault duplicate_tool_names_collapsed breaks REG-3", "[faults][REG-3]") {
  // REG-3: "Two tools with the same name in one list: 400."
  const auto seen =
      run_clean_and_faulty(fault::duplicate_tool_names_collapsed, [](core_harness& h) {
        const auto sid = h.create_session();
        const json twice = json::array(
            {core_harness::tool("read", "first"), core_harness::tool("read", "second")});
        const int registered = register_status(
            h, sid, {{"name", "web"}, {"lifetime", core_harness::never()}, {"tools", twice}});
        const auto task =
            h.request("POST", "/api/tasks",
                      {{"assistant_id", 1},
                       {"input", json::array({{{"type", "text"}, {"text", "hi"}}})},
                       {"client_tools", json::array({task_tool("locate"), task_tool("locate")})}});
        return json{{"register", registered},
                    {"registered_events", count_events(h, sid, "client_registered")},
                    {"task", task.status}};
      });
  CHECK(seen.clean == json{{"register", 400}, {"registered_events", 0}, {"task", 400}});
  CHECK(seen.faulty == json{{"register", 201}, {"registered_events", 1}, {"task", 201}});
}

TEST_CASE("fault client_name_unchecked breaks REG-4", "[faults][REG-4]") {
  // REG-4: "Client `name` follows the tool-name rule (1-64, `[A-Za-z0-9_-]`)."
  const auto seen = run_clean_and_faulty(fault::client_name_unchecked, [](core_harness& h) {
    const auto sid = h.create_session();
    const auto spaced = h.request("POST", h.clients_path(sid),
                                  {{"name", "my tab"}, {"lifetime", core_harness::never()}});
    const int too_long = register_status(
        h, sid, {{"name", std::string(65, 'a')}, {"lifetime", core_harness::never()}});
    const int not_a_string =
        register_status(h, sid, {{"name", 7}, {"lifetime", core_harness::never()}});
    return json{{"statuses", {spaced.status, too_long, not_a_string}},
                {"assigned", spaced.body.value("name", json(nullptr))}};
  });
  CHECK(seen.clean == json{{"statuses", {400, 400, 400}}, {"assigned", nullptr}});
  CHECK(seen.faulty == json{{"statuses", {201, 201, 400}}, {"assigned", "my tab"}});
}

TEST_CASE("fault ttl_upper_bound_unchecked breaks REG-8", "[faults][REG-8]") {
  // REG-8: "`ttl.seconds` is an integer from 1 to 86400; otherwise 400."
  const auto seen = run_clean_and_faulty(fault::ttl_upper_bound_unchecked, [](core_harness& h) {
    const auto sid = h.create_session();
    const auto above = h.request("POST", h.clients_path(sid),
                                 {{"name", "web"}, {"lifetime", core_harness::ttl(86401)}});
    const int zero = register_status(h, sid, {{"name", "app"}, {"lifetime", core_harness::ttl(0)}});
    json observed = {{"statuses", {above.status, zero}}};
    if (above.status == 201) {
      observed["expires_in_ms"] = above.body["expires_at_ms"].get<time_ms>() - h.now();
    }
    return observed;
  });
  CHECK(seen.clean == json{{"statuses", {400, 400}}});
  CHECK(seen.faulty == json{{"statuses", {201, 400}}, {"expires_in_ms", 86'401'000}});
}

TEST_CASE("fault never_client_given_default_ttl breaks LIFE-1", "[faults][LIFE-1]") {
  // LIFE-1: "`never`: the client lives until `DELETE ...`. Pings are accepted and change
  // nothing ([P] 200 `{"expires_at_ms": null}`)."
  const auto seen =
      run_clean_and_faulty(fault::never_client_given_default_ttl, [](core_harness& h) {
        const auto sid = h.create_session();
        const std::string cid =
            h.register_client(sid, "worker", core_harness::never())["client_id"];
        const auto ping = h.request("POST", h.client_path(sid, cid) + "/ping");
        h.advance(3'600'000);
        const auto later = h.request("POST", h.client_path(sid, cid) + "/ping");
        return json{{"first_ping", ping.body.value("expires_at_ms", json("absent"))},
                    {"ping_after_an_hour", later.status},
                    {"unregistered", count_events(h, sid, "client_unregistered")}};
      });
  CHECK(seen.clean ==
        json{{"first_ping", nullptr}, {"ping_after_an_hour", 200}, {"unregistered", 0}});
  CHECK(seen.faulty == json{{"first_ping", start_time + 30'000},
                            {"ping_after_an_hour", 404},
                            {"unregistered", 1}});
}

TEST_CASE("fault second_delete_accepted breaks LIFE-4", "[faults][LIFE-4]") {
  // LIFE-4: "When a client ends ... every later request on it is 404."
  const auto seen = run_clean_and_faulty(fault::second_delete_accepted, [](core_harness& h) {
    const auto sid = h.create_session();
    const std::string cid = h.register_client(sid, "web", core_harness::never())["client_id"];
    const auto first = h.request("DELETE", h.client_path(sid, cid));
    const auto second = h.request("DELETE", h.client_path(sid, cid));
    const auto ping = h.request("POST", h.client_path(sid, cid) + "/ping");
    return json{{"first", first.status}, {"second", second.status}, {"ping", ping.status}};
  });
  CHECK(seen.clean == json{{"first", 204}, {"second", 404}, {"ping", 404}});
  CHECK(seen.faulty == json{{"first", 204}, {"second", 204}, {"ping", 404}});
}
