// Expectations taken from the oracle's run, so that a written program fails where the
// target diverged and passes on the reference.
#include <algorithm>
#include <map>
#include <set>

#include "generate.hpp"
#include "toolwire/actors/expectations.hpp"
#include "toolwire/actors/observations.hpp"
#include "toolwire/actors/simulator.hpp"
#include "toolwire/explore/explore.hpp"
#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::explore {

using scenarios::scenario;
using scenarios::scripted_step;

namespace {

using actors::divergence;
using protocol::json;
using scenarios::expectation;

actors::trace clean_run(const scenario& program, std::uint64_t seed) {
  auto clean = program;
  clean.faults.clear();
  actors::run_options options;
  options.seed = seed;
  options.source = "explore";
  auto result = actors::simulate(clean, options);
  return result ? std::move(result->trace) : actors::trace{};
}

struct step_answer {
  int status = 0;
  std::string error;
};

//! The status and error type each scripted step got, by step index.
std::map<std::size_t, step_answer> step_answers(const actors::trace& run) {
  std::map<std::size_t, step_answer> answers;
  for (const auto& r : run.records()) {
    if (r.kind != "response" || !r.data.contains("step")) continue;
    const json& error = protocol::member_at(protocol::member_at(r.data, "body"), "error");
    answers.emplace(r.data["step"].get<std::size_t>(),
                    step_answer{r.data.value("status", 0),
                                error.is_object() ? protocol::string_at(error, "type") : ""});
  }
  return answers;
}

//! How many calls the session had dispatched by `at`.
std::size_t dispatched_by(const actors::trace& run, time_ms at) {
  return static_cast<std::size_t>(
      std::count_if(run.records().begin(), run.records().end(), [&](const actors::trace_record& r) {
        return r.at <= at && r.kind == "event" &&
               protocol::parse_event_type(r.data.value("type", "")) ==
                   protocol::event_type::client_tool_dispatched;
      }));
}

bool is_actor(const scenario& program, const std::string& name) {
  return std::any_of(program.clients.begin(), program.clients.end(),
                     [&](const scenarios::client_spec& c) { return c.actor == name; });
}

//! What an `event` expectation can name of an event on any implementation: not its ids,
//! which are opaque, but whose it is, which call in dispatch order ({call:N}) and what it
//! says; a tool list in any order (SPEC does not order it).
class event_matcher {
 public:
  event_matcher(const scenario& program, const std::vector<actors::observation>& oracle)
      : program_(program) {
    for (const auto& o : oracle) {
      if (!o.subject.starts_with("events of call ")) continue;
      const json event = json::parse(o.value, nullptr, false);
      if (!event.is_object() || event.value("type", "") != dispatched_name()) continue;
      dispatch_order_.emplace(event.value("call_id", ""), dispatch_order_.size() + 1);
    }
  }

  json fields_of(const json& event) const {
    json args = {{"type", event.value("type", "")}};
    for (const char* field : {"tool", "reason", "name", "is_error", "output"}) {
      if (event.contains(field)) args[field] = event[field];
    }
    if (event.contains("tools")) args["tools"] = {{"$any_order", event["tools"]}};
    // A client's name is the order of its registration among same-named ones, which SPEC
    // leaves open at one instant (REG-6): which client a name went to is not pinned. So a
    // registration is named by the name it got (how many got it is order-free), anything
    // else about a client by whose it is, not by a name that order gave it.
    const std::string client = event.value("client_id", "");
    const bool names_a_registration =
        event.value("type", "") == protocol::to_string(protocol::event_type::client_registered);
    if (names_a_registration) {
      args.erase("client_id");
    } else {
      args.erase("name");
      if (is_actor(program_, client)) args["client_id"] = "{cid:" + client + "}";
    }
    if (auto n = dispatch_order_.find(event.value("call_id", "")); n != dispatch_order_.end()) {
      args["call_id"] = "{call:" + std::to_string(n->second) + "}";
    }
    return args;
  }

  bool matches(const json& event, const json& args) const {
    const json mine = fields_of(event);
    for (const auto& [key, value] : args.items()) {
      if (!mine.contains(key) || mine[key] != value) return false;
    }
    return true;
  }

