// Checking a scripted scenario's expectations on its trace.
#include "toolwire/actors/expectations.hpp"
#include "toolwire/actors/freedom.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <set>

#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/routes.hpp"
#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/scenarios/vocabulary.hpp"

namespace toolwire::actors {

namespace {

using protocol::event_type;

//! The key of the one form that asks for exactness: `{"$exactly": VALUE}` anywhere in an
//! expected value matches only a value equal to VALUE, with no extra field at any depth.
constexpr const char* exactly_key = "$exactly";

bool exact_form(const json& expected) {
  return expected.is_object() && expected.size() == 1 && expected.contains(exactly_key);
}

//! The key of the form for lists whose order SPEC leaves open: `{"$any_order": [A, B]}`
//! matches an array of as many items that can be paired one to one with A and B.
constexpr const char* any_order_key = "$any_order";

bool any_order_form(const json& expected) {
  return expected.is_object() && expected.size() == 1 && expected.contains(any_order_key) &&
         expected[any_order_key].is_array();
}

//! Pairs expected[from..] with unused actual items, trying each candidate in turn: lists
//! in cases are short, so the search is small.
bool pair_up(const json& expected, std::size_t from, const json& actual, std::vector<bool>& used) {
  if (from == expected.size()) return true;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (used[i] || !value_matches(expected[from], actual[i])) continue;
    used[i] = true;
    if (pair_up(expected, from + 1, actual, used)) return true;
    used[i] = false;
  }
  return false;
}

bool matches_in_any_order(const json& expected, const json& actual) {
  if (!actual.is_array() || actual.size() != expected.size()) return false;
  std::vector<bool> used(actual.size(), false);
  return pair_up(expected, 0, actual, used);
}

}  // namespace

bool value_matches(const json& expected, const json& actual) {
  if (exact_form(expected)) return expected[exactly_key] == actual;
  if (any_order_form(expected)) return matches_in_any_order(expected[any_order_key], actual);
  if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size()) return false;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (!value_matches(expected[i], actual[i])) return false;
    }
    return true;
  }
  if (!expected.is_object()) return expected == actual;
  if (!actual.is_object()) return false;
  return std::all_of(expected.items().begin(), expected.items().end(), [&](const auto& item) {
    auto it = actual.find(item.key());
    return it != actual.end() && value_matches(item.value(), *it);
  });
}

namespace {

bool subset(const json& expected, const json& actual) {
  return value_matches(expected, actual);
}

struct verdict {
  bool passed;
  std::string observed;
};

//! The records of one run, indexed the ways the checks need.
class trace_view {
 public:
  explicit trace_view(const trace& run) : run_(run) {
    const auto& records = run.records();
    for (std::size_t i = 0; i < records.size(); ++i) {
      const auto& r = records[i];
      if (!r.data.contains("step")) continue;
      const auto step = r.data["step"].get<std::size_t>();
      // The last: a real-clock poll repeated while the task owed its status (director).
      if (r.kind == "response") responses_[step] = i;
      if (r.kind == "expect") markers_.try_emplace(step, i);
      if (r.kind == "step_error") errors_.try_emplace(step, r.data.value("message", ""));
    }
  }

  const trace_record* response(std::size_t step) const { return find(responses_, step); }
  const trace_record* marker(std::size_t step) const { return find(markers_, step); }
  std::string error(std::size_t step) const {
    auto it = errors_.find(step);
    return it == errors_.end() ? "" : it->second;
  }

  //! The session events of `session` recorded at or before `by`.
  std::vector<const trace_record*> events(const std::string& session, time_ms by) const {
    return events_where(session,
                        [by](const trace_record& r) { return r.at <= by && r.kind == "event"; });
  }
  //! The session events of `session` recorded after `by`: what a check by then missed,
  //! with those a real-clock run recorded after its end for this alone (record_late_events).
  std::vector<const trace_record*> later_events(const std::string& session, time_ms by) const {
    return events_where(session, [by](const trace_record& r) {
      return r.at > by && (r.kind == "event" || r.kind == "event_after_end");
    });
  }

  const std::vector<trace_record>& records() const { return run_.records(); }

