// The trace invariants: one small checker per rule, fed every record in order.
#include "toolwire/actors/invariants.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "toolwire/actors/trace_header.hpp"
#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/routes.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::actors {

namespace {

using protocol::event_type;

//! The type of an event record, parsed once per checker; a name SES-4 does not list is
//! nullopt, which no checker matches.
std::optional<event_type> type_of(const trace_record& r) {
  return protocol::parse_event_type(protocol::string_at(r.data, "type"));
}

bool is_event(const trace_record& r) {
  return r.actor == "target" && r.kind == "event";
}

//! CALL-5: one settlement per dispatched call. Over HTTP a run ends at its duration, so a
//! call whose deadline (CALL-3) lies past the end owes no settlement yet: the header's
//! `call_deadlines_ms` (written for runs over HTTP) gives the horizon. In-process a run
//! goes on until every deadline has passed, so every call owes one.
class settlement_check {
 public:
  explicit settlement_check(const trace_header& header) {
    if (header.call_deadlines_ms) {
      ack_ms_ = header.call_deadlines_ms->ack;
      result_ms_ = header.call_deadlines_ms->result;
    }
  }
  void on_event(const trace_record& r, std::size_t index, std::vector<violation>& out) {
    const json& data = r.data["data"];
    const auto type = type_of(r);
    const std::string call = protocol::string_at(data, "call_id");
    if (type == event_type::client_tool_dispatched) {
      dispatched_.emplace(call, std::pair{index, r.at});
    } else if (type == event_type::client_tool_completed ||
               type == event_type::client_tool_failed) {
      auto& outcomes = settled_[call];
      outcomes.push_back(type == event_type::client_tool_completed ? "completed" : "failed");
      if (outcomes.size() == 2 && dispatched_.count(call) != 0) {
        out.push_back({"CALL-5",
                       call + " settled twice (" + outcomes[0] + ", then " + outcomes[1] + ")",
                       index});
      }
    }
  }
  //! An ack answered 200 moves the call's deadline to the result timeout.
  void on_response(const trace_record& r) {
    if (r.data.value("status", 0) != 200) return;
    const auto route = protocol::match_route(protocol::string_at(r.data, "method"),
                                             protocol::string_at(r.data, "path"));
    if (route && route->route->id == protocol::route_id::ack) acked_.insert(route->ids[2]);
  }
  void at_end(std::vector<violation>& out, time_ms end) const {
    for (const auto& [call, dispatch] : dispatched_) {
      if (settled_.count(call) != 0) continue;
      if (ack_ms_ && dispatch.second + (acked_.contains(call) ? *result_ms_ : *ack_ms_) > end) {
        continue;  // its deadline lies past the run's end
      }
      out.push_back({"CALL-5", call + " was dispatched but never settled", dispatch.first});
    }
  }

 private:
  std::optional<time_ms> ack_ms_, result_ms_;
  std::map<std::string, std::pair<std::size_t, time_ms>> dispatched_;  // index, at
  std::map<std::string, std::vector<std::string>> settled_;
  std::set<std::string> acked_;
};

//! REG-6 and TOOLS-3/6: the live clients of each session, their names and tools.
class live_clients_check {
 public:
  live_clients_check(const trace& run, const trace_header& header)
      : stream_lag_ms_(header.stream_lag_ms.value_or(0)) {
    // Tools at registration come from the 201 responses (the event carries only names).
    for (const auto& r : run.records()) {
      if (r.kind == "response" && r.data.value("status", 0) == 201 &&
          r.data.value("method", "") == "POST" && r.data.contains("body") &&
          r.data["body"].contains("client_id") && r.data["body"].contains("tools")) {
        std::vector<std::string> names;
        for (const auto& tool : protocol::member_at(r.data["body"], "tools")) {
          names.push_back(protocol::string_at(tool, "name"));
        }
        registered_tools_[protocol::string_at(r.data["body"], "client_id")] = names;
      }
      // A browser tab registers by itself; its driver says what the page declared.
      if (r.kind == "page_registered") {
        registered_tools_[protocol::string_at(r.data, "client_id")] =
            protocol::strings_in(protocol::member_at(r.data, "tools"));
      }
    }
  }