 private:
  static std::string dispatched_name() {
    return std::string(protocol::to_string(protocol::event_type::client_tool_dispatched));
  }
  const scenario& program_;
  std::map<std::string, std::size_t> dispatch_order_;  // call name -> N
};

//! The count of events like the one that diverged, by `check_at`: what the oracle saw.
//! Like the one shown first, where they part: the target's, when it came before the
//! reference's. Why: counted by the reference's, an event the target shows early in
//! another form (result_timeout at 2,301 ms where the reference has client_expired at
//! 7,000) counts 0 on both by the check, and the written scenario passed on the fault
//! (explore's proof, ack_does_not_extend_deadline, once task callers repeated results).
std::optional<expectation> event_expectation(const divergence& d, const actors::trace& oracle,
                                             const scenario& program, time_ms check_at) {
  const bool target_first = d.target && (!d.reference || d.target_at < d.reference_at);
  const json shown = json::parse(target_first ? *d.target : *d.reference, nullptr, false);
  if (!shown.is_object()) return std::nullopt;
  const auto observed = actors::observe(oracle);
  const event_matcher matcher(program, observed);
  json args = matcher.fields_of(shown);
  std::size_t count = 0;
  for (const auto& o : observed) {
    if (o.at > check_at || !o.subject.starts_with("events of ")) continue;
    if (matcher.matches(json::parse(o.value, nullptr, false), args)) ++count;
  }
  args["count"] = count;
  return expectation{"event", args, d.spec_ids, ""};
}

//! `early`: the target's step came first, and the expectation counts a result of it the
//! oracle's model had not received by `check_at`; else one of the reference's results the
//! target's step lacked.
std::optional<expectation> model_expectation(const divergence& d, const actors::trace& oracle,
                                             time_ms check_at, bool early) {
  if (!d.reference || !d.subject.starts_with("model steps of ")) return std::nullopt;
  const json reference = json::parse(*d.reference, nullptr, false);
  const json target = d.target ? json::parse(*d.target, nullptr, false) : json();
  if (!reference.is_object()) return std::nullopt;
  // The first result the target got otherwise. Why by owner: the model's call ids restart
  // for every turn and task (call_0_0 in the session and in a task are two calls), and a
  // name looked up across owners named a task's call by the session's tool (explore_over_http:
  // an expectation of client_error for 'ghost', a call the server answers itself).
  std::map<std::uint64_t, std::string> owner_of_step;  // model step -> owner id
  std::string owner;  // of the step that diverged: the one at its instant carrying its results
  std::set<std::string> diverged_ids;
  for (const auto& result : reference["results"])
    diverged_ids.insert(result.value("tool_call_id", ""));
  for (const auto& r : oracle.records()) {
    if (r.kind != "model_step") continue;
    const std::string owner_id = protocol::string_at(r.data, "owner_id");
    owner_of_step[r.data.value("step_id", std::uint64_t{0})] = owner_id;
    std::set<std::string> ids;
    for (const auto& result : protocol::member_at(r.data, "tool_results"))
      ids.insert(protocol::string_at(result, "tool_call_id"));
    if (owner.empty() && r.at == d.reference_at && ids == diverged_ids) owner = owner_id;
  }
  std::map<std::string, std::string> names;  // the owner's model call id -> tool name
  for (const auto& r : oracle.records()) {
    if (r.kind != "model_reply") continue;
    const auto step_owner = owner_of_step.find(r.data.value("step_id", std::uint64_t{0}));
    if (step_owner == owner_of_step.end() || step_owner->second != owner) continue;
    for (const auto& call : protocol::member_at(protocol::member_at(r.data, "reply"), "tool_calls"))
      names[protocol::string_at(call, "id")] = protocol::string_at(call, "name");
  }
  const json theirs = target.is_object() ? target["results"] : json::array();
  for (const auto& result : early ? theirs : reference["results"]) {
    if (!early && std::find(theirs.begin(), theirs.end(), result) != theirs.end()) continue;
    const std::string tool = names[result.value("tool_call_id", "")];
    if (tool.empty()) break;
    json args = {{"tool", tool}};
    const json& content = result["content"];
    if (content.is_object() && content.size() == 1 && content.contains("error")) {
      // An error whose reason is free (TASK-8: {"error": true}) has no reason to expect,
      // and any error the target gave would meet it: no model_received pins it.
      if (!content["error"].is_string()) continue;
      args["error"] = content["error"];
    } else {
      args["content"] = content;
    }
    // As many as the oracle's model received by then: another owner's step may have
    // received a result of the same kind, and "at least one" would hold on a target that
    // never took this step (explore_over_http, interrupt_deadline_early: one task's error
    // for locate stood in for the other's, and the written scenario passed on the fault).
    args["count"] = actors::model_results_received(args, oracle, check_at);
    return expectation{"model_received", args, {"CALL-8"}, ""};
  }
  return std::nullopt;
}

//! How many answers like the one that diverged the actor's requests of its route got in
//! the oracle by `check_at` (a task caller's results, a client's own acks and pings).
std::optional<expectation> answer_expectation(const divergence& d, const actors::trace& oracle,
                                              time_ms check_at) {
  if (d.actor.empty() || d.route.empty()) return std::nullopt;
  const json shown = json::parse(d.reference ? *d.reference : *d.target, nullptr, false);
  if (!shown.is_object() || !shown.contains("status")) return std::nullopt;
  // Only where the answers differ in status or error: a poll's task shown otherwise has
  // the same answer to count.
  if (d.reference && d.target) {
    const json theirs = json::parse(*d.target, nullptr, false);
    if (theirs.is_object() && theirs.value("status", 0) == shown["status"] &&
        theirs.value("error", "") == shown.value("error", ""))
      return std::nullopt;
  }
  json args = {{"actor", d.actor}, {"route", d.route}, {"status", shown["status"]}};
  if (shown.contains("error")) args["error"] = shown["error"];
  args["count"] = actors::requests_answered(args, oracle, check_at);
  return expectation{"answered", args, d.spec_ids, ""};
}

struct pinned {
  expectation expect;
  time_ms at = 0;
};

//! One expectation that holds on the oracle and not on the target, and when to check it:
//! an event count just after the first of the two times (where they part), a model step
//! once both have happened.
std::optional<pinned> pin_down(const divergence& d, const actors::trace& oracle,
                               const scenario& program, time_ms tolerance_ms) {
  const time_ms margin = std::max<time_ms>(1, tolerance_ms);
  if (d.subject.starts_with("events of ")) {
    const time_ms at = d.at + margin;
    if (auto e = event_expectation(d, oracle, program, at)) return pinned{*e, at};
  }
  if (d.subject.starts_with("model steps of ")) {
    // A step the target took before the reference did (MODEL-1: the model called before
    // every call of its step settled): a result the target's model had by then, the
    // oracle's had not. Why not only once both stepped: by then the oracle had what the
    // target's earlier step lacked, and the target had it too, a step later (explore,
    // next_step_before_all_settled: a written ack_timeout count held on the fault).
    if (d.target && d.target_at + margin < d.reference_at) {
      const time_ms at = d.target_at + margin;
      if (auto e = model_expectation(d, oracle, at, true)) return pinned{*e, at};
    }
    const time_ms at = std::max(d.reference_at, d.target_at) + margin;
    if (auto e = model_expectation(d, oracle, at, false)) return pinned{*e, at};
  }
  if (!d.actor.empty()) {
    const time_ms at = d.at + margin;
    if (auto e = answer_expectation(d, oracle, at)) return pinned{*e, at};
  }
  return std::nullopt;  // a step's own answer is already expected
}

}  // namespace