 private:
  template <typename Wanted>
  std::vector<const trace_record*> events_where(const std::string& session, Wanted wanted) const {
    std::vector<const trace_record*> found;
    for (const auto& r : run_.records()) {
      if (wanted(r) && r.data.value("session", "") == session) {
        found.push_back(&r);
      }
    }
    return found;
  }

  const trace_record* find(const std::map<std::size_t, std::size_t>& index,
                           std::size_t step) const {
    auto it = index.find(step);
    return it == index.end() ? nullptr : &run_.records()[it->second];
  }

  const trace& run_;
  std::map<std::size_t, std::size_t> responses_;
  std::map<std::size_t, std::size_t> markers_;
  std::map<std::size_t, std::string> errors_;
};

std::string brief(const json& value, std::size_t limit = 240) {
  std::string text = value.dump();
  if (text.size() > limit) text = text.substr(0, limit) + "…";
  return text;
}

//! The items of a comma-separated header value, trimmed; lowercased when `fold`.
std::vector<std::string> header_items(const std::string& value, bool fold) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= value.size()) {
    const auto end = std::min(value.find(',', start), value.size());
    std::string item = value.substr(start, end - start);
    const auto first = item.find_first_not_of(" \t");
    const auto last = item.find_last_not_of(" \t");
    item = first == std::string::npos ? "" : item.substr(first, last - first + 1);
    if (fold) {
      for (auto& c : item)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (!item.empty()) items.push_back(std::move(item));
    start = end + 1;
  }
  return items;
}

//! Whether a browser lets the page of the asked origin read this answer and, for a
//! preflight, send the request it asked about: the CORS check of the Fetch standard for a
//! request without credentials mode (the tab sends a bearer token, no cookies), so `*` is
//! as good as the origin itself, except that it never covers `Authorization`. Judged so
//! that any server a browser accepts passes, whatever else its answer holds (CORS-1..3).
bool browser_allows(const json& asked, const json& answered, int status) {
  const auto field = [](const json& fields, const char* name) {
    return fields.is_object() && fields.contains(name) && fields[name].is_string()
               ? fields[name].get<std::string>()
               : std::string();
  };
  const std::string origin = field(asked, "origin");
  const std::string allowed = field(answered, "access-control-allow-origin");
  if (origin.empty() || (allowed != "*" && allowed != origin)) return false;
  const std::string method = field(asked, "access-control-request-method");
  if (method.empty()) return true;  // not a preflight: readable
  if (status < 200 || status > 299) return false;
  const auto methods = header_items(field(answered, "access-control-allow-methods"), false);
  const bool safelisted = method == "GET" || method == "HEAD" || method == "POST";
  if (!safelisted && std::find(methods.begin(), methods.end(), method) == methods.end() &&
      std::find(methods.begin(), methods.end(), "*") == methods.end())
    return false;
  const auto headers = header_items(field(answered, "access-control-allow-headers"), true);
  const bool any = std::find(headers.begin(), headers.end(), "*") != headers.end();
  for (const auto& wanted : header_items(field(asked, "access-control-request-headers"), true)) {
    const bool listed = std::find(headers.begin(), headers.end(), wanted) != headers.end();
    if (!listed && (!any || wanted == "authorization")) return false;
  }
  return true;
}

verdict check_response(const scenarios::expectation& expected, const trace_view& view,
                       std::size_t step) {
  const auto* response = view.response(step);
  if (response == nullptr) {
    const auto error = view.error(step);
    return {false, error.empty() ? "no response was recorded" : "the step could not run: " + error};
  }
  const int status = response->data.value("status", 0);
  const json& body = response->data["body"];
  std::string type;
  if (body.is_object() && body.contains("error") && body["error"].is_object()) {
    type = body["error"].value("type", "");
  }
  std::string observed = "status " + std::to_string(status) + ", body " + brief(body);
  const auto& args = expected.args;
  if (args.contains("cors")) {
    const json& cors = protocol::member_at(response->data, "cors");
    const json& answered = protocol::member_at(cors, "answered");
    observed += ", CORS fields " + brief(answered.is_object() ? answered : json::object());
    const bool allowed = browser_allows(protocol::member_at(cors, "asked"), answered, status);
    if (allowed != (args.value("cors", "") == "allowed")) return {false, observed};
  }
  if (args.contains("status") && args["status"].get<int>() != status) return {false, observed};
  if (args.contains("error") && args.value("error", "") != type) return {false, observed};
  if (args.contains("body") && !subset(args["body"], body)) return {false, observed};
  return {true, observed};
}

