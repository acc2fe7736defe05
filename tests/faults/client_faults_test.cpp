// Fault tests for clients: registration checks (REG-3, REG-4, REG-8) and lifetimes
// (LIFE-1, LIFE-4).
#include <catch2/catch.hpp>

#include <string>

#include "faults/fault_contrast.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference_server::fault;

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

namespace {

//! A registration body for `web` with `tools`, changed by `changes`.
json registration(const json& tools, const json& changes = json::object()) {
  json body = {{"name", "web"}, {"lifetime", core_harness::never()}, {"tools", tools}};
  body.update(changes);
  return body;
}

json tool_with(const json& changes) {
  json tool = core_harness::tool("read");
  tool.update(changes);
  return tool;
}

}  // namespace

TEST_CASE("fault lifetime_defaults_to_never breaks REG-1", "[faults][REG-1]") {
  // REG-1: "[P] ... `name` and `lifetime` are required." Section 3: `never` or `ttl`.
  const auto seen = run_clean_and_faulty(fault::lifetime_defaults_to_never, [](core_harness& h) {
    const auto sid = h.create_session();
    return json{register_status(h, sid, {{"name", "web"}}),
                register_status(
                    h, sid, registration(json::array(), {{"lifetime", {{"type", "forever"}}}}))};
  });
  CHECK(seen.clean == json{400, 400});
  CHECK(seen.faulty == json{201, 201});
}

TEST_CASE("fault tool_fields_defaulted breaks REG-1", "[faults][REG-1]") {
  // REG-1: "[P] All three are required".
  const auto seen = run_clean_and_faulty(fault::tool_fields_defaulted, [](core_harness& h) {
    const auto sid = h.create_session();
    return json{register_status(h, sid, registration(json::array({{{"name", "read"}}}))),
                register_status(
                    h, sid, registration(json::array({{{"name", "read"}, {"description", "d"}}})))};
  });
  CHECK(seen.clean == json{400, 400});
  CHECK(seen.faulty == json{201, 201});
}

TEST_CASE("fault parameters_not_checked breaks REG-1", "[faults][REG-1]") {
  // REG-1: "`parameters` must be a JSON object whose `type`, if present, is `"object"`".
  const auto seen = run_clean_and_faulty(fault::parameters_not_checked, [](core_harness& h) {
    const auto sid = h.create_session();
    return json{
        register_status(h, sid, registration(json::array({tool_with({{"parameters", "any"}})}))),
        register_status(
            h, sid, registration(json::array({tool_with({{"parameters", {{"type", "array"}}}})})))};
  });
  CHECK(seen.clean == json{400, 400});
  CHECK(seen.faulty == json{201, 201});
}

TEST_CASE("fault parameters_type_required breaks REG-1", "[faults][REG-1]") {
  // REG-1: "`type`, if present, is `"object"`" — it may be absent.
  const auto seen = run_clean_and_faulty(fault::parameters_type_required, [](core_harness& h) {
    const auto sid = h.create_session();
    return register_status(
        h, sid, registration(json::array({tool_with({{"parameters", json::object()}})})));
  });
  CHECK(seen.clean == json(201));
  CHECK(seen.faulty == json(400));
}

TEST_CASE("fault empty_description_rejected breaks REG-1", "[faults][REG-1]") {
  // REG-1: "`description` of at most 4096 characters" — an empty one included.
  const auto seen = run_clean_and_faulty(fault::empty_description_rejected, [](core_harness& h) {
    const auto sid = h.create_session();
    return register_status(h, sid, registration(json::array({tool_with({{"description", ""}})})));
  });
  CHECK(seen.clean == json(201));
  CHECK(seen.faulty == json(400));
}