  void on_event(const trace_record& r, std::size_t index, std::vector<violation>& out) {
    const std::string session = protocol::string_at(r.data, "session");
    const auto type = type_of(r);
    const json& data = r.data["data"];
    auto& clients = sessions_[session];
    if (type == event_type::client_registered) {
      const std::string name = protocol::string_at(data, "name");
      for (const auto& [id, c] : clients) {
        if (c.name == name) {
          out.push_back({"REG-6",
                         "name '" + name + "' assigned to " +
                             protocol::string_at(data, "client_id") + " while " + id + " holds it",
                         index});
        }
      }
      const auto known = registered_tools_.find(protocol::string_at(data, "client_id"));
      clients[protocol::string_at(data, "client_id")] = {
          name, known == registered_tools_.end() ? std::vector<std::string>() : known->second,
          order_++, known != registered_tools_.end()};
    } else if (type == event_type::client_tools_updated) {
      auto it = clients.find(protocol::string_at(data, "client_id"));
      if (it != clients.end()) {
        it->second.tools = protocol::strings_in(protocol::member_at(data, "tools"));
        it->second.tools_known = true;
      }
    } else if (type == event_type::client_unregistered) {
      clients.erase(protocol::string_at(data, "client_id"));
    }
    const std::uint64_t seq = r.data.value("seq", std::uint64_t{0});
    auto& timeline = timelines_[session];
    timeline.offered[seq] = offered_by(clients);
    if (std::any_of(clients.begin(), clients.end(),
                    [](const auto& c) { return !c.second.tools_known; }))
      timeline.unknown.insert(seq);
    if (stream_lag_ms_ > 0) arrivals_[session][seq] = r.at;
    if (type == event_type::turn_started || type == event_type::client_tool_completed ||
        type == event_type::client_tool_failed) {
      timeline.causes.insert(seq);
    }
  }

  //! A model step's tools must be the live tools at one moment between what made the step
  //! due (the turn's start, or the event that settled a call) and the last event before
  //! it. Why a window: over HTTP the model request is recorded when it arrives, and the
  //! server may have built it at any moment since its cause; in-process the window is
  //! that one moment.
  void on_model_step(const trace_record& r, std::size_t index, std::vector<violation>& out) {
    if (protocol::string_at(r.data, "owner") != "turn") return;
    // Why later: a stream that lags shows the events before a model request after it,
    // so the step is judged once the events of its lag are known.
    if (stream_lag_ms_ > 0) return deferred_.push_back({&r, index});
    const auto after = r.data.value("after_seq", std::uint64_t{0});
    check_model_step(r, index, after, after, out);
  }

  //! The model steps whose check waited for the stream's lag.
  void at_end(std::vector<violation>& out) {
    for (const auto& [r, index] : deferred_) {
      const auto after = r->data.value("after_seq", std::uint64_t{0});
      std::uint64_t last = after;
      const auto& arrivals = arrivals_[protocol::string_at(r->data, "owner_id")];
      for (auto it = arrivals.upper_bound(last); it != arrivals.end(); ++it) {
        if (it->second <= r->at + stream_lag_ms_) last = it->first;
      }
      check_model_step(*r, index, after, last, out);
    }
  }