json event_fields(const json& args) {
  json fields = args;
  for (const auto* reserved : {"type", "count", "seen_by"})
    fields.erase(reserved);
  return fields;
}

//! The session events `actor` received on its own stream by `by`, in delivery order
//! (a replay after a reconnect delivers some twice).
std::vector<const trace_record*> delivered_to(const std::string& actor, const trace_view& view,
                                              const std::string& session, time_ms by) {
  std::map<std::uint64_t, const trace_record*> by_seq;
  for (const auto* r : view.events(session, std::numeric_limits<time_ms>::max())) {
    by_seq[r->data.value("seq", std::uint64_t{0})] = r;
  }
  std::vector<const trace_record*> delivered;
  for (const auto& r : view.records()) {
    if (r.at > by || r.actor != actor || r.kind != "deliver") continue;
    auto it = by_seq.find(r.data.value("seq", std::uint64_t{0}));
    if (it != by_seq.end()) delivered.push_back(it->second);
  }
  return delivered;
}

//! When an expected event missing by `by` came later in the run, when it came: a target
//! that acted late is told apart from one that never acted (a real clock's slow target,
//! whose deadline event missed the tolerance window, read as "no event at all").
std::string came_later(const json& args, const trace_view& view, const std::string& session,
                       time_ms by) {
  const std::string type = args.value("type", "");
  const json fields = event_fields(args);
  for (const auto* r : view.later_events(session, by)) {
    if (r->data.value("type", "") == type && subset(fields, r->data["data"])) {
      return "; a matching one came later, at " + std::to_string(r->at) + " ms (checked by " +
             std::to_string(by) + " ms)";
    }
  }
  return "";
}

verdict check_event(const json& args, bool wanted, const trace_view& view,
                    const std::string& session, time_ms by) {
  const std::string type = args.value("type", "");
  const json fields = event_fields(args);
  std::size_t matching = 0;
  std::vector<std::string> same_type;
  const std::string seen_by = args.value("seen_by", "");
  const auto candidates =
      seen_by.empty() ? view.events(session, by) : delivered_to(seen_by, view, session, by);
  for (const auto* r : candidates) {
    if (r->data.value("type", "") != type) continue;
    same_type.push_back(brief(r->data["data"], 160));
    if (subset(fields, r->data["data"])) ++matching;
  }
  const std::string later =
      wanted && matching == 0 && seen_by.empty() ? came_later(args, view, session, by) : "";
  std::string observed = std::to_string(matching) + " matching";
  if (!same_type.empty()) {
    observed += "; " + type + " events seen: ";
    for (std::size_t i = 0; i < same_type.size() && i < 4; ++i)
      observed += (i ? ", " : "") + same_type[i];
  } else if (!seen_by.empty()) {
    observed += "; no " + type + " event on " + seen_by + "'s stream";
  } else {
    observed += "; no " + type + " event " + (later.empty() ? "in the run" : "by then");
  }
  observed += later;
  if (!wanted) return {matching == 0, observed};
  if (args.contains("count")) return {matching == args["count"].get<std::size_t>(), observed};
  return {matching > 0, observed};
}

//! The settlement events of `call_id` among `events`, with the instant of each.
std::vector<std::pair<time_ms, json>> settlements_of(
    const std::string& call_id, const std::vector<const trace_record*>& events) {
  std::vector<std::pair<time_ms, json>> settlements;
  for (const auto* r : events) {
    const auto type = r->data.value("type", "");
    const auto parsed = protocol::parse_event_type(type);
    if ((parsed == event_type::client_tool_completed || parsed == event_type::client_tool_failed) &&
        protocol::string_at(r->data["data"], "call_id") == call_id) {
      settlements.emplace_back(r->at, json{{"type", type}, {"data", r->data["data"]}});
    }
  }
  return settlements;
}