TEST_CASE("fault tools_required_at_registration breaks REG-1", "[faults][REG-1]") {
  // REG-1: "At registration `tools` may be omitted (an empty list)".
  const auto seen =
      run_clean_and_faulty(fault::tools_required_at_registration, [](core_harness& h) {
        const auto sid = h.create_session();
        return register_status(h, sid, {{"name", "web"}, {"lifetime", core_harness::never()}});
      });
  CHECK(seen.clean == json(201));
  CHECK(seen.faulty == json(400));
}

TEST_CASE("fault name_length_off_by_one breaks REG-1", "[faults][REG-1]") {
  // REG-1: "Each tool has `name` of 1-64 characters". REG-4: client names likewise.
  const auto seen = run_clean_and_faulty(fault::name_length_off_by_one, [](core_harness& h) {
    const auto sid = h.create_session();
    const std::string sixty_four(64, 'n');
    return json{
        register_status(h, sid, registration(json::array({core_harness::tool(sixty_four)}))),
        register_status(h, sid, registration(json::array(), {{"name", sixty_four}})),
        register_status(h, sid, registration(json::array({core_harness::tool("n")}))),
        register_status(h, sid, registration(json::array({core_harness::tool("nn")})))};
  });
  CHECK(seen.clean == json{201, 201, 201, 201});
  CHECK(seen.faulty == json{400, 400, 400, 201});
}

TEST_CASE("fault name_charset_without_dash breaks REG-1", "[faults][REG-1]") {
  // REG-1: "`name` of 1-64 characters from `[A-Za-z0-9_-]`".
  const auto seen = run_clean_and_faulty(fault::name_charset_without_dash, [](core_harness& h) {
    const auto sid = h.create_session();
    return json{
        register_status(h, sid, registration(json::array({core_harness::tool("pick-date")}))),
        register_status(h, sid, registration(json::array(), {{"name", "side-panel"}})),
        register_status(h, sid, registration(json::array({core_harness::tool("pick_date")})))};
  });
  CHECK(seen.clean == json{201, 201, 201});
  CHECK(seen.faulty == json{400, 400, 201});
}

TEST_CASE("fault schema_keywords_limited breaks REG-1", "[faults][REG-1]") {
  // REG-1: "`parameters`, a JSON Schema object describing the arguments".
  const auto seen = run_clean_and_faulty(fault::schema_keywords_limited, [](core_harness& h) {
    const auto sid = h.create_session();
    const json schema = {{"type", "object"},
                         {"properties", {{"field", {{"type", "string"}}}}},
                         {"required", {"field"}},
                         {"additionalProperties", false}};
    return json{
        register_status(h, sid, registration(json::array({tool_with({{"parameters", schema}})}))),
        register_status(h, sid, registration(json::array({core_harness::tool("read")})))};
  });
  CHECK(seen.clean == json{201, 201});
  CHECK(seen.faulty == json{400, 201});
}

TEST_CASE("fault non_object_tools_skipped breaks REG-1", "[faults][REG-1]") {
  // REG-1: "Anything else is rejected (400)."
  const auto seen = run_clean_and_faulty(fault::non_object_tools_skipped, [](core_harness& h) {
    const auto sid = h.create_session();
    return json{register_status(h, sid, registration(json::array({"read_form"}))),
                register_status(h, sid, registration("read_form")),
                register_status(h, sid, registration(json::array({nullptr})))};
  });
  CHECK(seen.clean == json{400, 400, 400});
  CHECK(seen.faulty == json{201, 201, 201});
}

TEST_CASE("fault long_description_truncated breaks REG-1", "[faults][REG-1]") {
  // REG-1: "`description` of at most 4096 characters ... Anything else is rejected (400)."
  const auto seen = run_clean_and_faulty(fault::long_description_truncated, [](core_harness& h) {
    const auto sid = h.create_session();
    const auto registered =
        h.request("POST", h.clients_path(sid),
                  registration(json::array({core_harness::tool("read", std::string(4097, 'd'))})));
    return json{
        {"status", registered.status},
        {"stored", registered.status == 201
                       ? registered.body["tools"][0]["description"].get<std::string>().size()
                       : 0}};
  });
  CHECK(seen.clean == json{{"status", 400}, {"stored", 0}});
  CHECK(seen.faulty == json{{"status", 201}, {"stored", 4096}});
}

