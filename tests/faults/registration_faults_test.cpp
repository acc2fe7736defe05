// Fault tests for client registration: each planted fault visibly breaks its REG rule.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "faults/fault_contrast.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference_server::fault;

TEST_CASE("fault no_collision_counter breaks REG-5", "[faults][REG-5]") {
  // REG-5: "If a live client of the session already has the requested name, a counter is
  // appended ... The form is `<name>_<n>`, n = 2, 3, ..."
  const auto seen = run_clean_and_faulty(fault::no_collision_counter, [](core_harness& h) {
    const auto sid = h.create_session();
    const json first = h.register_client(sid, "web", core_harness::never());
    const json second = h.register_client(sid, "web", core_harness::never());
    return json{first["name"], second["name"]};
  });
  CHECK(seen.clean == json{"web", "web_2"});
  CHECK(seen.faulty == json{"web", "web"});
}

TEST_CASE("fault registered_event_wrong_name breaks REG-9", "[faults][REG-9]") {
  // REG-9: "The `client_registered` event carries the same `client_id` and assigned `name`
  // as the 201 response."
  const auto seen = run_clean_and_faulty(fault::registered_event_wrong_name, [](core_harness& h) {
    const auto sid = h.create_session();
    h.register_client(sid, "web", core_harness::never());
    const json second = h.register_client(sid, "web", core_harness::never());
    const auto event = h.find_event(sid, "client_registered", {{"client_id", second["client_id"]}});
    REQUIRE(event);
    return json{{"response_name", second["name"]}, {"event_name", event->data["name"]}};
  });
  CHECK(seen.clean == json{{"response_name", "web_2"}, {"event_name", "web_2"}});
  CHECK(seen.faulty == json{{"response_name", "web_2"}, {"event_name", "web"}});
}

TEST_CASE("fault description_limit_in_bytes breaks REG-2", "[faults][REG-2]") {
  // REG-2: "The 4096 limit counts Unicode code points, not bytes: 4096 Japanese characters
  // are accepted, 4097 ASCII characters are not."
  std::string japanese;
  for (int i = 0; i < 4096; ++i)
    japanese += "\xe6\x97\xa5";  // U+65E5, three bytes in UTF-8
  REQUIRE(japanese.size() == 3 * 4096);
  const auto seen = run_clean_and_faulty(fault::description_limit_in_bytes, [&](core_harness& h) {
    const auto sid = h.create_session();
    auto status_with = [&](const std::string& description) {
      return h
          .request("POST", h.clients_path(sid),
                   {{"name", "web"},
                    {"lifetime", core_harness::never()},
                    {"tools", json::array({core_harness::tool("read", description)})}})
          .status;
    };
    return json{{"japanese_4096", status_with(japanese)},
                {"ascii_4097", status_with(std::string(4097, 'a'))},
                {"registered", count_events(h, sid, "client_registered")}};
  });
  CHECK(seen.clean == json{{"japanese_4096", 201}, {"ascii_4097", 400}, {"registered", 1}});
  CHECK(seen.faulty == json{{"japanese_4096", 400}, {"ascii_4097", 400}, {"registered", 0}});
}

TEST_CASE("fault invalid_tool_name_accepted breaks REG-1", "[faults][REG-1]") {
  // REG-1: "Each tool has `name` of 1-64 characters from `[A-Za-z0-9_-]` ... Anything else
  // is rejected (400)."
  const auto seen = run_clean_and_faulty(fault::invalid_tool_name_accepted, [](core_harness& h) {
    const auto sid = h.create_session();
    auto status_with = [&](const std::string& tool_name) {
      return h
          .request("POST", h.clients_path(sid),
                   {{"name", "web"},
                    {"lifetime", core_harness::never()},
                    {"tools", json::array({core_harness::tool(tool_name)})}})
          .status;
    };
    return json{{"longest_valid", status_with(std::string(64, 'a'))},
                {"too_long", status_with(std::string(65, 'a'))},
                {"space", status_with("read form")},
                {"dot", status_with("read.form")}};
  });
  CHECK(seen.clean ==
        json{{"longest_valid", 201}, {"too_long", 400}, {"space", 400}, {"dot", 400}});
  CHECK(seen.faulty ==
        json{{"longest_valid", 201}, {"too_long", 201}, {"space", 201}, {"dot", 201}});
}

