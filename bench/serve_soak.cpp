// Soak of one `toolwire serve` (issue 25.4): many short sessions, one after another, on a
// real clock, the way a server left running for days as a client's development backend
// sees them. Each session: create, register a client with a TTL, PUT its tools, pings,
// DELETE; then it is idle and the server forgets it after --idle-expiry-ms.
//
// What it prints: at each tenth of the requests, that tenth's latency p50/p99, the
// requests per second, and the server's RSS, so a reader sees whether latency stays flat
// and memory bounded. What it checks (exit 1): every answer has its expected status, and
// after the idle time the first session is forgotten (its token answers 401). Never a
// figure: the figures are for docs/benchmarks.md, by hand.
//
// Loopback only; a child process serves, so its RSS is the server's alone.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench_args.hpp"
#include "bench_http.hpp"

namespace bench = toolwire::bench;
using bench::json;
using bench::http::verb;
using steady = std::chrono::steady_clock;

namespace {

constexpr std::string_view program = "serve_soak";

struct options {
  std::string toolwire = "build/cli/toolwire";
  std::uint64_t requests = 1'000'000;
  std::uint64_t sessions = 100'000;
  std::uint64_t connections = 2;
  std::uint64_t idle_expiry_ms = 2'000;
};

options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] { return bench::flag_value(argc, argv, i, program); };
    if (arg == "--toolwire") {
      o.toolwire = value();
    } else if (arg == "--requests") {
      o.requests = bench::positive_arg(program, arg, value(), 1'000'000'000);
    } else if (arg == "--sessions") {
      o.sessions = bench::positive_arg(program, arg, value(), 100'000'000);
    } else if (arg == "--connections") {
      o.connections = bench::positive_arg(program, arg, value(), 64);
    } else if (arg == "--idle-expiry-ms") {
      o.idle_expiry_ms = bench::positive_arg(program, arg, value(), 3'600'000);
    } else if (arg == "--quick") {  // a self-check for CI: seconds, not a figure
      o.requests = 20'000;
      o.sessions = 2'000;
      o.idle_expiry_ms = 300;
    } else {
      std::cerr << "usage: serve_soak [--toolwire PATH] [--requests N] [--sessions N] "
                   "[--connections N] [--idle-expiry-ms N] [--quick]\n";
      std::exit(2);
    }
  }
  if (o.requests < 5 * o.sessions) {
    std::cerr << "serve_soak: --requests must be at least 5 per session (create, register, "
                 "PUT, ping, DELETE)\n";
    std::exit(2);
  }
  return o;
}

//! Latencies of the current tenth, and what the threads found wrong.
struct tally {
  std::mutex mutex;
  std::vector<double> latencies_us;
  std::uint64_t requests = 0;
  std::uint64_t wrong = 0;
  std::string first_wrong;
  int running = 0;        // connections still playing sessions
  std::string transport;  // the first transport error, if any
};