 private:
  //! A model step recorded after the events up to seq `after`; its window ends at seq
  //! `until` (`after`, or on a lagging stream the last event that arrived within the lag).
  void check_model_step(const trace_record& r, std::size_t index, std::uint64_t after,
                        std::uint64_t until, std::vector<violation>& out) {
    auto& timeline = timelines_[protocol::string_at(r.data, "owner_id")];
    std::vector<std::string> offered = protocol::strings_in(protocol::member_at(r.data, "offered"));
    std::sort(offered.begin(), offered.end());
    auto cause = timeline.causes.upper_bound(after);
    const std::uint64_t from = cause == timeline.causes.begin() ? 0 : *std::prev(cause);
    // A client whose registration the suite did not see (a tab that registered again by
    // itself) was live in the window: its tools are unknown, so the step is not judged.
    const auto unknown = timeline.unknown.lower_bound(from);
    if (unknown != timeline.unknown.end() && *unknown <= until) return;
    // The live tools at each moment of the window, for the message: over a lagging stream
    // the window can span a change, and naming only its last state misleads.
    std::vector<std::vector<std::string>> window;
    for (auto it = timeline.offered.lower_bound(from);
         it != timeline.offered.end() && it->first <= until; ++it) {
      if (window.empty() || window.back() != it->second) window.push_back(it->second);
    }
    const bool held = window.empty()
                          ? offered.empty()  // no event yet: nothing is live
                          : std::find(window.begin(), window.end(), offered) != window.end();
    if (!held) {
      std::string live = window.empty() ? "[]" : json(window.front()).dump();
      for (std::size_t i = 1; i < window.size(); ++i)
        live += (i + 1 == window.size() ? " then " : ", ") + json(window[i]).dump();
      out.push_back({"TOOLS-3",
                     "model step " + std::to_string(r.data.value("step_id", 0)) + " offered " +
                         json(offered).dump() + ", live tools were " + live,
                     index});
    }
  }

  struct client {
    std::string name;
    std::vector<std::string> tools;
    std::size_t order = 0;
    bool tools_known = true;  // false: registered where the suite could not see its tools
  };
  //! Per session: the live tools after each event (by seq), and the seqs of the events
  //! that make a model step due.
  struct timeline {
    std::map<std::uint64_t, std::vector<std::string>> offered;
    std::set<std::uint64_t> causes;
    std::set<std::uint64_t> unknown;  // seqs after which a client of unknown tools was live
  };

  static std::vector<std::string> offered_by(const std::map<std::string, client>& clients) {
    std::vector<std::string> offered;
    for (const auto& [id, c] : clients) {
      for (const auto& tool : c.tools)
        offered.push_back(c.name + "__" + tool);
    }
    std::sort(offered.begin(), offered.end());
    return offered;
  }

  std::map<std::string, std::vector<std::string>> registered_tools_;
  std::map<std::string, std::map<std::string, client>> sessions_;
  std::map<std::string, timeline> timelines_;
  std::size_t order_ = 0;
  //! On a real clock: how late the stream may show an event (the trace header's
  //! stream_lag_ms, the run's grace); 0 in-process and on a virtual clock.
  time_ms stream_lag_ms_ = 0;
  std::vector<std::pair<const trace_record*, std::size_t>> deferred_;
  std::map<std::string, std::map<std::uint64_t, time_ms>> arrivals_;  // session -> seq -> at
};

//! LIFE-5: calls open on a client that ends fail with client_left / client_expired.
class departure_check {
 public:
  void on_event(const trace_record& r, std::size_t index, std::vector<violation>& out) {
    const auto type = type_of(r);
    const json& data = r.data["data"];
    const std::string call = protocol::string_at(data, "call_id");
    if (type == event_type::client_tool_dispatched) {
      open_[call] = protocol::string_at(data, "client_id");
    } else if (type == event_type::client_tool_completed ||
               type == event_type::client_tool_failed) {
      auto owed = must_fail_.find(call);
      const std::string reason = protocol::string_at(data, "reason");
      if (owed != must_fail_.end() && reason != "client_left" && reason != "client_expired") {
        out.push_back({"LIFE-5",
                       call + " of departed client " + owed->second + " settled as " +
                           (reason.empty() ? protocol::string_at(r.data, "type") : reason) +
                           ", not client_left/client_expired",
                       index});
      }
      must_fail_.erase(call);
      open_.erase(call);
    } else if (type == event_type::client_unregistered) {
      const std::string client = protocol::string_at(data, "client_id");
      for (const auto& [c, owner] : open_) {
        if (owner == client) must_fail_.emplace(c, client);
      }
    }
  }
  void at_end(std::vector<violation>& out, std::size_t last) const {
    for (const auto& [call, client] : must_fail_) {
      out.push_back({"LIFE-5", call + " of departed client " + client + " was never failed", last});
    }
  }