verdict check_settled(const json& args, const trace_view& view, const std::string& session,
                      time_ms by) {
  if (args["call_id"].is_null()) return {false, "that call was never dispatched"};
  const std::string call_id = args.value("call_id", "");
  std::vector<json> settlements;
  for (auto& [at, settlement] : settlements_of(call_id, view.events(session, by)))
    settlements.push_back(std::move(settlement));
  if (settlements.size() != 1) {
    std::string observed = call_id + " settled " + std::to_string(settlements.size()) +
                           " times: " + brief(settlements);
    // As came_later: a call the target settled late, past the check, is not a call it
    // never settled.
    if (const auto later = settlements_of(call_id, view.later_events(session, by));
        settlements.empty() && !later.empty()) {
      observed += "; it settled later, at " + std::to_string(later.front().first) +
                  " ms (checked by " + std::to_string(by) + " ms): " + brief(later.front().second);
    }
    return {false, observed};
  }
  const auto& settled = settlements.front();
  const std::string outcome =
      protocol::parse_event_type(settled.value("type", "")) == event_type::client_tool_completed
          ? "completed"
          : "failed";
  const std::string observed = call_id + " " + outcome + " " + brief(settled["data"]);
  if (args.value("outcome", "") != outcome) return {false, observed};
  if (args.contains("reason") &&
      protocol::string_at(settled["data"], "reason") != args.value("reason", "")) {
    return {false, observed};
  }
  return {true, observed};
}

verdict check_offered(const json& args, const trace_view& view, time_ms by) {
  const auto k = args.value("step", 0);
  int seen = 0;
  for (const auto& r : view.records()) {
    if (r.at > by || r.kind != "model_step" || ++seen != k) continue;
    auto offered = r.data["offered"].get<std::vector<std::string>>();
    auto wanted = args["tools"].get<std::vector<std::string>>();
    std::sort(offered.begin(), offered.end());
    std::sort(wanted.begin(), wanted.end());
    return {offered == wanted, "model step " + std::to_string(k) + " offered " + brief(offered)};
  }
  return {false, "only " + std::to_string(seen) + " model steps by then"};
}

bool result_matches(const json& args, const json& content) {
  const std::string text = content.is_string() ? content.get<std::string>() : content.dump();
  if (args.contains("content")) {
    const json& want = args["content"];
    if (want.is_string()) return text == want.get<std::string>();
    // CALL-8: other JSON arrives as its serialization; any spacing or key order of that
    // text is the same value.
    const json parsed = json::parse(text, nullptr, false);
    return !parsed.is_discarded() && parsed == want;
  }
  if (args.contains("error")) {
    // CALL-8 [P]: an error is `{"error": {"reason", "message"}}`; its reason is fixed, its
    // message free (the freedom table).
    const json parsed = json::parse(text, nullptr, false);
    return parsed.is_object() && parsed.contains("error") && parsed["error"].is_object() &&
           freedom::fixed_tool_result(json(text), /*reason_free=*/false) ==
               json{{"error", args.value("error", "")}};
  }
  return true;
}

//! The results for `args`' tool the model received by `by`, briefly, and how many of them
//! match `args`.
struct received_results {
  std::vector<std::string> texts;
  std::size_t matching = 0;
};

received_results results_received(const json& args, const std::vector<trace_record>& records,
                                  time_ms by) {
  const std::string tool = args.value("tool", "");
  // Why by owner: the model's call ids restart for every turn and task, so call_0_0 of one
  // task and of another are two calls with their own tools.
  std::map<std::uint64_t, std::string> owner_of_step;                // step -> owner id
  std::map<std::pair<std::string, std::string>, std::string> names;  // (owner, id) -> tool
  received_results received;
  for (const auto& r : records) {
    if (r.at > by) break;
    if (r.kind == "model_step") {
      owner_of_step[r.data.value("step_id", std::uint64_t{0})] =
          protocol::string_at(r.data, "owner_id");
    }
    if (r.kind == "model_reply" && r.data["reply"].contains("tool_calls")) {
      const std::string owner = owner_of_step[r.data.value("step_id", std::uint64_t{0})];
      for (const auto& call : r.data["reply"]["tool_calls"])
        names[{owner, call.value("id", "")}] = call.value("name", "");
    }
    if (r.kind != "model_step" || !r.data.contains("tool_results")) continue;
    const std::string owner = protocol::string_at(r.data, "owner_id");
    for (const auto& result : r.data["tool_results"]) {
      if (names[{owner, protocol::string_at(result, "tool_call_id")}] != tool) continue;
      received.texts.push_back(brief(result["content"], 160));
      if (result_matches(args, result["content"])) ++received.matching;
    }
  }
  return received;
}

