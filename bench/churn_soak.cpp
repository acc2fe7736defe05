// Churn soak: many clients registering, pinging, vanishing and re-registering for a virtual
// hour, in-process: every request goes through the reference router into the core, time is
// a virtual clock, and model steps are answered at once by a scripted model.
//
// What it checks (exit 1 when a check fails): every dispatched call is settled exactly once
// (CALL-5, LIFE-5) and none is settled without a dispatch; after the settle-out no client
// and no call is left open. What it prints: at every sample, live clients and open calls
// from the events, the core's requests so far, and the process RSS (/proc/self/statm), so
// a reader sees whether memory stays flat once the event logs are full.
//
// Deterministic: one seeded splitmix64 drives every choice; no wall clock in the simulated
// path (the wall clock only times the run).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include <unistd.h>

#include "bench_args.hpp"
#include "toolwire/protocol/api.hpp"
#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/types.hpp"
#include "toolwire/reference_server/core.hpp"
#include "toolwire/reference_server/router.hpp"
#include "toolwire/reference_server/virtual_clock.hpp"

namespace bench = toolwire::bench;

namespace {

namespace reference_server = toolwire::reference_server;
namespace protocol = toolwire::protocol;
using protocol::json;
using protocol::time_ms;

constexpr const char* api_key = "soak-key";
constexpr time_ms start_time = 1'700'000'000'000;
constexpr time_ms second = 1'000;
constexpr time_ms minute = 60 * second;

struct options {
  int clients = 10'000;
  int sessions = 20;
  time_ms duration = 60 * minute;
  time_ms sample_every = 5 * minute;
  std::uint64_t seed = 1;
};

void usage(std::ostream& out) {
  out << "usage: bench_churn_soak [--clients N] [--sessions N] [--minutes N] [--seed N] "
         "[--quick]\n"
         "  --clients N   clients in all, spread over the sessions (default 10000)\n"
         "  --sessions N  sessions (default 20)\n"
         "  --minutes N   virtual minutes of churn before the settle-out (default 60)\n"
         "  --seed N      the seed of every choice (default 1)\n"
         "  --quick       1000 clients, 10 sessions, 10 virtual minutes (a self-check)\n";
}

//! A positive flag value; the soak's counts stay below ten million.
long positive(const std::string& flag, const std::string& text) {
  return static_cast<long>(bench::positive_arg("bench_churn_soak", flag, text, 10'000'000));
}

options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] { return bench::flag_value(argc, argv, i, "bench_churn_soak"); };
    if (arg == "--clients") {
      o.clients = static_cast<int>(positive(arg, value()));
    } else if (arg == "--sessions") {
      o.sessions = static_cast<int>(positive(arg, value()));
    } else if (arg == "--minutes") {
      o.duration = positive(arg, value()) * minute;
    } else if (arg == "--seed") {
      o.seed = static_cast<std::uint64_t>(positive(arg, value()));
    } else if (arg == "--quick") {
      o.clients = 1'000;
      o.sessions = 10;
      o.duration = 10 * minute;
      o.sample_every = 2 * minute;
    } else if (arg == "--help" || arg == "-h") {
      usage(std::cout);
      std::exit(0);
    } else {
      std::cerr << "bench_churn_soak: unknown option " << arg << "\n";
      usage(std::cerr);
      std::exit(2);
    }
  }
  if (o.sessions > o.clients) o.sessions = o.clients;
  return o;
}

//! splitmix64: small, portable, and the same sequence everywhere.
class random_source {
 public:
  explicit random_source(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  //! Uniform in [low, high].
  time_ms between(time_ms low, time_ms high) {
    return low + static_cast<time_ms>(next() % static_cast<std::uint64_t>(high - low + 1));
  }
  bool chance(int percent) { return static_cast<int>(next() % 100) < percent; }

 private:
  std::uint64_t state_;
};

double rss_mb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0;
  long resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

enum class action { register_client, ping, leave, ack, result, message };

struct planned {
  time_ms at = 0;
  std::uint64_t order = 0;  // ties in time keep their planning order
  action what = action::ping;
  int who = 0;                   // client index, or session index for messages
  std::uint64_t generation = 0;  // a client's life the action belongs to
  std::string call_id;

