// The built-in scenarios: one per kind of trouble a client-tools integration meets.
#include "toolwire/actors/builtin_scenarios.hpp"

#include "toolwire/actors/scenario_builders.hpp"

namespace toolwire::actors {

namespace {

using namespace build;

scenario tab_closes_mid_call() {
  scenario s;
  s.name = "tab_closes_mid_call";
  s.purpose = "A tab acks a call, then vanishes; its TTL lapses, the call fails, the turn ends.";
  s.spec_ids = {"LIFE-2", "LIFE-5", "CALL-5", "CALL-8"};
  auto tab = browser_tab(client("tab", "web", {tool("read_form")}), 30, 10'000);
  tab.result_delay = 60'000;
  tab.vanish_at = 5'000;
  s.clients = {tab};
  s.steps = {message_at(1'000, "read the form")};
  s.model_script = script(json::array(
      {call_step({{"web__read_form", {{"form", "checkout"}}}}), text_step("the tab went away")}));
  s.duration = 120'000;
  return s;
}

scenario parallel_calls_two_clients() {
  scenario s;
  s.name = "parallel_calls_two_clients";
  s.purpose = "Two clients answer parallel calls at different speeds; results match by call_id.";
  s.spec_ids = {"CALL-9", "CALL-1", "CALL-2", "SES-5"};
  auto fast = backend_worker(client("worker", "db", {tool("query")}));
  auto slow =
      slow_client(browser_tab(client("tab", "web", {tool("read_form")}), 60, 20'000), 200, 3'000);
  s.clients = {fast, slow};
  s.steps = {message_at(500, "query and read")};
  s.model_script = script(json::array(
      {call_step({{"web__read_form", json::object()}, {"db__query", {{"sql", "select 1"}}}}),
       text_step("both answered")}));
  s.duration = 60'000;
  return s;
}

scenario reload_collision() {
  scenario s;
  s.name = "reload_collision";
  s.purpose = "A reloaded tab registers while the old one lives: names web and web_2, unique.";
  s.spec_ids = {"REG-5", "REG-6", "REG-7"};
  auto old_tab = browser_tab(client("old_tab", "web", {tool("read_form")}), 20, 5'000);
  old_tab.vanish_at = 1'000;
  auto new_tab = browser_tab(client("new_tab", "web", {tool("read_form")}), 20, 5'000);
  new_tab.join_at = 1'000;
  auto late_tab = browser_tab(client("late_tab", "web", {tool("read_form")}), 20, 5'000);
  late_tab.join_at = 30'000;
  s.clients = {old_tab, new_tab, late_tab};
  s.duration = 40'000;
  return s;
}

scenario navigating_tab_screens() {
  scenario s;
  s.name = "navigating_tab_screens";
  s.purpose = "A tab re-PUTs its tools per screen; each model step sees only the current screen.";
  s.spec_ids = {"TOOLS-1", "TOOLS-3", "TOOLS-6"};
  s.clients = {navigating_tab(
      backend_worker(client("tab", "web", {tool("list_orders")})),
      {{2'000, {tool("edit_order"), tool("cancel_order")}}, {4'000, {tool("checkout")}}})};
  s.steps = {message_at(1'000, "list"), message_at(3'000, "edit"), message_at(5'000, "pay")};
  s.model_script = {
      {"rules", json::array({{{"match", "list"}, {"steps", json::array({text_step("listed")})}},
                             {{"match", "edit"}, {"steps", json::array({text_step("edited")})}},
                             {{"match", "pay"}, {"steps", json::array({text_step("paid")})}}})}};
  s.duration = 10'000;
  return s;
}

scenario forgetful_and_duplicating() {
  scenario s;
  s.name = "forgetful_and_duplicating";
  s.purpose = "One client never acks (ack_timeout), another posts its result twice (409).";
  s.spec_ids = {"CALL-3", "CALL-5", "CALL-6"};
  s.clients = {forgetful_client(backend_worker(client("forgetful", "lazy", {tool("nap")}))),
               duplicating_client(backend_worker(client("eager", "eager", {tool("jump")})))};
  s.steps = {message_at(100, "go")};
  s.model_script = script(
      json::array({call_step({{"lazy__nap", json::object()}, {"eager__jump", json::object()}}),
                   text_step("one answered, one forgot")}));
  s.ack_timeout_ms = 2'000;
  s.result_timeout_ms = 10'000;
  s.duration = 20'000;
  return s;
}

scenario erroring_client_and_leaver() {
  scenario s;
  s.name = "erroring_client_and_leaver";
  s.purpose = "One client answers with an error result, another leaves by DELETE mid-call.";
  s.spec_ids = {"CALL-4", "CALL-8", "LIFE-1", "LIFE-5"};
  auto erring = erroring_client(backend_worker(client("erring", "broken", {tool("fail")})));
  auto leaver = backend_worker(client("leaver", "leaver", {tool("wait")}));
  leaver.result_delay = 50'000;
  leaver.leave_at = 2'000;
  s.clients = {erring, leaver};
  s.steps = {message_at(1'000, "try")};
  s.model_script = script(
      json::array({call_step({{"broken__fail", json::object()}, {"leaver__wait", json::object()}}),
                   text_step("recovered")}));
  s.duration = 10'000;
  return s;
}

scenario task_three_rounds() {
  scenario s;
  s.name = "task_three_rounds";
  s.purpose = "A task interrupts three times for client tools, then completes.";
  s.spec_ids = {"TASK-3", "TASK-4", "TASK-5", "TASK-6", "TASK-9"};
  task_caller_spec caller;
  caller.actor = "caller";
  caller.start_at = 0;
  caller.input = "where am I";
  caller.client_tools = {tool("locate"), tool("confirm")};
  caller.poll_every = 500;
  s.task_callers = {caller};
  s.model_script = script(json::array(
      {call_step({{"locate", json::object()}}), call_step({{"confirm", {{"q", "here?"}}}}),
       call_step({{"locate", json::object()}, {"confirm", json::object()}}),
       text_step("you are here")}));
  s.duration = 20'000;
  return s;
}

}  // namespace

const std::vector<scenario>& builtin_scenarios() {
  static const std::vector<scenario> all = {
      tab_closes_mid_call(),    parallel_calls_two_clients(), reload_collision(),
      navigating_tab_screens(), forgetful_and_duplicating(),  erroring_client_and_leaver(),
      task_three_rounds()};
  return all;
}

std::optional<scenario> find_builtin(std::string_view name) {
  for (const auto& s : builtin_scenarios()) {
    if (s.name == name) return s;
  }
  return std::nullopt;
}

}  // namespace toolwire::actors