TEST_CASE("fault description_limit_off_by_one breaks REG-2", "[faults][REG-2]") {
  // REG-2: "4096 Japanese characters are accepted, 4097 ASCII characters are not."
  const auto seen = run_clean_and_faulty(fault::description_limit_off_by_one, [](core_harness& h) {
    const auto sid = h.create_session();
    return json{
        register_status(
            h, sid,
            registration(json::array({core_harness::tool("read", std::string(4096, 'd'))}))),
        register_status(
            h, sid,
            registration(json::array({core_harness::tool("read", std::string(4095, 'd'))})))};
  });
  CHECK(seen.clean == json{201, 201});
  CHECK(seen.faulty == json{400, 201});
}

TEST_CASE("fault tool_names_unique_per_session breaks REG-3", "[faults][REG-3]") {
  // REG-3: "Two tools with the same name in one list: 400" — in one list, not across
  // clients (CALL-2 tells them apart by the client's name).
  const auto seen = run_clean_and_faulty(fault::tool_names_unique_per_session, [](core_harness& h) {
    const auto sid = h.create_session();
    h.register_client(sid, "editor", core_harness::never(),
                      json::array({core_harness::tool("save")}));
    return register_status(h, sid,
                           {{"name", "preview"},
                            {"lifetime", core_harness::never()},
                            {"tools", json::array({core_harness::tool("save")})}});
  });
  CHECK(seen.clean == json(201));
  CHECK(seen.faulty == json(400));
}

TEST_CASE("fault client_name_defaulted breaks REG-4", "[faults][REG-4]") {
  // REG-4 and REG-1: "[P] ... `name` and `lifetime` are required."
  const auto seen = run_clean_and_faulty(fault::client_name_defaulted, [](core_harness& h) {
    const auto sid = h.create_session();
    const auto registered =
        h.request("POST", h.clients_path(sid), {{"lifetime", core_harness::never()}});
    return json{{"status", registered.status},
                {"name", registered.body.value("name", json(nullptr))}};
  });
  CHECK(seen.clean == json{{"status", 400}, {"name", nullptr}});
  CHECK(seen.faulty == json{{"status", 201}, {"name", "client"}});
}

TEST_CASE("fault non_string_names_stringified breaks REG-4", "[faults][REG-4]") {
  // REG-4: "Client `name` follows the tool-name rule" — a string of [A-Za-z0-9_-].
  const auto seen = run_clean_and_faulty(fault::non_string_names_stringified, [](core_harness& h) {
    const auto sid = h.create_session();
    return json{
        register_status(h, sid, registration(json::array(), {{"name", 42}})),
        register_status(h, sid,
                        registration(json::array({tool_with({{"name", 7}})}), {{"name", "app"}}))};
  });
  CHECK(seen.clean == json{400, 400});
  CHECK(seen.faulty == json{201, 201});
}

TEST_CASE("fault name_counter_global breaks REG-5", "[faults][REG-5]") {
  // REG-5: "If a live client of the session already has the requested name, a counter is
  // appended" — of the session, not of the whole server.
  const auto seen = run_clean_and_faulty(fault::name_counter_global, [](core_harness& h) {
    const auto first = h.create_session();
    const auto second = h.create_session();
    h.register_client(first, "web", core_harness::never());
    return h.register_client(second, "web", core_harness::never())["name"];
  });
  CHECK(seen.clean == json("web"));
  CHECK(seen.faulty == json("web_2"));
}