  bool operator>(const planned& other) const {
    return at != other.at ? at > other.at : order > other.order;
  }
};

enum class client_state { offline, online, vanished };

struct client {
  int session = 0;
  std::string name;
  client_state state = client_state::offline;
  std::uint64_t generation = 0;
  std::string id;  // the current registration's client id
};

struct counters {
  std::uint64_t requests = 0;
  std::uint64_t registrations = 0;
  std::uint64_t pings = 0;
  std::uint64_t deletes = 0;
  std::uint64_t vanishes = 0;
  std::uint64_t unregistered = 0;
  std::uint64_t messages = 0;
  std::uint64_t model_steps = 0;
  std::uint64_t dispatched = 0;
  std::uint64_t completed = 0;
  std::uint64_t failed = 0;
  std::uint64_t failed_expired = 0;
  std::uint64_t failed_left = 0;
  std::uint64_t failed_timeout = 0;
  std::uint64_t acks = 0;
  std::uint64_t results = 0;
  std::uint64_t status_4xx = 0;
  std::uint64_t status_5xx = 0;
  std::uint64_t problems = 0;  // broken settlement rules
};

class soak {
 public:
  explicit soak(const options& o) : options_(o), random_(o.seed) {
    reference_server::core_config config;
    config.api_keys = {{api_key, {reference_server::scope_session_manage}}};
    config.secret_seed = o.seed;
    // Why the SPEC's minimum (SES-3): the logs fill within minutes, so the memory figure
    // after that shows whether anything else grows.
    config.event_retention = 1024;
    core_.emplace(std::move(config));
    router_.emplace(*core_, clock_);
  }

  int run() {
    const auto wall_start = std::chrono::steady_clock::now();
    for (int s = 0; s < options_.sessions; ++s) {
      auto response = request("POST", "/v1/sessions", json::object());
      if (response.status != 201) return fail("cannot create a session: " + response.body.dump());
      session_ids_.push_back(response.body.at("id").get<std::string>());
      // Each session's first turn comes a little later than the previous session's.
      plan(start_time + 30 * second + s * 997, action::message, s, 0);
    }
    clients_.resize(static_cast<std::size_t>(options_.clients));
    for (int i = 0; i < options_.clients; ++i) {
      auto& c = clients_[static_cast<std::size_t>(i)];
      c.session = i % options_.sessions;
      c.name = "app" + std::to_string(i);
      plan(start_time + random_.between(0, minute), action::register_client, i, 0);
    }

    const time_ms end = start_time + options_.duration;
    std::printf(
        "churn soak: %d clients in %d sessions, %lld virtual minutes, seed %llu\n"
        "  clients: ttl 60 s, ping every 15-25 s, online 1-20 min, then DELETE (half) or\n"
        "  vanish (half, expire after the TTL), offline 5-120 s, register again; a turn per\n"
        "  session every 20-60 s calls up to 3 tools; of the calls 85%% are acked and answered,\n"
        "  5%% only acked, 10%% ignored\n",
        options_.clients, options_.sessions, static_cast<long long>(options_.duration / minute),
        static_cast<unsigned long long>(options_.seed));
    std::printf("%8s %8s %8s %10s %10s %10s %8s\n", "minute", "clients", "open", "dispatched",
                "settled", "requests", "RSS MB");
    time_ms next_sample = start_time;
    while (!queue_.empty() && queue_.top().at <= end) {
      const planned next = queue_.top();
      queue_.pop();
      while (next_sample <= next.at) {
        move_to(next_sample);
        sample();
        next_sample += options_.sample_every;
      }
      move_to(next.at);
      perform(next);
    }
    while (next_sample <= end) {
      move_to(next_sample);
      sample();
      next_sample += options_.sample_every;
    }

    // Settle-out: every client goes quiet; the TTLs, ack, result and interrupt timeouts
    // then settle whatever is open.
    stopping_ = true;
    for (auto& c : clients_)
      if (c.state == client_state::online) c.state = client_state::vanished;
    move_to(end + 15 * minute);
    const std::size_t churn_samples = rss_samples_.size();
    sample();
    settled_rss_ = rss_samples_.back();
    rss_samples_.resize(churn_samples);
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return report(wall_s);
  }

 private:
  protocol::api_response request(const std::string& method, const std::string& path,
                                 const json& body = json()) {
    protocol::api_request r;
    r.method = method;
    r.path = path;
    r.credential = api_key;
    if (!body.is_null()) r.body = body.dump();
    auto response = router_->handle(r);
    ++counters_.requests;
    if (response.status >= 500)
      ++counters_.status_5xx;
    else if (response.status >= 400)
      ++counters_.status_4xx;
    drain();
    return response;
  }

