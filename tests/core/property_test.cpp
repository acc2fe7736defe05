// Model-based property: random command sequences against the core, checked after every step.
#include <rapidcheck.h>
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "core/core_test_support.hpp"

using namespace toolwire::core_test;

namespace {

// -- operations -------------------------------------------------------------------------

enum class op_kind {
  register_client,
  ping,
  put_tools,
  put_invalid,
  remove,
  ack,
  result,
  error_result,
  duplicate_result,
  wrong_client_result,
  message,
  answer,
  advance,
  advance_to_deadline,
};

const char* to_string(op_kind kind) {
  switch (kind) {
    case op_kind::register_client:
      return "register";
    case op_kind::ping:
      return "ping";
    case op_kind::put_tools:
      return "put_tools";
    case op_kind::put_invalid:
      return "put_invalid";
    case op_kind::remove:
      return "delete";
    case op_kind::ack:
      return "ack";
    case op_kind::result:
      return "result";
    case op_kind::error_result:
      return "error_result";
    case op_kind::duplicate_result:
      return "duplicate_result";
    case op_kind::wrong_client_result:
      return "wrong_client_result";
    case op_kind::message:
      return "message";
    case op_kind::answer:
      return "answer";
    case op_kind::advance:
      return "advance";
    case op_kind::advance_to_deadline:
      return "advance_to_deadline";
  }
  return "?";
}

//! One operation; `a`, `b`, `c` pick its targets and variants when it runs, so that any
//! sequence is meaningful and shrinks well.
struct op {
  op_kind kind = op_kind::advance;
  int a = 0;
  int b = 0;
  int c = 0;
  op() = default;
  op(op_kind k, int x, int y, int z) : kind(k), a(x), b(y), c(z) {}
};

void showValue(const op& o, std::ostream& os) {
  os << to_string(o.kind) << "(" << o.a << ", " << o.b << ", " << o.c << ")";
}

rc::Gen<op> gen_op() {
  const auto kind = rc::gen::weightedElement<op_kind>({
      {6, op_kind::register_client},
      {4, op_kind::ping},
      {4, op_kind::put_tools},
      {1, op_kind::put_invalid},
      {2, op_kind::remove},
      {3, op_kind::ack},
      {4, op_kind::result},
      {2, op_kind::error_result},
      {1, op_kind::duplicate_result},
      {1, op_kind::wrong_client_result},
      {6, op_kind::message},
      {12, op_kind::answer},
      {4, op_kind::advance},
      {3, op_kind::advance_to_deadline},
  });
  const auto number = rc::gen::inRange(0, 1 << 16);
  return rc::gen::construct<op>(kind, number, number, number);
}

const std::vector<std::string> name_pool = {"web", "web_2", "app", "tab"};
const std::vector<std::string> tool_pool = {"read", "write", "click", "pick"};
const std::vector<std::int64_t> ttl_pool = {1, 2, 5, 10, 30};
const std::vector<time_ms> advance_pool = {0,    1,      500,    999,     1000,    4999,   5000,
                                           9999, 10'000, 30'000, 299'999, 300'000, 400'000};
constexpr time_ms ack_timeout = 10'000;
constexpr time_ms result_timeout = 300'000;

//! A tool list from the bits of `bits`, in pool order or reversed.
std::vector<std::string> tools_from(int bits, bool reversed) {
  std::vector<std::string> tools;
  for (std::size_t i = 0; i < tool_pool.size(); ++i) {
    if (bits & (1 << i)) tools.push_back(tool_pool[i]);
  }
  if (reversed) std::reverse(tools.begin(), tools.end());
  return tools;
}

template <typename T>
const T& pick(const std::vector<T>& from, int n) {
  return from[static_cast<std::size_t>(n) % from.size()];
}

// -- the model ----------------------------------------------------------------------------

struct model_client {
  std::string id;
  std::string name;
  std::vector<std::string> tools;
  std::optional<std::int64_t> ttl_seconds;
  std::optional<time_ms> expires_at;
  std::uint64_t order = 0;
};

struct model_call {
  std::string id;
  std::string client_id;
  std::string tool;
  time_ms dispatched_at = 0;
  bool acked = false;
  int settlements = 0;
  std::uint64_t settled_seq = 0;
};

//! What an answer's model call is expected to produce (TOOLS-5, CALL-1).
struct expected_outcome {
  bool dispatched = false;  // else a tool_unavailable failure event
  std::string client_id;
  std::string tool;
  json arguments;
};

//! One run: the harness, the model, and the checks between them.
class sequence_run {
 public:
  sequence_run() : sid_(h_.create_session()) {}

  void apply(const op& o) {
    switch (o.kind) {
      case op_kind::register_client:
        do_register(o);
        break;
      case op_kind::ping:
        do_ping(o);
        break;
      case op_kind::put_tools:
        do_put(o, false);
        break;
      case op_kind::put_invalid:
        do_put(o, true);
        break;
      case op_kind::remove:
        do_remove(o);
        break;
      case op_kind::ack:
        do_ack(o);
        break;
      case op_kind::result:
        do_result(o, false, false);
        break;
      case op_kind::error_result:
        do_result(o, true, false);
        break;
      case op_kind::duplicate_result:
        do_result(o, false, true);
        break;
      case op_kind::wrong_client_result:
        do_wrong_client(o);
        break;
      case op_kind::message:
        do_message();
        break;
      case op_kind::answer:
        do_answer(o);
        break;
      case op_kind::advance:
        advance_by(pick(advance_pool, o.a));
        break;
      case op_kind::advance_to_deadline:
        do_advance_to_deadline(o);
        break;
    }
    after_instant();
  }

  //! Runs the clock far past every deadline, then checks that every call settled once.
  void drain() {
    advance_by(result_timeout + 1);
    advance_by(result_timeout + 1);
    for (const auto& [id, call] : calls_) {
      RC_ASSERT(call.settlements == 1);
    }
    const auto dispatched = h_.dispatched_calls(sid_);
    RC_ASSERT(dispatched.size() == calls_.size());
  }

  std::size_t dispatched_count() const { return calls_.size(); }

 private:
  // -- operations ---------------------------------------------------------------------------

  void do_register(const op& o) {
    const std::string requested = pick(name_pool, o.a);
    const bool never = o.b % 3 == 0;
    const std::int64_t ttl = pick(ttl_pool, o.b / 3);
    const auto tools = tools_from(o.c, (o.c >> 8) % 2 == 1);
    const json lifetime = never ? core_harness::never() : core_harness::ttl(ttl);
    auto response =
        h_.request("POST", h_.clients_path(sid_),
                   {{"name", requested}, {"lifetime", lifetime}, {"tools", tool_list(tools)}});
    RC_ASSERT(response.status == 201);
    const std::string name = response.body["name"];
    RC_ASSERT(name == expected_name(requested));  // REG-5, REG-6
    model_client client;
    client.id = response.body["client_id"];
    client.name = name;
    client.tools = tools;
    if (!never) {
      client.ttl_seconds = ttl;
      client.expires_at = h_.now() + ttl * 1000;
      RC_ASSERT(response.body["expires_at_ms"] == *client.expires_at);
    } else {
      RC_ASSERT(response.body["expires_at_ms"].is_null());
    }
    client.order = next_order_++;
    expected_registration_ = {client.id, name};
    all_clients_[client.id] = client;
    live_[client.id] = client;
    known_clients_.push_back(client.id);
  }

  void do_ping(const op& o) {
    if (known_clients_.empty()) return;
    const std::string cid = pick(known_clients_, o.a);
    auto response = h_.request("POST", h_.client_path(sid_, cid) + "/ping");
    auto live = live_.find(cid);
    if (live == live_.end()) {
      RC_ASSERT(response.status == 404);  // LIFE-3, LIFE-4
      return;
    }
    RC_ASSERT(response.status == 200);
    if (live->second.ttl_seconds) {
      live->second.expires_at = h_.now() + *live->second.ttl_seconds * 1000;
      all_clients_[cid].expires_at = live->second.expires_at;
      RC_ASSERT(response.body["expires_at_ms"] == *live->second.expires_at);  // LIFE-2
    } else {
      RC_ASSERT(response.body["expires_at_ms"].is_null());  // LIFE-1
    }
  }

  void do_put(const op& o, bool invalid) {
    if (known_clients_.empty()) return;
    const std::string cid = pick(known_clients_, o.a);
    auto tools = tools_from(o.b, o.c % 2 == 1);
    json list = tool_list(tools);
    if (invalid) list.push_back(core_harness::tool(o.c % 4 == 0 ? "bad name" : "read"));
    if (invalid && o.c % 4 != 0 && std::find(tools.begin(), tools.end(), "read") == tools.end()) {
      list.push_back(core_harness::tool("read"));  // a duplicate either way (REG-3)
    }
    auto response = h_.request("PUT", h_.client_path(sid_, cid) + "/tools", {{"tools", list}});
    auto live = live_.find(cid);
    if (live == live_.end()) {
      RC_ASSERT(response.status == 404);
      return;
    }
    if (invalid) {
      RC_ASSERT(response.status == 400);  // TOOLS-2: and nothing changes
      return;
    }
    RC_ASSERT(response.status == 200);
    live->second.tools = tools;
    all_clients_[cid].tools = tools;
    expected_update_ = std::make_pair(cid, tools);
  }

  void do_remove(const op& o) {
    if (known_clients_.empty()) return;
    const std::string cid = pick(known_clients_, o.a);
    auto response = h_.request("DELETE", h_.client_path(sid_, cid));
    if (live_.count(cid) == 0) {
      RC_ASSERT(response.status == 404);
      return;
    }
    RC_ASSERT(response.status == 204);
    live_.erase(cid);
    leaving_.insert(cid);
  }

  //! The call an operation addresses, or nullptr when no call was dispatched yet.
  model_call* pick_call(int n) {
    if (call_order_.empty()) return nullptr;
    return &calls_.at(pick(call_order_, n));
  }

  //! CALL-6, CALL-7, LIFE-4: what an ack or a result on `call` should answer.
  int expected_status(const model_call& call) const {
    if (live_.count(call.client_id) == 0) return 404;
    if (call.settlements > 0) return 409;
    return 200;
  }

  void do_ack(const op& o) {
    model_call* call = pick_call(o.a);
    if (call == nullptr) return;
    const int expected = expected_status(*call);
    auto response = h_.request("POST", h_.call_path(sid_, call->client_id, call->id) + "/ack");
    RC_ASSERT(response.status == expected);
    if (expected == 200) call->acked = true;
  }

  void do_result(const op& o, bool error, bool twice) {
    model_call* call = pick_call(o.a);
    if (call == nullptr) return;
    const json body =
        error ? json{{"error", "failed " + std::to_string(o.b)}} : json{{"content", {{"n", o.b}}}};
    for (int attempt = 0; attempt < (twice ? 2 : 1); ++attempt) {
      const int expected = expected_status(*call);
      auto response =
          h_.request("POST", h_.call_path(sid_, call->client_id, call->id) + "/result", body);
      RC_ASSERT(response.status == expected);
      if (expected == 200) {
        expected_completion_ = std::make_pair(call->id, error);
        process_events();  // the completion is recorded before the second attempt
      }
    }
  }

  void do_wrong_client(const op& o) {
    model_call* call = pick_call(o.a);
    if (call == nullptr || known_clients_.size() < 2) return;
    std::string other = pick(known_clients_, o.b);
    if (other == call->client_id) other = pick(known_clients_, o.b + 1);
    RC_ASSERT(other != call->client_id);
    auto response = h_.request("POST", h_.call_path(sid_, other, call->id) + "/result",
                               {{"content", "hijack"}});
    RC_ASSERT(response.status == 404);  // CALL-7
    auto ack = h_.request("POST", h_.call_path(sid_, other, call->id) + "/ack");
    RC_ASSERT(ack.status == 404);
  }

  void do_message() {
    auto response =
        h_.request("POST", "/v1/sessions/" + sid_ + "/messages", {{"content", "hello"}});
    if (turn_running_) {
      RC_ASSERT(response.status == 409);  // SES-2
      return;
    }
    RC_ASSERT(response.status == 202);
    turn_start_expected_ = true;
  }

  void do_answer(const op& o) {
    if (steps_.empty()) return;
    const auto step = steps_.front();
    steps_.pop_front();
    const int mode = o.a % 8;
    if (mode == 0) {
      h_.answer_text(step.step_id, "done " + std::to_string(o.b));
      turn_end_expected_ = "turn_completed";
      return;
    }
    if (mode == 1) {
      h_.fail_model(step.step_id, "model down");
      turn_end_expected_ = "turn_failed";
      return;
    }
    // 1..3 calls, each an offered name, a stale name or a name no client ever had.
    const auto offered = core_harness::offered_names(step);
    std::vector<std::string> stale(ever_offered_.begin(), ever_offered_.end());
    stale.push_back("ghost__read");
    toolwire::protocol::model_answer answer;
    const int count = 1 + o.b % 3;
    for (int i = 0; i < count; ++i) {
      const int choice = (o.c >> (4 * i)) & 0xF;
      const std::string name = (!offered.empty() && choice < 11) ? pick(offered, choice + o.b)
                                                                 : pick(stale, choice + o.b);
      const json arguments = {{"i", i}, {"step", static_cast<std::int64_t>(step.step_id)}};
      answer.tool_calls.push_back(
          {"m" + std::to_string(++model_call_ids_), name, arguments.dump()});
      if (auto outcome = expected_for(name, arguments)) expected_outcomes_.push_back(*outcome);
    }
    last_answer_ids_.clear();
    for (const auto& call : answer.tool_calls)
      last_answer_ids_.push_back(call.id);
    step_calls_.clear();
    answering_ = true;
    h_.answer(step.step_id, answer);
    process_events();
    answering_ = false;
    RC_ASSERT(expected_outcomes_.empty());
  }

  void do_advance_to_deadline(const op& o) {
    const auto due = h_.core().next_deadline();
    if (!due) {
      advance_by(pick(advance_pool, o.a));
      return;
    }
    const time_ms offset = o.b % 3 == 0 ? -1 : (o.b % 3 == 1 ? 0 : 1);
    advance_by(std::max<time_ms>(0, *due - h_.now() + offset));
  }

  //! Moves the clock by `ms`, stopping at every timer instant to check the state there.
  void advance_by(time_ms ms) {
    const time_ms target = h_.now() + ms;
    for (int guard = 0; guard < 10'000; ++guard) {
      const auto due = h_.core().next_deadline();
      if (!due || *due > target) break;
      h_.advance(std::max<time_ms>(0, *due - h_.now()));
      after_instant();
    }
    h_.advance(target - h_.now());
    after_instant();
  }

  // -- expectations -------------------------------------------------------------------------

  //! REG-5: the requested name, or `<name>_<n>` with the smallest free n >= 2.
  std::string expected_name(const std::string& requested) const {
    auto taken = [&](const std::string& name) {
      return std::any_of(live_.begin(), live_.end(),
                         [&](const auto& entry) { return entry.second.name == name; });
    };
    if (!taken(requested)) return requested;
    for (int n = 2;; ++n) {
      std::string candidate = requested + "_" + std::to_string(n);
      if (!taken(candidate)) return candidate;
    }
  }

  //! TOOLS-3, CALL-2: every tool of every live client, clients in registration order.
  std::vector<std::string> expected_offered() const {
    std::vector<const model_client*> ordered;
    for (const auto& [id, client] : live_)
      ordered.push_back(&client);
    std::sort(ordered.begin(), ordered.end(),
              [](const model_client* x, const model_client* y) { return x->order < y->order; });
    std::vector<std::string> names;
    for (const auto* client : ordered) {
      for (const auto& tool : client->tools)
        names.push_back(client->name + "__" + tool);
    }
    return names;
  }

  //! What a model call named `name` should cause, by the model's own resolution.
  std::optional<expected_outcome> expected_for(const std::string& name, const json& arguments) {
    const model_client* owner = nullptr;
    for (const auto& [id, client] : live_) {
      const std::string prefix = client.name + "__";
      if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0) {
        owner = &client;
      }
    }
    if (owner == nullptr) return std::nullopt;  // TOOLS-5: only the model's error
    const std::string tool = name.substr(owner->name.size() + 2);
    const bool offered =
        std::find(owner->tools.begin(), owner->tools.end(), tool) != owner->tools.end();
    return expected_outcome{offered, owner->id, tool, arguments};
  }

  // -- checks -------------------------------------------------------------------------------

  void after_instant() {
    process_events();
    process_steps();
    // LIFE-2/LIFE-3: every timer due by now has fired, so no live client is past its expiry.
    for (const auto& [id, client] : live_) {
      if (client.expires_at) RC_ASSERT(*client.expires_at > h_.now());
    }
    // REG-6: live names are unique.
    std::set<std::string> names;
    for (const auto& [id, client] : live_)
      RC_ASSERT(names.insert(client.name).second);
    // LIFE-5: no call stays open on a client that is gone.
    for (const auto& [id, call] : calls_) {
      if (live_.count(call.client_id) == 0) RC_ASSERT(call.settlements == 1);
    }
    RC_ASSERT(!expected_registration_);
    RC_ASSERT(!expected_update_);
    RC_ASSERT(!expected_completion_);
    RC_ASSERT(leaving_.empty());
    RC_ASSERT(!turn_start_expected_);
    RC_ASSERT(turn_end_expected_.empty() || !turn_running_);
    turn_end_expected_.clear();
    left_now_.clear();
  }

  void settle(model_call& call, const session_event& e) {
    RC_ASSERT(call.settlements == 0);  // CALL-5: never both, never twice
    ++call.settlements;
    call.settled_seq = e.seq;
  }

  void process_events() {
    const auto& events = h_.events();
    for (; seen_events_ < events.size(); ++seen_events_) {
      const auto& e = events[seen_events_];
      RC_ASSERT(e.session_id == sid_);
      RC_ASSERT(e.seq == next_seq_);  // SES-3: 1, 2, 3, ...
      ++next_seq_;
      RC_ASSERT(e.at <= h_.now());
      RC_ASSERT(e.at >= last_event_at_);  // SES-5
      last_event_at_ = e.at;
      on_event(e);
    }
  }

  void on_event(const session_event& e) {
    const json& d = e.data;
    if (e.type == "client_registered") {
      RC_ASSERT(expected_registration_.has_value());  // REG-9
      RC_ASSERT(d["client_id"] == expected_registration_->first);
      RC_ASSERT(d["name"] == expected_registration_->second);
      expected_registration_.reset();
    } else if (e.type == "client_tools_updated") {
      RC_ASSERT(expected_update_.has_value());
      RC_ASSERT(d["client_id"] == expected_update_->first);
      RC_ASSERT(d["tools"] == json(expected_update_->second));
      expected_update_.reset();
    } else if (e.type == "client_unregistered") {
      const std::string cid = d["client_id"];
      if (d["reason"] == "left") {
        RC_ASSERT(leaving_.erase(cid) == 1);
        left_now_.insert(cid);
      } else {
        RC_ASSERT(d["reason"] == "expired");
        auto live = live_.find(cid);
        RC_ASSERT(live != live_.end());
        RC_ASSERT(live->second.expires_at == std::optional<time_ms>(e.at));  // LIFE-2, LIFE-3
        live_.erase(live);
      }
    } else if (e.type == "client_tool_dispatched") {
      RC_ASSERT(answering_);
      RC_ASSERT(!expected_outcomes_.empty());
      const auto expected = expected_outcomes_.front();
      expected_outcomes_.pop_front();
      RC_ASSERT(expected.dispatched);  // TOOLS-3/TOOLS-5: only offered tools are dispatched
      RC_ASSERT(d["client_id"] == expected.client_id);
      RC_ASSERT(d["tool"] == expected.tool);            // CALL-1
      RC_ASSERT(d["arguments"] == expected.arguments);  // CALL-1
      const std::string id = d["call_id"];
      RC_ASSERT(calls_.count(id) == 0);
      RC_ASSERT(unavailable_.count(id) == 0);
      calls_[id] = model_call{id, expected.client_id, expected.tool, e.at, false, 0, 0};
      call_order_.push_back(id);
      step_calls_.push_back(id);
    } else if (e.type == "client_tool_completed") {
      RC_ASSERT(expected_completion_.has_value());
      const std::string id = d["call_id"];
      RC_ASSERT(id == expected_completion_->first);
      RC_ASSERT(d["is_error"] == expected_completion_->second);
      auto& call = calls_.at(id);
      RC_ASSERT(d["client_id"] == call.client_id);
      settle(call, e);
      expected_completion_.reset();
    } else if (e.type == "client_tool_failed") {
      on_failed(e);
    } else if (e.type == "turn_started") {
      RC_ASSERT(turn_start_expected_);
      RC_ASSERT(!turn_running_);
      turn_start_expected_ = false;
      turn_running_ = true;
      turn_started_seq_ = e.seq;
    } else if (e.type == "turn_completed" || e.type == "turn_failed") {
      RC_ASSERT(turn_running_);
      const bool max_steps = e.type == "turn_failed" && d["reason"] == "max_steps_exceeded";
      if (!max_steps) RC_ASSERT(turn_end_expected_ == e.type);
      for (const auto& id : step_calls_)
        RC_ASSERT(calls_.at(id).settlements == 1);  // SES-5
      turn_running_ = false;
      last_answer_ids_.clear();
      step_calls_.clear();
    } else {
      RC_FAIL("unexpected event type " + e.type);
    }
  }

  void on_failed(const session_event& e) {
    const json& d = e.data;
    const std::string id = d["call_id"];
    const std::string reason = d["reason"];
    if (reason == "tool_unavailable") {  // TOOLS-5
      RC_ASSERT(answering_);
      RC_ASSERT(!expected_outcomes_.empty());
      const auto expected = expected_outcomes_.front();
      expected_outcomes_.pop_front();
      RC_ASSERT(!expected.dispatched);
      RC_ASSERT(d["client_id"] == expected.client_id);
      RC_ASSERT(d["tool"] == expected.tool);
      RC_ASSERT(calls_.count(id) == 0);
      RC_ASSERT(unavailable_.insert(id).second);
      return;
    }
    auto found = calls_.find(id);
    RC_ASSERT(found != calls_.end());
    model_call& call = found->second;
    RC_ASSERT(d["client_id"] == call.client_id);
    RC_ASSERT(d["tool"] == call.tool);
    if (reason == "ack_timeout") {  // CALL-3, exact instant
      RC_ASSERT(!call.acked);
      RC_ASSERT(e.at == call.dispatched_at + ack_timeout);
    } else if (reason == "result_timeout") {
      RC_ASSERT(call.acked);
      RC_ASSERT(e.at == call.dispatched_at + result_timeout);
    } else if (reason == "client_left") {  // LIFE-5
      RC_ASSERT(left_now_.count(call.client_id) == 1);
    } else if (reason == "client_expired") {
      RC_ASSERT(all_clients_.at(call.client_id).expires_at == std::optional<time_ms>(e.at));
    } else {
      RC_FAIL("unexpected failure reason " + reason);
    }
    settle(call, e);
  }

  void process_steps() {
    while (h_.has_model_step()) {
      auto step = h_.next_model_step();
      RC_ASSERT(step.owner_id == sid_);
      RC_ASSERT(turn_running_);
      const auto offered = core_harness::offered_names(step);
      const auto expected = expected_offered();
      RC_ASSERT(offered == expected);  // TOOLS-3, LIFE-4: also at an instant a client expires
      for (const auto& name : offered)
        ever_offered_.insert(name);
      // CALL-9: the step follows the settlement of every call of the previous one.
      for (const auto& id : step_calls_)
        RC_ASSERT(calls_.at(id).settlements == 1);
      // CALL-8: exactly one tool message per call of the previous answer.
      const auto messages = core_harness::tool_messages(step);
      for (const auto& model_id : last_answer_ids_) {
        const auto n = std::count_if(messages.begin(), messages.end(),
                                     [&](const json& m) { return m["tool_call_id"] == model_id; });
        RC_ASSERT(n == 1);
      }
      last_answer_ids_.clear();
      step_calls_.clear();
      steps_.push_back(std::move(step));
    }
  }

  core_harness h_;
  std::string sid_;

  std::map<std::string, model_client> live_;
  std::map<std::string, model_client> all_clients_;
  std::vector<std::string> known_clients_;
  std::map<std::string, model_call> calls_;
  std::vector<std::string> call_order_;
  std::set<std::string> unavailable_;
  std::deque<model_step_request> steps_;
  std::set<std::string> ever_offered_;
  std::set<std::string> left_now_;  // ids of clients deleted by this operation
  std::uint64_t next_order_ = 0;
  std::uint64_t model_call_ids_ = 0;

  std::size_t seen_events_ = 0;
  std::uint64_t next_seq_ = 1;
  time_ms last_event_at_ = 0;
  bool turn_running_ = false;
  std::uint64_t turn_started_seq_ = 0;

  // What the current operation is expected to cause.
  std::optional<std::pair<std::string, std::string>> expected_registration_;
  std::optional<std::pair<std::string, std::vector<std::string>>> expected_update_;
  std::optional<std::pair<std::string, bool>> expected_completion_;
  std::set<std::string> leaving_;
  std::deque<expected_outcome> expected_outcomes_;
  bool answering_ = false;
  bool turn_start_expected_ = false;
  std::string turn_end_expected_;
  std::vector<std::string> last_answer_ids_;  // the model's ids in the last answer with calls
  std::vector<std::string> step_calls_;       // call ids dispatched by that answer
};

void run_sequences() {
  // Why the scale: RapidCheck's sizes run from 0 to 100; longer sequences reach the states
  // (several turns, expiries during calls, reused names) where defects hide.
  const auto ops = *rc::gen::scale(3.0, rc::gen::container<std::vector<op>>(gen_op()));
  sequence_run run;
  for (const auto& o : ops)
    run.apply(o);
  run.drain();
  RC_CLASSIFY(run.dispatched_count() == 0, "no call dispatched");
  RC_CLASSIFY(run.dispatched_count() >= 5, "5 or more calls");
  RC_CLASSIFY(ops.size() < 30, "fewer than 30 operations");
}

}  // namespace

TEST_CASE("Random command sequences keep the core's invariants", "[core][property]") {
  rc::prop(
      "CALL-5 REG-5 REG-6 TOOLS-3 LIFE-3 LIFE-4 LIFE-5 SES-3 SES-5 CALL-8 CALL-9 "
      "hold after every operation",
      [] { run_sequences(); });
}
