// Browser clients (kind: browser): a real tab in headless Chromium plays the client. Its
// page registers, pings, acks and answers by itself, over its own connections to the
// target; this actor only carries the scenario's tab steps to the driver (tab_driver.hpp)
// and tells the director the tab's client id, so expectations can name it ({cid:tab}).
#include <algorithm>
#include <chrono>
#include <string_view>

#include "script_actions.hpp"
#include "toolwire/actors/participants.hpp"
#include "toolwire/actors/tab_driver.hpp"
#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/protocol/url.hpp"

namespace toolwire::actors {

namespace {

using scenarios::vocabulary::action_id;

struct browser_client_state {
  scenarios::client_spec spec;
  director_actor director;
  session_access access;
  run_context* context = nullptr;
  bool open = false;    // its tab is open in the driver
  bool frozen = false;  // its page runs no script: a screenshot would wait out its deadline
  static inline const char* name = "browser_client";
};

using tab_self = client_actor::stateful_pointer<browser_client_state>;

//! The origin a tab's page comes from when the target claims CORS (its profile's
//! cors_origin) for one the driver can serve: http on 127.0.0.1 or localhost with a port.
//! "" otherwise: the tab then opens same-origin. Why only loopback: the driver must listen
//! there, and a page from a public origin would also meet Chromium's rules for public
//! pages reaching the local network, which are not the target's to answer.
std::string cross_origin_of(const std::string& cors_origin) {
  for (const char* host : {"http://127.0.0.1:", "http://localhost:"}) {
    const std::string_view prefix(host);
    if (!cors_origin.starts_with(prefix)) continue;
    const auto port = std::string_view(cors_origin).substr(prefix.size());
    const bool digits =
        !port.empty() && port.size() <= 5 &&
        std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
    return digits ? cors_origin : "";
  }
  return "";
}

//! Where the tab opens. Same-origin by default: the target's own origin, under the prefix
//! the driver serves the page from, so the target needs no CORS. Across origins when the
//! target claims CORS for a loopback origin (cross_origin_of): the page on that origin,
//! served by the driver, with `base=` naming the target, so that the target's own CORS
//! answers are what let the page work (CORS-1..3). The token rides in the fragment, which
//! the browser never sends to a server (docs/browser.md, "The tab").
std::string tab_url(const browser_client_state& st) {
  const auto& settings = st.context->settings;
  const auto page_origin = cross_origin_of(settings.cors_origin);
  std::string url =
      (page_origin.empty() ? settings.base_url : page_origin) +
      "/__toolwire_tab/index.html#session=" + protocol::percent_encode(st.access.session_id) +
      "&token=" + protocol::percent_encode(st.access.token) +
      "&name=" + protocol::percent_encode(st.spec.requested_name) +
      "&ttl=" + std::to_string(st.spec.lifetime.seconds);
  if (!page_origin.empty()) url += "&base=" + protocol::percent_encode(settings.base_url);
  return url;
}

//! The driver command of `step` (the driver's own words: close, offline, ...).
json command_of(const browser_client_state& st, const scenarios::scripted_step& step) {
  json command = {{"tab", st.spec.actor}};
  switch (scenarios::vocabulary::action_named(step.action).value_or(action_id::advance)) {
    case action_id::open_tab:
      command["cmd"] = "open";
      command["url"] = tab_url(st);
      if (!cross_origin_of(st.context->settings.cors_origin).empty())
        command["cross_origin"] = true;
      if (!st.spec.window.empty()) command["window"] = st.spec.window;
      if (step.args.value("until", "registered") == "loaded") command["until"] = "loaded";
      break;
    case action_id::navigate:
      command["cmd"] = "navigate";
      command["screen"] = step.args.value("screen", "");
      break;
    case action_id::query_page:
      command["cmd"] = "query";
      command["selector"] = step.args.value("selector", "");
      break;
    case action_id::go_offline:
      command["cmd"] = "offline";
      break;
    case action_id::go_online:
      command["cmd"] = "online";
      break;
    default:
      command["cmd"] = step.action;  // freeze, resume, reload, close: the same word
  }
  return command;
}

//! What the trace keeps of a command: never its URL, which holds the session's token.
json recorded(const json& command, std::size_t index) {
  json kept = {{"cmd", command["cmd"]}, {"tab", command["tab"]}, {"step", index}};
  for (const char* key : {"screen", "selector", "cross_origin", "window", "until"}) {
    if (command.contains(key)) kept[key] = command[key];
  }
  return kept;
}

bool perform(tab_self self, std::uint64_t index) {
  auto& st = self->state;
  const auto& step = st.context->plan->steps[index];
  const json command = command_of(st, step);
  st.context->record(self, st.spec.actor, "browser", [&] { return recorded(command, index); });
  if (st.context->browser == nullptr) {
    st.context->record(self, st.spec.actor, "browser_error", [&] {
      return json{{"step", index}, {"message", "no browser driver was given to this run"}};
    });
    return false;
  }
  // Why blocking: the harness runs on one thread and the wall clock goes on meanwhile;
  // what the target sends in the time is queued by the host and handed over after.
  const auto started = std::chrono::steady_clock::now();
  auto reply = st.context->browser->command(command);
  st.context->wall_blocked_ms += std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::steady_clock::now() - started)
                                     .count();
  if (!reply) {
    const bool driver_failed = reply.error().code == protocol::error_code::unavailable;
    st.context->record(self, st.spec.actor, driver_failed ? "browser_error" : "step_error", [&] {
      return json{{"step", index}, {"message", std::string(reply.error().message)}};
    });
    if (!driver_failed && step.performs(action_id::close_tab)) st.open = false;
    return false;
  }
  const std::string cmd = command["cmd"];
  if (cmd == "open") st.open = true;
  // A tab opened `until: loaded` may not have registered: it names no client yet.
  if ((cmd == "open" || cmd == "reload") && !protocol::string_at(*reply, "client_id").empty()) {
    st.open = true;
    const std::string client_id = protocol::string_at(*reply, "client_id");
    // The page's own registration is not in the trace: what it declared is, for the
    // invariants (TOOLS-3 judges the model's offers by the live tools).
    st.context->record(self, st.spec.actor, "page_registered", [&] {
      return json{{"client_id", client_id}, {"tools", protocol::member_at(*reply, "tools")}};
    });
    self->send(st.director, registered_atom::value, st.spec.actor, client_id);
  }
  if (cmd == "close") st.open = false;
  if (cmd == "freeze" || cmd == "resume") st.frozen = cmd == "freeze";
  // The step's response, so that `expect: {status: 200, body: {...}}` reads the reply.
  st.context->record(self, st.spec.actor, "response", [&] {
    json body = *reply;
    body.erase("ok");
    body.erase("id");
    return json{{"method", "BROWSER"},
                {"path", cmd + " " + st.spec.actor},
                {"status", 200},
                {"body", std::move(body)},
                {"step", index}};
  });
  return true;
}

//! With run_context::evidence_prefix, at the end of the run: the tab's screenshot
//! (PREFIX.tab-ACTOR.png) and its console, recorded as `tab_evidence` (the driver keeps the
//! last 50 console lines). A frozen tab is left out: its page runs no script to answer.
void keep_evidence(tab_self self) {
  auto& st = self->state;
  if (st.context->evidence_prefix.empty() || st.frozen || !st.context->recording()) return;
  const std::string png = st.context->evidence_prefix + ".tab-" + st.spec.actor + ".png";
  auto shot =
      st.context->browser->command({{"cmd", "screenshot"}, {"tab", st.spec.actor}, {"path", png}});
  auto state = st.context->browser->command({{"cmd", "state"}, {"tab", st.spec.actor}});
  st.context->record(self, st.spec.actor, "tab_evidence", [&] {
    json evidence = {{"tab", st.spec.actor}};
    evidence["screenshot"] = shot ? json(png) : json(nullptr);
    if (!shot) evidence["screenshot_error"] = shot.error().message;
    evidence["console"] = state ? protocol::member_at(*state, "console") : json::array();
    // The page's own log (what it did: stream, registration, calls), its last 30 lines.
    json log = state ? protocol::member_at(protocol::member_at(*state, "state"), "log") : json();
    if (!log.is_array()) log = json::array();
    if (log.size() > 30) log.erase(log.begin(), log.end() - 30);
    evidence["page_log"] = std::move(log);
    return evidence;
  });
}

client_actor::behavior_type browser_client(tab_self self, scenarios::client_spec spec,
                                           director_actor director, session_access access,
                                           run_context* context) {
  auto& st = self->state;
  st.spec = std::move(spec);
  st.director = std::move(director);
  st.access = std::move(access);
  st.context = context;
  // A tab left open would go on pinging the target after the run: close it on the way out,
  // after keeping what a person would look at (keep_evidence).
  self->attach_functor([self](const caf::error&) {
    auto& st = self->state;
    if (st.open && st.context->browser != nullptr) {
      keep_evidence(self);
      (void)st.context->browser->command({{"cmd", "close"}, {"tab", st.spec.actor}});
    }
    st.open = false;
  });
  // The page does by itself what a suite client is told to (join, ping, ack, answer) and
  // reads its own stream; the harness's messages for those are not this actor's to act on.
  return {
      [](join_atom) {},
      [](ping_atom) {},
      [](vanish_atom) {},
      [](leave_atom) {},
      [](show_screen_atom, std::uint64_t) {},
      [](ack_atom, const std::string&) {},
      [](answer_atom, const std::string&) {},
      [=](perform_atom, std::uint64_t step) { return perform(self, step); },
      [=](perform_atom, std::uint64_t step, protocol::api_request&) { return perform(self, step); },
      [](event_atom, const reference_server::session_event&) {},
      [](stream_gap_atom, const std::string&, std::uint64_t) {},
  };
}

}  // namespace

client_actor spawn_browser_client(caf::local_actor* parent, scenarios::client_spec spec,
                                  director_actor director, session_access access,
                                  run_context* context) {
  return parent->spawn(browser_client, std::move(spec), std::move(director), std::move(access),
                       context);
}

}  // namespace toolwire::actors