  void plan(time_ms at, action what, int who, std::uint64_t generation, std::string call = {}) {
    queue_.push({at, next_order_++, what, who, generation, std::move(call)});
  }

  void move_to(time_ms at) {
    if (at <= clock_.now()) return;
    clock_.advance(*core_, at - clock_.now());
    drain();
  }

  std::string client_path(const client& c) const {
    return "/v1/sessions/" + session_ids_[static_cast<std::size_t>(c.session)] + "/clients/" + c.id;
  }

  void perform(const planned& p) {
    if (p.what == action::message) return send_message(p.who);
    auto& c = clients_[static_cast<std::size_t>(p.who)];
    if (p.generation != c.generation) return;  // planned for an earlier life
    const time_ms now = clock_.now();
    switch (p.what) {
      case action::register_client: {
        if (c.state != client_state::offline || stopping_) return;
        const json body = {{"name", c.name},
                           {"lifetime", {{"type", "ttl"}, {"data", {{"seconds", 60}}}}},
                           {"tools", json::array({{{"name", "lookup"},
                                                   {"description", "looks a thing up"},
                                                   {"parameters", {{"type", "object"}}}}})}};
        auto response = request(
            "POST",
            "/v1/sessions/" + session_ids_[static_cast<std::size_t>(c.session)] + "/clients", body);
        if (response.status != 201) {
          problem("registration answered " + std::to_string(response.status));
          return;
        }
        ++counters_.registrations;
        c.id = response.body.at("client_id").get<std::string>();
        c.state = client_state::online;
        ++c.generation;
        owner_[session_key(c.session, c.id)] = p.who;
        ++live_clients_;
        plan(now + random_.between(15 * second, 25 * second), action::ping, p.who, c.generation);
        plan(now + random_.between(minute, 20 * minute), action::leave, p.who, c.generation);
        return;
      }
      case action::ping: {
        if (c.state != client_state::online) return;
        ++counters_.pings;
        const auto response = request("POST", client_path(c) + "/ping");
        if (response.status != 200)
          problem("a ping of a live client answered " + std::to_string(response.status));
        plan(now + random_.between(15 * second, 25 * second), action::ping, p.who, c.generation);
        return;
      }
      case action::leave: {
        if (c.state != client_state::online) return;
        if (random_.chance(50)) {
          ++counters_.deletes;
          const auto response = request("DELETE", client_path(c));
          if (response.status != 204) problem("DELETE answered " + std::to_string(response.status));
        } else {
          ++counters_.vanishes;
          c.state = client_state::vanished;  // stops pinging; the TTL ends it
        }
        return;
      }
      case action::ack:
      case action::result: {
        if (c.state != client_state::online) return;
        const std::string path = client_path(c) + "/calls/" + p.call_id;
        if (p.what == action::ack) {
          ++counters_.acks;
          request("POST", path + "/ack");
        } else {
          ++counters_.results;
          request("POST", path + "/result", {{"content", "found " + p.call_id}});
        }
        return;
      }
      case action::message:
        return;
    }
  }

  void send_message(int session) {
    if (stopping_) return;
    ++counters_.messages;
    // 409 while the session's previous turn runs (one turn at a time); that is fine.
    request("POST", "/v1/sessions/" + session_ids_[static_cast<std::size_t>(session)] + "/messages",
            {{"content", "look things up"}});
    plan(clock_.now() + random_.between(20 * second, minute), action::message, session, 0);
  }

  static std::string session_key(int session, const std::string& cid) {
    return std::to_string(session) + "/" + cid;
  }

  int session_index(const std::string& sid) const {
    for (std::size_t i = 0; i < session_ids_.size(); ++i)
      if (session_ids_[i] == sid) return static_cast<int>(i);
    return -1;
  }

  //! The core's outputs: events update the bookkeeping, model steps get answered now.
  void drain() {
    for (;;) {
      auto outputs = core_->drain();
      for (const auto& event : outputs.events)
        on_event(event);
      if (outputs.model_steps.empty()) return;
      for (const auto& step : outputs.model_steps)
        answer(step);
    }
  }