verdict check_received(const json& args, const trace_view& view, time_ms by) {
  const auto received = results_received(args, view.records(), by);
  const std::string tool = args.value("tool", "");
  if (args.contains("count")) {
    // Exactly: a result the model should have received and did not is what a count pins
    // (explore writes it where another owner's step received a result of the same kind).
    const auto wanted = args["count"].get<std::size_t>();
    return {received.matching == wanted, "the model received " + std::to_string(received.matching) +
                                             " such result(s) for " + tool};
  }
  if (received.matching > 0) return {true, "received a result that matches"};
  if (received.texts.empty()) return {false, "the model received no result for " + tool};
  std::string observed = "the model received for " + tool + ":";
  for (const auto& r : received.texts)
    observed += " " + r;
  return {false, observed};
}

verdict check_task(const json& args, const trace_view& view, time_ms by) {
  if (args["task_uuid"].is_null()) return {false, "the task was never created"};
  const std::string path =
      protocol::route_path(protocol::route_id::get_task, {args.value("task_uuid", "")});
  const trace_record* latest = nullptr;
  for (const auto& r : view.records()) {
    if (r.at <= by && r.kind == "response" && r.data.value("method", "") == "GET" &&
        r.data.value("path", "") == path && r.data.value("status", 0) == 200) {
      latest = &r;
    }
  }
  if (latest == nullptr) return {false, "the task was never polled"};
  const json& body = latest->data["body"];
  const std::string status = protocol::string_at(body, "status");
  const json& listed = protocol::member_at(body, "pending_tool_calls");
  const auto pending = listed.is_array() ? listed.size() : 0;
  const std::string observed =
      "status " + status + ", " + std::to_string(pending) + " pending call(s)";
  if (status != args.value("status", "")) return {false, observed};
  if (args.contains("pending") && args["pending"].get<std::size_t>() != pending) {
    return {false, observed};
  }
  return {true, observed};
}

//! `actor`'s own requests of one route (not a step's) answered by `by`: how many as
//! `args` asks, and every answer they got (by "status error").
struct answers_seen {
  std::size_t matching = 0;
  std::map<std::string, std::size_t> answers;
};

answers_seen answers_of(const json& args, const std::vector<trace_record>& records, time_ms by) {
  const std::string actor = protocol::string_at(args, "actor");
  const std::string route = protocol::string_at(args, "route");
  const json& wanted = protocol::member_at(args, "status");
  const int status = wanted.is_number_integer() ? wanted.get<int>() : 0;
  const std::string error = protocol::string_at(args, "error");
  answers_seen seen;
  for (const auto& r : records) {
    if (r.at > by || r.kind != "response" || r.actor != actor || r.data.contains("step")) continue;
    const auto found = protocol::match_route(protocol::string_at(r.data, "method"),
                                             protocol::string_at(r.data, "path"));
    if (!found || protocol::route_shown(found->route->id) != route) continue;
    const json& body_error = protocol::member_at(protocol::member_at(r.data, "body"), "error");
    const std::string type = body_error.is_object() ? protocol::string_at(body_error, "type") : "";
    const int got = r.data.value("status", 0);
    ++seen.answers[std::to_string(got) + (type.empty() ? "" : " " + type)];
    if (got == status && (error.empty() || type == error)) ++seen.matching;
  }
  return seen;
}

verdict check_answered(const json& args, const trace_view& view, time_ms by) {
  const auto [matching, answers] = answers_of(args, view.records(), by);
  const std::string actor = protocol::string_at(args, "actor");
  const std::string route = protocol::string_at(args, "route");
  std::string observed = actor + "'s " + route + " answered";
  if (answers.empty()) observed += ": never";
  for (const auto& [answer, n] : answers)
    observed += " " + answer + " ×" + std::to_string(n);
  if (args.contains("count")) return {matching == args["count"].get<std::size_t>(), observed};
  return {matching > 0, observed};
}