// The two faults relax one check each, and only that one: the rest of REG-1..3 still holds,
// the client keeps the name it wrote, and a refusal quotes the name it was sent.
TEST_CASE("faults invalid_tool_name_accepted and description_limit_in_bytes relax one check only",
          "[faults][REG-1][REG-2]") {
  core_harness h(default_config({fault::invalid_tool_name_accepted}));
  const auto sid = h.create_session();
  auto register_with = [&](json tools) {
    return h.request("POST", h.clients_path(sid),
                     {{"name", "web"}, {"lifetime", core_harness::never()}, {"tools", tools}});
  };
  const auto kept = register_with(json::array({core_harness::tool("read form")}));
  REQUIRE(kept.status == 201);
  CHECK(kept.body["tools"][0]["name"] == "read form");
  json numeric = core_harness::tool("t");
  numeric["name"] = 7;
  CHECK(register_with(json::array({numeric})).body["error"]["message"] ==
        "tools[0].name: must be a string (REG-1)");
  CHECK(register_with(json::array({core_harness::tool("a b"), core_harness::tool("a b")}))
            .body["error"]["message"] == "tools: duplicate tool name 'a b' at tools[1] (REG-3)");
  const auto app = h.request("POST", h.clients_path(sid),
                             {{"name", "my app"}, {"lifetime", core_harness::never()}});
  CHECK(app.body["error"]["message"] == "name: must be 1-64 characters of [A-Za-z0-9_-] (REG-4)");
  const json task = {
      {"assistant_id", 1},
      {"input", json::array({{{"type", "text"}, {"text", "hi"}}})},
      {"client_tools", json::array({{{"name", "get location"}, {"description", "where"}}})}};
  CHECK(h.request("POST", "/api/tasks", task).status == 201);

  core_harness bytes(default_config({fault::description_limit_in_bytes}));
  const auto sid2 = bytes.create_session();
  auto status_with = [&](const std::string& description) {
    return bytes
        .request("POST", bytes.clients_path(sid2),
                 {{"name", "web"},
                  {"lifetime", core_harness::never()},
                  {"tools", json::array({core_harness::tool("t", description)})}})
        .status;
  };
  CHECK(status_with(std::string(4096, 'a')) == 201);
  CHECK(status_with(std::string(4097, 'a')) == 400);
}

TEST_CASE("fault api_key_registration_201_without_name breaks REG-9", "[faults][REG-9]") {
  // REG-9: "The `client_registered` event carries the same `client_id` and assigned `name`
  // as the 201 response." Section 3: "-> 201 `{"client_id", "name", "lifetime", "tools"}`".
  const auto seen =
      run_clean_and_faulty(fault::api_key_registration_201_without_name, [](core_harness& h) {
        const auto sid = h.create_session();
        auto registered_as = [&](const std::string& name, std::optional<std::string> credential) {
          const auto response =
              h.request("POST", h.clients_path(sid),
                        {{"name", name}, {"lifetime", core_harness::never()}}, credential);
          REQUIRE(response.status == 201);
          const auto event =
              h.find_event(sid, "client_registered", {{"client_id", response.body["client_id"]}});
          REQUIRE(event);
          return json{{"response", response.body.value("name", json("absent"))},
                      {"event", event->data["name"]}};
        };
        return json{{"api_key", registered_as("web", admin_key)},
                    {"token", registered_as("web", h.token_of(sid))}};
      });
  CHECK(seen.clean == json{{"api_key", {{"response", "web"}, {"event", "web"}}},
                           {"token", {{"response", "web_2"}, {"event", "web_2"}}}});
  CHECK(seen.faulty == json{{"api_key", {{"response", "absent"}, {"event", "web"}}},
                            {"token", {{"response", "web_2"}, {"event", "web_2"}}}});
}
