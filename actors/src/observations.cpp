// Normalised observations of a run, and the first place two runs differ.
#include "toolwire/actors/observations.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "toolwire/actors/freedom.hpp"
#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/routes.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::actors {

namespace {

using protocol::event_type;

//! The route a recorded request or response is, with the ids of its path.
std::optional<protocol::route_match> route_of(const trace_record& r) {
  return protocol::match_route(protocol::string_at(r.data, "method"),
                               protocol::string_at(r.data, "path"));
}

bool is_route(const trace_record& r, protocol::route_id id) {
  const auto found = route_of(r);
  return found && found->route->id == id;
}

//! The rules a route's answer proves (protocol/routes.hpp); C-3 for a path that is none.
std::vector<std::string> route_rules(const std::optional<protocol::route_match>& route) {
  if (!route) return {"C-3"};
  return {route->route->rules.begin(), route->route->rules.end()};
}

//! Ids as what they stand for. Why names, not ids: ids are opaque (SES-1, REG-9, CALL-1,
//! TASK-1), so two implementations mint different ones for the same thing.
class id_names {
 public:
  //! Two passes: who registered and what was created first (responses), then turns and
  //! calls (events), whose names use the first. Why: in-process an event is recorded
  //! before the response of the request that caused it, over HTTP usually after.
  explicit id_names(const trace& run) {
    for (const auto& r : run.records()) {
      if (r.kind == "response") learn(r);
      // A browser tab registers by itself; its driver named the client id.
      if (r.kind == "page_registered") name(protocol::string_at(r.data, "client_id"), r.actor);
    }
    for (const auto& r : run.records()) {
      if (r.kind == "event") learn(r);
    }
  }

  std::string name_of(const std::string& id) const {
    auto it = names_.find(id);
    return it == names_.end() ? id : it->second;
  }

  //! The path with every known id replaced and the query left out (it carries a token).
  std::string path_template(const std::string& path) const {
    const std::string bare = path.substr(0, path.find('?'));
    std::string out;
    std::size_t from = 0;
    while (from <= bare.size()) {
      auto slash = bare.find('/', from);
      if (slash == std::string::npos) slash = bare.size();
      if (from > 0) out += '/';
      out += name_of(bare.substr(from, slash - from));
      from = slash + 1;
    }
    return out;
  }

 private:
  void name(const std::string& id, const std::string& as) {
    if (!id.empty()) names_.emplace(id, as);
  }

  void learn(const trace_record& r) {
    const json& body = protocol::member_at(r.data, "body");
    if (r.kind == "response" && protocol::string_at(r.data, "method") == "POST") {
      if (is_route(r, protocol::route_id::create_session) && r.data.value("status", 0) == 201) {
        name(protocol::string_at(body, "id"), "S" + std::to_string(++sessions_));
      } else if (is_route(r, protocol::route_id::register_client) &&
                 r.data.value("status", 0) == 201) {
        name(protocol::string_at(body, "client_id"), r.actor);
      } else if (is_route(r, protocol::route_id::create_task) && r.data.value("status", 0) == 201) {
        const auto step = r.data.find("step");
        name(protocol::string_at(body, "uuid"),
             step != r.data.end() && step->is_number_unsigned()
                 ? "task of step " + std::to_string(step->get<std::size_t>() + 1)
                 : "task of " + r.actor + " #" + std::to_string(++tasks_of_[r.actor]));
      }
      name_turn(protocol::string_at(body, "turn_id"));
    }
    if (r.kind != "event") return;
    const auto type = protocol::parse_event_type(protocol::string_at(r.data, "type"));
    const json& data = protocol::member_at(r.data, "data");
    name_turn(protocol::string_at(data, "turn_id"));
    if (type == event_type::client_registered) {
      // A client no response named (a resumed tab that registered again by itself): by
      // the name it was given and how many clients were given it before.
      const std::string client = protocol::string_at(data, "client_id");
      if (client.empty() || names_.contains(client)) return;
      const std::string assigned = protocol::string_at(data, "name");
      name(client, "client named " + assigned + " #" + std::to_string(++clients_named_[assigned]));
      return;
    }
    if (type == event_type::client_tool_failed) {
      // A call the model made to a tool no longer offered fails without a dispatch
      // (TOOLS-5): it is named by whose tool it named.
      const std::string call = protocol::string_at(data, "call_id");
      if (call.empty() || names_.contains(call)) return;
      const std::string base = "unoffered " + name_of(protocol::string_at(data, "client_id")) +
                               "." + protocol::string_at(data, "tool");
      name(call, base + "#" + std::to_string(++calls_of_[base]));
      return;
    }
    if (type == event_type::client_tool_dispatched) {
      const std::string call = protocol::string_at(data, "call_id");
      if (call.empty() || names_.contains(call)) return;
      const std::string base = name_of(protocol::string_at(data, "turn_id")) + ":" +
                               name_of(protocol::string_at(data, "client_id")) + "." +
                               protocol::string_at(data, "tool");
      name(call, base + "#" + std::to_string(++calls_of_[base]));
    }
  }