 private:
  std::map<std::string, std::string> open_;       // call -> client
  std::map<std::string, std::string> must_fail_;  // call -> departed client
};

//! SES-3: seqs 1, 2, 3... per session, and each stream delivers in order without repeats.
class sequence_check {
 public:
  void on_event(const trace_record& r, std::size_t index, std::vector<violation>& out) {
    const std::uint64_t seq = r.data.value("seq", std::uint64_t{0});
    auto& last = emitted_[protocol::string_at(r.data, "session")];
    if (seq != last + 1) {
      out.push_back({"SES-3",
                     "event seq " + std::to_string(seq) + " follows " + std::to_string(last) +
                         " in " + protocol::string_at(r.data, "session"),
                     index});
    }
    last = seq;
  }
  void on_delivery(const trace_record& r, std::size_t index, std::vector<violation>& out) {
    const std::uint64_t seq = r.data.value("seq", std::uint64_t{0});
    auto [it, first] = delivered_.emplace(r.actor, seq);
    if (!first && seq <= it->second) {
      out.push_back({"SES-3",
                     r.actor + " received seq " + std::to_string(seq) + " after " +
                         std::to_string(it->second),
                     index});
    }
    it->second = seq;
  }
  //! A stream (re)opened by `actor` starts its own order: a replay from Last-Event-ID
  //! legitimately repeats seqs the old stream delivered.
  void on_request(const trace_record& r) {
    const auto route = protocol::match_route(protocol::string_at(r.data, "method"),
                                             protocol::string_at(r.data, "path"));
    if (route && route->route->id == protocol::route_id::open_events) delivered_.erase(r.actor);
  }

 private:
  std::map<std::string, std::uint64_t> emitted_;
  std::map<std::string, std::uint64_t> delivered_;
};

//! TASK-5: observed statuses never leave a final state nor return to pending.
class task_status_check {
 public:
  //! GET /api/tasks/{uuid} and the tool-results answer both report the status.
  void on_response(const trace_record& r, std::size_t index, std::vector<violation>& out) {
    if (r.data.value("status", 0) != 200 || !r.data.contains("body")) return;
    const auto route = protocol::match_route(protocol::string_at(r.data, "method"),
                                             protocol::string_at(r.data, "path"));
    if (!route || (route->route->id != protocol::route_id::get_task &&
                   route->route->id != protocol::route_id::post_tool_results)) {
      return;
    }
    const std::string& uuid = route->ids[0];
    const std::string status = protocol::string_at(r.data["body"], "status");
    if (status.empty()) return;
    auto [it, first] = last_.emplace(uuid, status);
    if (!first) {
      const std::string& before = it->second;
      const bool final_left = (before == "completed" || before == "failed") && status != before;
      const bool back_to_pending = before != "pending" && status == "pending";
      if (final_left || back_to_pending) {
        out.push_back({"TASK-5", "task " + uuid + " went from " + before + " to " + status, index});
      }
    }
    it->second = status;
  }

 private:
  std::map<std::string, std::string> last_;
};

}  // namespace

std::vector<violation> check_invariants(const trace& run) {
  std::vector<violation> out;
  // A header that cannot be read (a hand-made trace) gives no horizon and no lag.
  const auto read = trace_header::from_json(run.header(), "trace");
  const trace_header header = read ? *read : trace_header{};
  settlement_check settlement(header);
  live_clients_check live(run, header);
  departure_check departures;
  sequence_check sequences;
  task_status_check tasks;
  const auto& records = run.records();
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    if (is_event(r)) {
      sequences.on_event(r, i, out);
      settlement.on_event(r, i, out);
      live.on_event(r, i, out);
      departures.on_event(r, i, out);
    } else if (r.actor == "target" && r.kind == "model_step") {
      live.on_model_step(r, i, out);
    } else if (r.kind == "deliver") {
      sequences.on_delivery(r, i, out);
    } else if (r.kind == "response") {
      tasks.on_response(r, i, out);
      settlement.on_response(r);
    } else if (r.kind == "request") {
      sequences.on_request(r);
    }
  }
  settlement.at_end(out, records.empty() ? 0 : records.back().at);
  live.at_end(out);
  departures.at_end(out, records.empty() ? 0 : records.size() - 1);
  return out;
}

std::string describe(const violation& v) {
  return v.spec_id + " at record " + std::to_string(v.record) + ": " + v.message;
}

}  // namespace toolwire::actors
