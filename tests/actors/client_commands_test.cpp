// A client's commands (join, ping, show_screen, ack, answer, leave, vanish: one atom each,
// actors/messages.hpp): when each runs, and the `act` text each is recorded under.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "actors/actor_test_support.hpp"

using namespace toolwire::actor_test;
using toolwire::scenarios::build::message_at;

namespace {

//! (time, what) of the `act` records of `actor`, in trace order.
std::vector<std::pair<time_ms, std::string>> acts_of(const trace& run, const std::string& actor) {
  std::vector<std::pair<time_ms, std::string>> acts;
  for (const auto& r : records(run, actor, "act"))
    acts.emplace_back(r.at, r.data.value("what", ""));
  return acts;
}

}  // namespace

TEST_CASE("Client commands: each runs at its time and is recorded as act under its text",
          "[actors][clients]") {
  // Why pinned: traces, and the hashes users compare, name commands by these texts
  // ("ack:<call_id>", "result:<call_id>", "screen:<index>"), as when they were strings.
  const std::uint64_t seed = GENERATE(range<std::uint64_t>(1, 5));
  CAPTURE(seed);
  scenario s;
  s.name = "client_commands";
  auto tab =
      toolwire::scenarios::browser_tab(client("tab", "web", tools({"read_form"})), 30, 4'000);
  tab.ack_delay = 100;
  tab.result_delay = 300;
  tab.screens = {{2'000, tools({"fill_form"})}};
  tab.leave_at = 9'000;
  auto ghost = client("ghost", "ghost", tools({"haunt"}));
  ghost.auto_join = false;  // never registers: its scripted vanish changes nothing
  s.clients = {tab, ghost};
  s.steps = {{500, "ghost", "vanish", json::object(), {}, ""}, message_at(1'000, "read the form")};
  s.model_script =
      script(json::array({call_step({{"web__read_form", json::object()}}), text_step("read")}));
  s.duration = 20'000;
  const auto result = run(s, seed);
  const trace& t = result.trace;

  const auto dispatched = events(t, "client_tool_dispatched");
  REQUIRE(dispatched.size() == 1);
  const std::string call_id = dispatched[0].data["data"]["call_id"];

  SECTION("the tab's commands, until it leaves; the ping due after leaving is not recorded") {
    const std::vector<std::pair<time_ms, std::string>> expected = {
        {0, "join"},         {1'100, "ack:" + call_id}, {1'300, "result:" + call_id},
        {2'000, "screen:0"}, {4'000, "ping"},           {8'000, "ping"},
        {9'000, "leave"}};
    CHECK(acts_of(t, "tab") == expected);
    CHECK(exchanges(t, "tab", "request", "PUT", "/tools").size() == 1);
    CHECK(exchanges(t, "tab", "request", "DELETE", "/clients/" + client_id_of(t, "tab")).size() ==
          1);
  }
  SECTION("a command before registration is recorded and sends nothing") {
    CHECK(acts_of(t, "ghost") == std::vector<std::pair<time_ms, std::string>>{{500, "vanish"}});
    CHECK(records(t, "ghost", "request").empty());
  }
}