  void answer(const reference_server::model_step_request& step) {
    ++counters_.model_steps;
    protocol::model_answer reply;
    const auto& messages = step.conversation.at("messages");
    const bool after_tools = !messages.empty() && messages.back().value("role", "") == "tool";
    const std::vector<std::string> tools = step.tools.names();
    if (after_tools || tools.empty()) {
      reply.text = "done";
    } else {
      const std::size_t calls = 1 + random_.next() % 3;
      for (std::size_t i = 0; i < calls && i < tools.size(); ++i) {
        reply.tool_calls.push_back(
            {"m" + std::to_string(counters_.model_steps) + "_" + std::to_string(i),
             tools[random_.next() % tools.size()], "{}"});
      }
    }
    core_->model_replied(step.step_id, {reply, {}}, clock_.now());
  }

  //! The per-call record: 0 unknown, 1 dispatched, 2 settled. Call ids are "call_<n>".
  std::uint8_t& call_state(const std::string& call_id) {
    static std::uint8_t invalid = 0;
    if (call_id.rfind("call_", 0) != 0) {
      problem("unexpected call id " + call_id);
      return invalid = 0;
    }
    const auto n = static_cast<std::size_t>(std::strtoull(call_id.c_str() + 5, nullptr, 10));
    if (n >= calls_.size()) calls_.resize(std::max(n + 1, calls_.size() * 2), 0);
    return calls_[n];
  }

  void on_event(const reference_server::session_event& event) {
    const auto& d = event.data;
    using protocol::event_type;
    const auto type = protocol::parse_event_type(event.type);
    if (type == event_type::client_tool_dispatched) {
      const std::string call_id = d.at("call_id").get<std::string>();
      auto& state = call_state(call_id);
      if (state != 0) problem(call_id + " dispatched twice");
      state = 1;
      ++counters_.dispatched;
      ++open_calls_;
      const auto owner = owner_.find(
          session_key(session_index(event.session_id), d.at("client_id").get<std::string>()));
      if (owner == owner_.end()) return problem(call_id + " dispatched to an unknown client");
      auto& c = clients_[static_cast<std::size_t>(owner->second)];
      // 85% answer (ack within 2 s, result within 6 s); 5% ack and never answer, so the
      // client's end (or the result timeout) settles the call; 10% never ack (the ack
      // timeout or the client's end settles it).
      const auto kind = random_.next() % 100;
      if (c.state == client_state::online && kind < 90) {
        const time_ms ack_at = event.at + random_.between(0, 2 * second);
        plan(ack_at, action::ack, owner->second, c.generation, call_id);
        if (kind < 85) {
          plan(ack_at + random_.between(0, 4 * second), action::result, owner->second, c.generation,
               call_id);
        }
      }
    } else if (type == event_type::client_tool_completed ||
               type == event_type::client_tool_failed) {
      const std::string call_id = d.at("call_id").get<std::string>();
      auto& state = call_state(call_id);
      if (state == 0) problem(call_id + " settled but never dispatched");
      if (state == 2) problem(call_id + " settled twice");
      if (state == 1) --open_calls_;
      state = 2;
      if (type == event_type::client_tool_completed) {
        ++counters_.completed;
      } else {
        ++counters_.failed;
        const std::string reason = d.value("reason", "");
        if (reason == "client_expired")
          ++counters_.failed_expired;
        else if (reason == "client_left")
          ++counters_.failed_left;
        else
          ++counters_.failed_timeout;
      }
    } else if (type == event_type::client_unregistered) {
      ++counters_.unregistered;
      const auto key =
          session_key(session_index(event.session_id), d.at("client_id").get<std::string>());
      const auto owner = owner_.find(key);
      if (owner == owner_.end()) return problem("an unknown client unregistered");
      auto& c = clients_[static_cast<std::size_t>(owner->second)];
      owner_.erase(owner);
      --live_clients_;
      c.state = client_state::offline;
      ++c.generation;
      if (!stopping_) {
        plan(event.at + random_.between(5 * second, 2 * minute), action::register_client,
             static_cast<int>(&c - clients_.data()), c.generation);
      }
    }
  }

  void problem(const std::string& what) {
    if (counters_.problems++ < 10) std::cerr << "bench_churn_soak: " << what << "\n";
  }

  int fail(const std::string& what) {
    std::cerr << "bench_churn_soak: " << what << "\n";
    return 1;
  }