TEST_CASE("fault ttl_lower_bound_unchecked breaks REG-8", "[faults][REG-8]") {
  // REG-8: "`ttl.seconds` is an integer from 1 to 86400; otherwise 400."
  const auto seen = run_clean_and_faulty(fault::ttl_lower_bound_unchecked, [](core_harness& h) {
    const auto sid = h.create_session();
    return json{
        register_status(h, sid, registration(json::array(), {{"lifetime", core_harness::ttl(0)}})),
        register_status(h, sid,
                        registration(json::array(), {{"lifetime", core_harness::ttl(-5)}}))};
  });
  CHECK(seen.clean == json{400, 400});
  CHECK(seen.faulty == json{201, 201});
}

TEST_CASE("fault ttl_fraction_truncated breaks REG-8", "[faults][REG-8]") {
  // REG-8: "`ttl.seconds` is an integer".
  const auto seen = run_clean_and_faulty(fault::ttl_fraction_truncated, [](core_harness& h) {
    const auto sid = h.create_session();
    const auto registered =
        h.request("POST", h.clients_path(sid),
                  registration(json::array(),
                               {{"lifetime", {{"type", "ttl"}, {"data", {{"seconds", 30.9}}}}}}));
    return json{{"status", registered.status},
                {"seconds", registered.body.contains("lifetime")
                                ? registered.body["lifetime"]["data"]["seconds"]
                                : json(nullptr)}};
  });
  CHECK(seen.clean == json{{"status", 400}, {"seconds", nullptr}});
  CHECK(seen.faulty == json{{"status", 201}, {"seconds", 30}});
}

TEST_CASE("fault client_name_length_exclusive breaks REG-4", "[faults][REG-4]") {
  // REG-4: "Client `name` follows the tool-name rule (1-64, `[A-Za-z0-9_-]`)."
  const auto seen = run_clean_and_faulty(fault::client_name_length_exclusive, [](core_harness& h) {
    const auto sid = h.create_session();
    auto with_name = [&](const std::string& name) {
      return register_status(h, sid, {{"name", name}, {"lifetime", core_harness::never()}});
    };
    const int one_char_tool = register_status(
        h, sid,
        {{"name", "tools"},
         {"lifetime", core_harness::never()},
         {"tools",
          json::array({core_harness::tool("t"), core_harness::tool(std::string(64, 't'))})}});
    return json{{"one", with_name("a")},
                {"sixty_four", with_name(std::string(64, 'b'))},
                {"two", with_name("ab")},
                {"sixty_five", with_name(std::string(65, 'c'))},
                {"tool_names_1_and_64", one_char_tool},
                {"registered", count_events(h, sid, "client_registered")}};
  });
  CHECK(seen.clean == json{{"one", 201},
                           {"sixty_four", 201},
                           {"two", 201},
                           {"sixty_five", 400},
                           {"tool_names_1_and_64", 201},
                           {"registered", 4}});
  CHECK(seen.faulty == json{{"one", 400},
                            {"sixty_four", 400},
                            {"two", 201},
                            {"sixty_five", 400},
                            {"tool_names_1_and_64", 201},
                            {"registered", 2}});
}

TEST_CASE("fault ttl_upper_bound_exclusive breaks REG-8", "[faults][REG-8]") {
  // REG-8: "`ttl.seconds` is an integer from 1 to 86400; otherwise 400."
  const auto seen = run_clean_and_faulty(fault::ttl_upper_bound_exclusive, [](core_harness& h) {
    const auto sid = h.create_session();
    auto with_ttl = [&](std::int64_t seconds) {
      return register_status(h, sid, {{"name", "tab"}, {"lifetime", core_harness::ttl(seconds)}});
    };
    return json{{"86399", with_ttl(86'399)},
                {"86400", with_ttl(86'400)},
                {"86401", with_ttl(86'401)},
                {"registered", count_events(h, sid, "client_registered")}};
  });
  CHECK(seen.clean == json{{"86399", 201}, {"86400", 201}, {"86401", 400}, {"registered", 2}});
  CHECK(seen.faulty == json{{"86399", 201}, {"86400", 400}, {"86401", 400}, {"registered", 1}});
}