using scenarios::vocabulary::expectation_id;

//! A check on the trace: the expectation's resolved args, the session of its step and the
//! virtual time by which it must hold.
using trace_check = verdict (*)(const json& args, const trace_view& view,
                                const std::string& session, time_ms by);

//! Every expectation kind checked on the trace, with its checker: one row per kind of the
//! vocabulary's table but `response`, which is checked on the step's own response
//! (check_response) rather than at the step's marker.
struct trace_checker {
  expectation_id kind;
  trace_check check;
};

constexpr trace_checker trace_checkers[] = {
    {expectation_id::event, [](const json& args, const trace_view& view, const std::string& session,
                               time_ms by) { return check_event(args, true, view, session, by); }},
    {expectation_id::no_event,
     [](const json& args, const trace_view& view, const std::string& session, time_ms by) {
       return check_event(args, false, view, session, by);
     }},
    {expectation_id::call_settled, check_settled},
    {expectation_id::model_offered, [](const json& args, const trace_view& view, const std::string&,
                                       time_ms by) { return check_offered(args, view, by); }},
    {expectation_id::model_received,
     [](const json& args, const trace_view& view, const std::string&, time_ms by) {
       return check_received(args, view, by);
     }},
    {expectation_id::task_status, [](const json& args, const trace_view& view, const std::string&,
                                     time_ms by) { return check_task(args, view, by); }},
    {expectation_id::answered, [](const json& args, const trace_view& view, const std::string&,
                                  time_ms by) { return check_answered(args, view, by); }},
};

bool is_response(const scenarios::expectation& expected) {
  return scenarios::vocabulary::expectation_named(expected.kind) == expectation_id::response;
}

//! Whether an expectation that fails at its step may still pass within the grace: only
//! what a target owes and cannot take back. Not what must not have happened (no_event)
//! and not a task's status (a later poll moves on). A count is owed too, but later causes
//! add to it: it passes when it is reached at some moment of the grace (count_reached_in).
bool owed_later(expectation_id kind, const json& args) {
  switch (kind) {
    case expectation_id::event:
    case expectation_id::answered:
      return !args.contains("count");
    case expectation_id::call_settled:
    case expectation_id::model_offered:
    case expectation_id::model_received:
      return true;
    default:
      return false;
  }
}

//! A count of events (or answers) that a slow target reaches within the grace: the check
//! holds at some event's or response's time in (at, at + grace]. Why at each event and not at the
//! grace's end: later causes add to a count, so only the moment it is first reached tells. Why at
//! all: on a real clock the steps are paced tighter than a loaded target's chain of model steps and
//! dispatches (issue 21.2: 2 of 20 runs under a parallel build).
template <typename Check>
std::optional<verdict> count_reached_in(const Check& check, const trace_view& view, time_ms at,
                                        time_ms grace) {
  std::set<time_ms> moments;
  for (const auto& r : view.records()) {
    const bool counted = r.kind == "event" || r.kind == "response";
    if (counted && r.at > at && r.at <= at + grace) moments.insert(r.at);
  }
  for (const time_ms moment : moments) {
    verdict then = check(moment);
    if (then.passed) return then;
  }
  return std::nullopt;
}

verdict check_on_trace(const scenarios::expectation& expected, const json& args,
                       const trace_view& view, const trace_record& marker) {
  const std::string session = marker.data.value("session", "");
  if (const auto kind = scenarios::vocabulary::expectation_named(expected.kind)) {
    for (const auto& row : trace_checkers) {
      if (row.kind != *kind) continue;
      verdict at_step = row.check(args, view, session, marker.at);
      if (at_step.passed) return at_step;
      // A slow target on a real clock may show what the step expects up to the run's
      // grace later (the run waits that long for what is owed).
      const time_ms grace = marker.data.value("grace_ms", time_ms{0});
      if (grace <= 0) return at_step;
      const bool counts = *kind == expectation_id::event || *kind == expectation_id::answered;
      if (counts && args.contains("count")) {
        const auto reached = count_reached_in(
            [&](time_ms by) { return row.check(args, view, session, by); }, view, marker.at, grace);
        return reached ? *reached : at_step;
      }
      if (!owed_later(*kind, args)) return at_step;
      // Either way, what the target showed by the grace's end is the observation to
      // report: "offered []" says more than "no model step yet" at the step's time.
      return row.check(args, view, session, marker.at + grace);
    }
  }
  return {false, "unknown expectation kind '" + expected.kind + "'"};
}

}  // namespace