  void sample() {
    const double rss = rss_mb();
    rss_samples_.push_back(rss);
    std::printf("%8lld %8lld %8lld %10llu %10llu %10llu %8.1f\n",
                static_cast<long long>((clock_.now() - start_time) / minute),
                static_cast<long long>(live_clients_), static_cast<long long>(open_calls_),
                static_cast<unsigned long long>(counters_.dispatched),
                static_cast<unsigned long long>(counters_.completed + counters_.failed),
                static_cast<unsigned long long>(counters_.requests), rss);
    std::fflush(stdout);
  }

  int report(double wall_s) {
    const auto& k = counters_;
    std::printf(
        "requests %llu (registrations %llu, pings %llu, deletes %llu, acks %llu, results %llu,"
        " messages %llu); 4xx %llu, 5xx %llu\n",
        (unsigned long long)k.requests, (unsigned long long)k.registrations,
        (unsigned long long)k.pings, (unsigned long long)k.deletes, (unsigned long long)k.acks,
        (unsigned long long)k.results, (unsigned long long)k.messages,
        (unsigned long long)k.status_4xx, (unsigned long long)k.status_5xx);
    std::printf(
        "clients: %llu vanished silently, %llu unregistered events; model steps %llu\n"
        "calls: %llu dispatched, %llu completed, %llu failed (%llu client_expired, %llu "
        "client_left, %llu timeouts); %lld still open\n",
        (unsigned long long)k.vanishes, (unsigned long long)k.unregistered,
        (unsigned long long)k.model_steps, (unsigned long long)k.dispatched,
        (unsigned long long)k.completed, (unsigned long long)k.failed,
        (unsigned long long)k.failed_expired, (unsigned long long)k.failed_left,
        (unsigned long long)k.failed_timeout, static_cast<long long>(open_calls_));
    // Memory: the sample at a quarter of the churn (the event logs are full by then)
    // against the highest one after it, until the churn ends; then after the settle-out.
    const std::size_t from = rss_samples_.size() / 4;
    const double base = rss_samples_.empty() ? 0 : rss_samples_[from];
    double peak = base;
    for (std::size_t i = from; i < rss_samples_.size(); ++i)
      peak = std::max(peak, rss_samples_[i]);
    std::printf(
        "RSS during the churn: %.1f MB at a quarter, peak after it %.1f MB (%+.1f%%); "
        "%.1f MB after the settle-out\n",
        base, peak, base > 0 ? 100.0 * (peak - base) / base : 0.0, settled_rss_);
    std::printf("wall time %.2f s, %.0f requests per wall second\n", wall_s,
                static_cast<double>(k.requests) / wall_s);

    bool ok = true;
    auto check = [&](bool holds, const std::string& what) {
      if (!holds) {
        std::cerr << "bench_churn_soak: check failed: " << what << "\n";
        ok = false;
      }
    };
    check(k.problems == 0, std::to_string(k.problems) + " settlement or client problems");
    check(k.dispatched > 0, "no call was dispatched");
    check(k.completed + k.failed == k.dispatched, "settled calls differ from dispatched calls");
    check(open_calls_ == 0, "calls still open after the settle-out");
    check(live_clients_ == 0, "clients still registered after the settle-out");
    check(k.status_5xx == 0, "the router answered 5xx");
    check(k.completed > 0 && k.failed_timeout > 0 && k.failed_expired > 0,
          "the run did not complete calls, time calls out and expire clients with open calls");
    std::printf("%s\n", ok ? "every call settled exactly once" : "FAILED");
    return ok ? 0 : 1;
  }

  options options_;
  random_source random_;
  reference_server::virtual_clock clock_{start_time};
  std::optional<reference_server::core> core_;
  std::optional<reference_server::router> router_;
  std::vector<std::string> session_ids_;
  std::vector<client> clients_;
  std::map<std::string, int> owner_;  // "session/cid" -> client index
  std::priority_queue<planned, std::vector<planned>, std::greater<>> queue_;
  std::uint64_t next_order_ = 0;
  std::vector<std::uint8_t> calls_;
  std::int64_t live_clients_ = 0;
  std::int64_t open_calls_ = 0;
  std::vector<double> rss_samples_;
  double settled_rss_ = 0;
  counters counters_;
  bool stopping_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  const options o = parse_options(argc, argv);
  soak run(o);
  return run.run();
}