//! One session's life on `api`: create, register, PUT, `pings` pings, DELETE.
void play_session(bench::json_client& api, std::uint64_t pings, tally& out,
                  std::string* first_token) {
  std::vector<double> latencies;
  std::string wrong;
  auto timed = [&](verb method, const std::string& target, const json& body, int expected,
                   const std::string& bearer = {}) {
    const auto start = steady::now();
    bench::reply answer = api.send(method, target, body, bearer);
    latencies.push_back(std::chrono::duration<double, std::micro>(steady::now() - start).count());
    if (answer.status != expected && wrong.empty()) {
      wrong = target + " -> " + std::to_string(answer.status) + " " + answer.body.dump() +
              " (expected " + std::to_string(expected) + ")";
    }
    return answer.body;
  };
  const json session = timed(verb::post, "/v1/sessions", json::object(), 201);
  if (session.is_object() && session.contains("id")) {
    const std::string base = "/v1/sessions/" + session["id"].get<std::string>();
    const std::string token = session["token"];
    if (first_token && first_token->empty()) *first_token = token;
    const json tool = {{"name", "highlight_row"},
                       {"description", "highlights a row"},
                       {"parameters", {{"type", "object"}}}};
    const json client = timed(verb::post, base + "/clients",
                              {{"name", "tab"},
                               {"lifetime", {{"type", "ttl"}, {"data", {{"seconds", 30}}}}},
                               {"tools", json::array()}},
                              201, token);
    const std::string path = base + "/clients/" + client.value("client_id", std::string("?"));
    timed(verb::put, path + "/tools", {{"tools", json::array({tool})}}, 200, token);
    for (std::uint64_t i = 0; i < pings; ++i)
      timed(verb::post, path + "/ping", json::object(), 200, token);
    timed(verb::delete_, path, json(), 204, token);
  }
  std::lock_guard lock(out.mutex);
  out.requests += latencies.size();
  out.latencies_us.insert(out.latencies_us.end(), latencies.begin(), latencies.end());
  if (!wrong.empty() && out.wrong++ == 0) out.first_wrong = wrong;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse_options(argc, argv);
  const std::uint64_t pings = o.requests / o.sessions - 4;
  const bench::server_process server = bench::start_toolwire(
      o.toolwire,
      // Why a model URL nobody serves: no session here posts a message, so no model step runs.
      {"--api-key", "soak", "--model-url", "http://127.0.0.1:9/v1", "--clock", "real", "--quiet",
       "--idle-expiry-ms", std::to_string(o.idle_expiry_ms), "--max-sessions", "100000"},
      program);
  std::printf(
      "serve_soak: %llu sessions of %llu requests (create, register, PUT, %llu pings, "
      "DELETE) on %llu connections; idle sessions forgotten after %llu ms\n",
      static_cast<unsigned long long>(o.sessions), static_cast<unsigned long long>(pings + 4),
      static_cast<unsigned long long>(pings), static_cast<unsigned long long>(o.connections),
      static_cast<unsigned long long>(o.idle_expiry_ms));
  std::printf("%8s %10s %10s %10s %12s %10s\n", "done", "requests", "p50 us", "p99 us",
              "requests/s", "RSS MiB");

  tally out;
  std::atomic<std::uint64_t> next_session{0};
  std::string first_token;
  std::vector<std::thread> threads;
  bool failed = false;
  try {
    out.running = static_cast<int>(o.connections);
    for (std::uint64_t t = 0; t < o.connections; ++t) {
      threads.emplace_back([&, t] {
        try {
          bench::asio::io_context io;
          bench::json_client api(io, server.port, "soak");
          while (next_session.fetch_add(1) < o.sessions)
            play_session(api, pings, out, t == 0 ? &first_token : nullptr);
        } catch (const std::exception& error) {
          std::lock_guard lock(out.mutex);
          if (out.transport.empty()) out.transport = error.what();
        }
        std::lock_guard lock(out.mutex);
        --out.running;
      });
    }
    // The reporter: one line each time another tenth of the requests is done.
    const std::uint64_t total = o.sessions * (pings + 4);
    auto tenth_started = steady::now();
    for (int tenth = 1; tenth <= 10; ++tenth) {
      const std::uint64_t goal = total * static_cast<std::uint64_t>(tenth) / 10;
      std::vector<double> latencies;
      std::uint64_t done = 0;
      while (true) {
        {
          std::lock_guard lock(out.mutex);
          done = out.requests;
          if (done >= goal || out.running == 0) {
            latencies.swap(out.latencies_us);
            break;
          }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      if (done < goal) break;  // the connections stopped early: said below
      const double seconds = std::chrono::duration<double>(steady::now() - tenth_started).count();
      tenth_started = steady::now();
      std::printf("%7d%% %10llu %10.0f %10.0f %12.0f %10.1f\n", tenth * 10,
                  static_cast<unsigned long long>(done), bench::percentile(latencies, 0.5),
                  bench::percentile(latencies, 0.99),
                  static_cast<double>(latencies.size()) / std::max(seconds, 1e-9),
                  bench::rss_mib(server.pid));
      std::fflush(stdout);
    }
    for (auto& thread : threads)
      thread.join();
  } catch (const std::exception& error) {
    std::cerr << "serve_soak: " << error.what() << "\n";
    failed = true;
  }

  if (!out.transport.empty()) {
    std::cerr << "serve_soak: a connection failed: " << out.transport << "\n";
    failed = true;
  }
  if (out.wrong > 0) {
    std::cerr << "serve_soak: " << out.wrong
              << " session(s) got a wrong status; the first: " << out.first_wrong << "\n";
    failed = true;
  }
  // The first session went idle long ago; once its idle time has surely passed it must
  // be forgotten: its token is no credential any more (401).
  if (!failed && o.idle_expiry_ms > 10'000) {
    std::printf("not waiting %llu ms to see the first session forgotten (over 10 s)\n",
                static_cast<unsigned long long>(o.idle_expiry_ms));
  } else if (!failed && !first_token.empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2 * o.idle_expiry_ms + 200));
    bench::asio::io_context io;
    bench::json_client api(io, server.port, "soak");
    const auto answer = api.send(verb::post, "/v1/sessions/x/clients", json::object(), first_token);
    if (answer.status != 401) {
      std::cerr << "serve_soak: an idle session was not forgotten: its token got " << answer.status
                << ", not 401\n";
      failed = true;
    } else {
      std::printf("idle sessions forgotten: the first session's token answers 401; RSS %.1f MiB\n",
                  bench::rss_mib(server.pid));
    }
  }
  server.stop();
  return failed ? 1 : 0;
}