bool expectation_report::passed() const {
  return failures() == 0 && step_errors.empty();
}

std::size_t expectation_report::failures() const {
  return static_cast<std::size_t>(std::count_if(
      results.begin(), results.end(), [](const expectation_result& r) { return !r.passed; }));
}

std::size_t model_results_received(const json& args, const trace& run, time_ms by) {
  return results_received(args, run.records(), by).matching;
}

std::size_t requests_answered(const json& args, const trace& run, time_ms by) {
  return answers_of(args, run.records(), by).matching;
}

expectation_report check_expectations(const scenarios::scenario& plan, const trace& run) {
  const trace_view view(run);
  expectation_report report;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const auto& step = plan.steps[i];
    if (auto error = view.error(i); !error.empty()) {
      report.step_errors.push_back(step.where + ": step " + std::to_string(i + 1) + " (" +
                                   step.action + ") could not run: " + error);
    }
    const auto* marker = view.marker(i);
    for (std::size_t e = 0; e < step.expect.size(); ++e) {
      const auto& expected = step.expect[e];
      verdict v{false, ""};
      if (is_response(expected)) {
        v = check_response(expected, view, i);
      } else if (marker == nullptr) {
        v = {false, "the run never reached this step"};
      } else {
        v = check_on_trace(expected, marker->data["args"][e], view, *marker);
      }
      report.results.push_back({i, expected, v.passed, v.observed});
    }
  }
  return report;
}

bool reached_expectations_hold(const scenarios::scenario& plan, const trace& run) {
  // Why first: it is asked at every quiet point of a run over HTTP, the view indexes the
  // whole trace, and most plans (explore's programs) expect nothing of the trace at all.
  const bool expects_of_trace =
      std::any_of(plan.steps.begin(), plan.steps.end(), [](const auto& step) {
        return std::any_of(step.expect.begin(), step.expect.end(),
                           [](const auto& e) { return !is_response(e); });
      });
  if (!expects_of_trace) return true;
  const trace_view view(run);
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const auto* marker = view.marker(i);
    if (marker == nullptr) continue;
    const auto& expect = plan.steps[i].expect;
    for (std::size_t e = 0; e < expect.size(); ++e) {
      if (is_response(expect[e])) continue;
      if (!check_on_trace(expect[e], marker->data["args"][e], view, *marker).passed) return false;
    }
  }
  return true;
}

std::string describe_expected(const scenarios::expectation& expected) {
  if (!is_response(expected)) return expected.kind + " " + brief(expected.args);
  std::string text;
  const auto& args = expected.args;
  if (args.contains("status")) text += "status " + args["status"].dump();
  if (args.contains("error"))
    text += (text.empty() ? "" : ", ") + ("error " + args.value("error", ""));
  if (args.contains("body")) text += (text.empty() ? "" : ", ") + ("body ⊇ " + brief(args["body"]));
  if (args.contains("cors")) {
    text +=
        (text.empty() ? "" : ", ") + std::string(args.value("cors", "") == "allowed"
                                                     ? "readable by the page's origin (CORS)"
                                                     : "not readable by the page's origin (CORS)");
  }
  return "response " + text;
}

std::string describe(const expectation_result& result, const scenarios::scenario& plan) {
  std::string ids;
  for (const auto& id : result.expected.spec_ids)
    ids += (ids.empty() ? "" : ",") + id;
  const auto& step = plan.steps.at(result.step);
  const std::string where = result.expected.where.empty() ? step.where : result.expected.where;
  return (where.empty() ? "step " + std::to_string(result.step + 1) : where) + " [" + ids +
         "] expected " + describe_expected(result.expected) + " at " + std::to_string(step.at) +
         " ms; observed: " + result.observed;
}

}  // namespace toolwire::actors