  void name_turn(const std::string& id) {
    if (!id.empty() && !names_.contains(id)) name(id, "turn" + std::to_string(++turns_));
  }

  std::map<std::string, std::string> names_;
  std::map<std::string, int> tasks_of_, calls_of_, clients_named_;
  int sessions_ = 0, turns_ = 0;
};

//! The rules that decide a response to this route.
std::vector<std::string> event_rules(event_type type) {
  switch (type) {
    case event_type::client_registered:
      return {"REG-5", "REG-6", "REG-9"};
    case event_type::client_tools_updated:
      return {"TOOLS-1"};
    case event_type::client_unregistered:
      return {"LIFE-1", "LIFE-2", "LIFE-4"};
    case event_type::turn_started:
    case event_type::turn_completed:
    case event_type::turn_failed:
      return {"SES-2", "SES-4", "MODEL-4"};
    case event_type::client_tool_dispatched:
      return {"CALL-1", "TOOLS-3"};
    case event_type::client_tool_completed:
      return {"CALL-4", "CALL-5"};
    case event_type::client_tool_failed:
      return {"CALL-3", "CALL-5", "LIFE-5", "TOOLS-5"};
    case event_type::stream_gap:
      return {"SES-3"};
  }
  return {"SES-4"};
}

//! A task as GET shows it, with what SPEC fixes: its status, the names of its pending
//! calls (their order is open, TASK-3), its output's calls and texts (TASK-6), and
//! whether a failure is TASK-7's (the other reasons are free).
json task_view(const json& body) {
  json view = {{"status", protocol::string_at(body, "status")}};
  std::vector<std::string> pending;
  const json& listed = protocol::member_at(body, "pending_tool_calls");
  if (listed.is_array()) {
    for (const auto& call : listed)
      pending.push_back(protocol::string_at(call, "name"));
  }
  std::sort(pending.begin(), pending.end());
  if (!pending.empty()) view["pending"] = pending;
  const json& output = protocol::member_at(body, "output");
  if (output.is_array()) {
    json items = json::array();
    for (const auto& item : output) {
      const std::string type = protocol::string_at(item, "type");
      if (type == "text") {
        items.push_back({{"text", protocol::string_at(item, "text")}});
        continue;
      }
      const json& call = protocol::member_at(item, "tool_call");
      const json& result = protocol::member_at(call, "output");
      json texts = json::array();
      const json& content = protocol::member_at(result, "content");
      if (content.is_array()) {
        for (const auto& part : content)
          texts.push_back(protocol::string_at(part, "text"));
      }
      items.push_back({{"tool", protocol::string_at(call, "name")},
                       {"input", protocol::member_at(call, "input")},
                       {"output", protocol::string_at(result, "type")},
                       {"texts", texts}});
    }
    view["output"] = items;
  }
  const json& error = protocol::member_at(body, "error");
  if (error.is_object()) {
    view["failed"] = freedom::fixed_task_failure(protocol::string_at(error, "reason"));
  }
  return view;
}

std::string compact(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

//! The event's data as SES-4 lists it, with ids as names and the tool list sorted.
json event_value(const protocol::event& e, const id_names& ids) {
  json data = protocol::to_json(e);
  for (const char* field : {"client_id", "call_id", "turn_id"}) {
    if (data.contains(field)) data[field] = ids.name_of(data[field].get<std::string>());
  }
  if (data.contains("tools") && data["tools"].is_array()) {
    auto tools = data["tools"].get<std::vector<std::string>>();
    std::sort(tools.begin(), tools.end());
    data["tools"] = tools;
  }
  for (auto field = data.begin(); field != data.end();) {
    field = freedom::free_event_field(protocol::type_of(e), field.key()) ? data.erase(field)
                                                                         : std::next(field);
  }
  return data;
}

//! Whose life an event belongs to: each entity's events are ordered by SPEC (SES-5),
//! while events of different entities at one instant may come in either order.
std::string entity_of(const protocol::event& e, const json& value) {
  switch (protocol::type_of(e)) {
    case event_type::client_registered:
    case event_type::client_tools_updated:
    case event_type::client_unregistered:
      return "client " + value.value("client_id", "");
    case event_type::client_tool_dispatched:
    case event_type::client_tool_completed:
    case event_type::client_tool_failed:
      return "call " + value.value("call_id", "");
    default:
      return value.value("turn_id", "turns");
  }
}

class observer {
 public:
  //! Why a first pass for tasks' tools: in-process a task's model steps are recorded
  //! before the response that names the task.
  observer(const trace& run, processing_polls polls) : ids_(run), polls_(polls) {
    for (const auto& r : run.records()) {
      if (r.kind == "request") learn_task_tools(r);
      const bool answered = r.kind == "response" || r.kind == "request_error";
      if (answered && is_route(r, protocol::route_id::create_task)) {
        task_created(r);
      }
      if (r.kind == "response") learn_surfaced(r);
    }
  }

  //! "call 2 has not been dispatched (1 so far)" without its "(1 so far)": how many other
  //! calls a step saw by the time it gave up depends on how long it waited for what a
  //! real-clock target owed (run_options::owed_wait_ms), not on the target.
  static std::string without_count_so_far(std::string message) {
    const auto open = message.rfind(" (");
    if (open != std::string::npos && message.ends_with(" so far)")) message.erase(open);
    return message;
  }

  void take(const trace_record& r) {
    if (r.kind == "model_reply") learn_model_calls(r);
    if (r.kind == "response" || r.kind == "request_error") return response(r);
    if (r.kind == "event") return event(r);
    if (r.kind == "model_step") return model_step(r);
    if (r.kind == "step_error") {
      add(r.at,
          "step " + std::to_string(r.data.value("step", std::size_t{0}) + 1) + " could not run",
          compact(without_count_so_far(r.data.value("message", std::string()))), {"C-3"}, false);
    }
    if (r.kind == "transport_error") {
      add(r.at, "transport", compact(r.data), {"C-1", "SES-3"}, false);
    }
  }

  std::vector<observation> done() && { return std::move(out_); }

 private:
  //! TASK-8 needs a task's own tools: a creation's request names them, its response the
  //! task (an actor's creations are answered in the order it sent them).
  void learn_task_tools(const trace_record& r) {
    if (!is_route(r, protocol::route_id::create_task)) return;
    std::set<std::string> names;
    const json& tools = protocol::member_at(protocol::member_at(r.data, "body"), "client_tools");
    if (tools.is_array()) {
      for (const auto& tool : tools)
        names.insert(protocol::string_at(tool, "name"));
    }
    creating_[r.actor].push_back(std::move(names));
  }

  void task_created(const trace_record& r) {
    auto& queue = creating_[r.actor];
    if (queue.empty()) return;
    const std::string uuid = protocol::string_at(protocol::member_at(r.data, "body"), "uuid");
    if (r.kind == "response" && r.data.value("status", 0) == 201 && !uuid.empty()) {
      task_tools_[uuid] = std::move(queue.front());
      task_creators_[uuid] = r.actor;
    }
    queue.erase(queue.begin());
  }

  //! The model-side name of each call the model made, by owner and call id (a script's
  //! call ids repeat across turns and tasks).
  void learn_model_calls(const trace_record& r) {
    const auto step = step_owners_.find(r.data.value("step_id", std::uint64_t{0}));
    const json& calls = protocol::member_at(protocol::member_at(r.data, "reply"), "tool_calls");
    if (step == step_owners_.end() || !calls.is_array()) return;
    for (const auto& call : calls)
      call_names_[{step->second, protocol::string_at(call, "id")}] =
          protocol::string_at(call, "name");
  }

  //! The names a task's polls showed as pending: a call surfaced there is the caller's to
  //! answer, whatever tool it names.
  void learn_surfaced(const trace_record& r) {
    const auto poll = route_of(r);
    if (!poll || poll->route->id != protocol::route_id::get_task ||
        r.data.value("status", 0) != 200) {
      return;
    }
    const json& pending =
        protocol::member_at(protocol::member_at(r.data, "body"), "pending_tool_calls");
    if (!pending.is_array()) return;
    for (const auto& call : pending)
      surfaced_[poll->ids[0]].insert(protocol::string_at(call, "name"));
  }

  //! TASK-8: a task's call to a tool it did not declare gets an error instead of being
  //! surfaced, and that error's reason is free. A call a poll showed as pending is no such
  //! call (a target that surfaced it broke TASK-8, and the caller's answer is compared).
  bool undeclared_task_call(const std::string& owner, const json& tool_call_id) const {
    const auto tools = task_tools_.find(owner);
    if (tools == task_tools_.end() || !tool_call_id.is_string()) return false;
    const auto name = call_names_.find({owner, tool_call_id.get<std::string>()});
    if (name == call_names_.end() || tools->second.contains(name->second)) return false;
    const auto shown = surfaced_.find(owner);
    return shown == surfaced_.end() || !shown->second.contains(name->second);
  }

  void response(const trace_record& r) {
    const std::string method = protocol::string_at(r.data, "method");
    const std::string path = ids_.path_template(protocol::string_at(r.data, "path"));
    const auto route = route_of(r);
    const auto is = [&](protocol::route_id id) { return route && route->route->id == id; };
    json value = json::object();
    if (r.kind == "request_error") {
      value["error"] = "no response";
    } else {
      value["status"] = r.data.value("status", 0);
      const json& error = protocol::member_at(protocol::member_at(r.data, "body"), "error");
      if (error.is_object()) value["error"] = protocol::string_at(error, "type");
      if (is(protocol::route_id::get_task) && value["status"] == 200) {
        value["task"] = task_view(r.data["body"]);
      }
    }
    const std::string what = r.actor + " " + method + " " + path;
    const auto step = r.data.find("step");
    if (step != r.data.end() && step->is_number_unsigned()) {
      add(r.at, "step " + std::to_string(step->get<std::size_t>() + 1) + " (" + what + ")",
          compact(value), route_rules(route), false);
      return;
    }
    // Pings and polls repeat on their own schedule, which a real clock shifts by one
    // at either end: what is compared is the sequence of different answers each got.
    const std::string text = compact(value);
    if (method == "GET" || is(protocol::route_id::ping)) {
      auto& last = last_answer_[what];
      if (last == text) return;
      last = text;
      // Kept as the last answer all the same: a task interrupted again for the same
      // tools after `processing` is a new answer, on every target alike.
      if (polls_ == processing_polls::passed_over && value.contains("task") &&
          value["task"].value("status", "") == "processing") {
        return;
      }
    }
    auto& added = add(r.at, what, text, route_rules(route), false);
    added.actor = r.actor;
    if (route) added.route = protocol::route_shown(route->route->id);
  }

  void event(const trace_record& r) {
    const auto e = protocol::read_event(protocol::string_at(r.data, "type"),
                                        protocol::member_at(r.data, "data"));
    // Unknown types are not SPEC's to compare; a misnamed event shows as the missing one.
    if (!e || protocol::type_of(*e) == event_type::stream_gap) return;
    json value = event_value(*e, ids_);
    value["type"] = std::string(protocol::to_string(protocol::type_of(*e)));
    std::string entity = entity_of(*e, value);
    const std::string session = ids_.name_of(protocol::string_at(r.data, "session"));
    if (session != "S1") entity += " in " + session;
    add(r.at, "events of " + entity, compact(value), event_rules(protocol::type_of(*e)), true);
  }

  //! A model step's tool results. Not its tools: a step may be built at any moment between
  //! its cause and its request, and may see any tool list live in between (TOOLS-6); the
  //! TOOLS-3 invariant judges that on each run's own events.
  void model_step(const trace_record& r) {
    const std::string owner_id = protocol::string_at(r.data, "owner_id");
    step_owners_[r.data.value("step_id", std::uint64_t{0})] = owner_id;
    const std::string owner = ids_.name_of(owner_id);
    json results = json::array();
    const json& received = protocol::member_at(r.data, "tool_results");
    if (received.is_array()) {
      for (const auto& result : received) {
        const json& id = protocol::member_at(result, "tool_call_id");
        results.push_back(
            {{"tool_call_id", id},
             {"content", freedom::fixed_tool_result(protocol::member_at(result, "content"),
                                                    undeclared_task_call(owner_id, id))}});
      }
    }
    std::sort(results.begin(), results.end());
    json value = {{"results", results}};
    std::vector<std::string> rules = {"CALL-8", "MODEL-1", "CALL-9"};
    // A task's tools are fixed when it is created (TASK-1), so what its steps are offered
    // is too, under the names declared (TASK-10), in any order; a session's are not
    // (above). Found by explore: a server offering "client_tools__confirm" went unseen.
    if (protocol::string_at(r.data, "owner") == "task") {
      std::vector<std::string> offered;
      for (const auto& name : protocol::member_at(r.data, "offered")) {
        if (name.is_string()) offered.push_back(name.get<std::string>());
      }
      std::sort(offered.begin(), offered.end());
      value["offered"] = offered;
      rules.push_back("TASK-10");
    }
    auto& added = add(r.at, "model steps of " + owner, compact(value), std::move(rules), true);
    if (const auto creator = task_creators_.find(owner_id); creator != task_creators_.end())
      added.task_caller = creator->second;
  }

  observation& add(time_ms at, const std::string& subject, std::string value,
                   std::vector<std::string> rules, bool timed) {
    const int n = ++count_[subject];
    observation o;
    o.at = at;
    o.subject = subject + " [" + std::to_string(n) + "]";
    o.value = std::move(value);
    o.spec_ids = std::move(rules);
    o.timed = timed;
    o.nth = n;
    return out_.emplace_back(std::move(o));
  }

  id_names ids_;
  processing_polls polls_;
  std::map<std::string, std::vector<std::set<std::string>>> creating_;  // actor -> tools
  std::map<std::string, std::set<std::string>> task_tools_;             // task uuid -> tools
  std::map<std::string, std::string> task_creators_;                    // task uuid -> actor
  std::map<std::string, std::set<std::string>> surfaced_;  // task uuid -> names shown pending
  std::map<std::uint64_t, std::string> step_owners_;       // model step -> owner
  std::map<std::pair<std::string, std::string>, std::string> call_names_;
  std::map<std::string, int> count_;
  std::map<std::string, std::string> last_answer_;
  std::vector<observation> out_;
};

}  // namespace

std::vector<observation> observe(const trace& run, processing_polls polls) {
  observer o(run, polls);
  for (const auto& r : run.records())
    o.take(r);
  return std::move(o).done();
}

std::vector<std::string> registration_order(const trace& run) {
  const id_names ids(run);
  std::vector<std::string> order;
  for (const auto& r : run.records()) {
    if (r.kind != "event" || protocol::parse_event_type(protocol::string_at(r.data, "type")) !=
                                 event_type::client_registered) {
      continue;
    }
    const std::string id = protocol::string_at(protocol::member_at(r.data, "data"), "client_id");
    const std::string actor = ids.name_of(id);
    if (actor != id) order.push_back(actor);
  }
  return order;
}

std::optional<divergence> first_divergence(const std::vector<observation>& reference,
                                           const std::vector<observation>& target,
                                           time_ms tolerance_ms, lateness how) {
  std::map<std::string, const observation*> theirs;
  for (const auto& o : target)
    theirs.emplace(o.subject, &o);
  std::optional<divergence> first;
  bool first_timed = false;
  auto consider = [&](const observation* ref, const observation* tgt, time_ms behind) {
    const observation& any = ref != nullptr ? *ref : *tgt;
    time_ms at = any.at;
    if (ref != nullptr && tgt != nullptr) {
      const bool same_time =
          !any.timed || std::abs(ref->at - tgt->at) <=
                            tolerance_ms + behind + std::max(ref->slack_ms, tgt->slack_ms);
      if (ref->value == tgt->value && same_time) return;
      at = std::min(ref->at, tgt->at);
    }
    // At one instant an event is the cause and a response its effect (a ping refused
    // because the client expired): the event is the one to report.
    if (first && (first->at < at || (first->at == at && (first_timed || !any.timed)))) return;
    first_timed = any.timed;
    divergence d;
    d.at = at;
    d.subject = any.subject;
    d.spec_ids = any.spec_ids;
    d.actor = any.actor;
    d.route = any.route;
    if (ref != nullptr) d.reference = ref->value, d.reference_at = ref->at;
    if (tgt != nullptr) d.target = tgt->value, d.target_at = tgt->at;
    first = std::move(d);
  };
  std::set<std::string> seen;
  time_ms behind = 0;  // lateness::inherited: the most the target was late so far
  for (const auto& o : reference) {
    seen.insert(o.subject);
    auto it = theirs.find(o.subject);
    const observation* tgt = it == theirs.end() ? nullptr : it->second;
    if (!o.timed) {
      consider(&o, tgt, 0);
      continue;
    }
    consider(&o, tgt, behind);
    if (how == lateness::inherited && tgt != nullptr && tgt->value == o.value)
      behind = std::max(behind, tgt->at - o.at);
  }
  for (const auto& o : target) {
    if (!seen.contains(o.subject)) consider(nullptr, &o, 0);
  }
  return first;
}

std::vector<std::string> describe(const divergence& d) {
  auto shown = [](const std::optional<std::string>& value, time_ms at) {
    return value ? *value + " (at " + std::to_string(at) + " ms)" : std::string("nothing");
  };
  std::string rules;
  for (const auto& id : d.spec_ids)
    rules += (rules.empty() ? "" : ", ") + id;
  return {"at " + std::to_string(d.at) + " ms, " + d.subject + ":",
          "  the reference showed " + shown(d.reference, d.reference_at),
          "  the target showed    " + shown(d.target, d.target_at), "  rules: " + rules};
}

}  // namespace toolwire::actors