scenario with_oracle_expectations(scenario program, std::uint64_t seed,
                                  const std::optional<divergence>& at, time_ms tolerance_ms) {
  program.faults.clear();
  const auto oracle = clean_run(program, seed);
  const auto answers = step_answers(oracle);
  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    auto& step = program.steps[i];
    if (auto answer = answers.find(i); answer != answers.end()) {
      json args = {{"status", answer->second.status}};
      if (!answer->second.error.empty()) args["error"] = answer->second.error;
      step.expect = {{"response", args, detail::ids_for(step), ""}};
      continue;
    }
    // The reference could not even perform this step (it names a call that was never
    // dispatched there). What it shows is how many calls were dispatched by then, so the
    // written scenario checks that instead of acting.
    step.action.clear();
    step.actor = "director";
    step.args = json::object();
    const std::string dispatched(protocol::to_string(protocol::event_type::client_tool_dispatched));
    step.expect = {{"event",
                    {{"type", dispatched}, {"count", dispatched_by(oracle, step.at)}},
                    {"CALL-1", "TOOLS-3"},
                    ""}};
  }
  if (!at) return program;
  if (auto pin = pin_down(*at, oracle, program, tolerance_ms)) {
    const time_ms check_at = pin->at;
    scenarios::scripted_step check{check_at, "director", "", json::object(), {pin->expect}, ""};
    const auto after =
        std::upper_bound(program.steps.begin(), program.steps.end(), check_at,
                         [](time_ms t, const scenarios::scripted_step& s) { return t < s.at; });
    program.steps.insert(after, std::move(check));
    program.duration = std::max(program.duration, check_at + 1);
  }
  return program;
}

}  // namespace toolwire::explore
