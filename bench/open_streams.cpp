// Benchmark: what open event streams cost one `toolwire serve` (issue 25's "10,000 open
// event streams"), and whether requests still get through while they are open (25.5).
//
// It starts `toolwire serve` with room for the streams (--max-connections, and sessions
// of --per-session streams each), creates the sessions, reads the server's RSS, opens the
// streams (each a raw socket that sends the GET and reads the 200's headers, then stays
// open and idle), reads the RSS again, and times requests made meanwhile on a connection
// of their own. Prints the RSS before and after, per stream, and the requests' p50/p99.
// Checks (exit 1), never a figure: every stream is answered 200 as text/event-stream, and
// with every stream open a session is still created and a client registered and pinged.
//
// Loopback only; a child process serves, so its RSS is the server's alone. Both processes
// need a descriptor per stream: the bench raises its soft RLIMIT_NOFILE to the hard limit,
// which the server inherits, and says so when that is too low.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "bench_args.hpp"
#include "bench_http.hpp"

namespace bench = toolwire::bench;
using bench::json;
using bench::http::verb;
using steady = std::chrono::steady_clock;

namespace {

constexpr std::string_view program = "open_streams";

struct options {
  std::string toolwire = "build/cli/toolwire";
  std::uint64_t streams = 10'000;
  std::uint64_t per_session = 64;  // serve's default --max-streams-per-session
  std::uint64_t requests = 200;    // timed while the streams are open
};

options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] { return bench::flag_value(argc, argv, i, program); };
    if (arg == "--toolwire") {
      o.toolwire = value();
    } else if (arg == "--streams") {
      o.streams = bench::positive_arg(program, arg, value(), 100'000);
    } else if (arg == "--per-session") {
      o.per_session = bench::positive_arg(program, arg, value(), 100'000);
    } else if (arg == "--requests") {
      o.requests = bench::positive_arg(program, arg, value(), 1'000'000);
    } else if (arg == "--quick") {  // a self-check for CI: seconds, not a figure
      o.streams = 300;
      o.requests = 20;
    } else {
      std::cerr << "usage: bench_open_streams [--toolwire PATH] [--streams N] [--per-session N] "
                   "[--requests N] [--quick]\n";
      std::exit(2);
    }
  }
  return o;
}

//! Raises the soft descriptor limit to the hard one; exits 1 when even that cannot hold
//! `needed` descriptors (the server, a child, inherits the limit).
void allow_descriptors(std::uint64_t needed) {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
  getrlimit(RLIMIT_NOFILE, &limit);
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < needed) {
    std::cerr << program << ": " << needed << " descriptors needed, the limit is " << limit.rlim_cur
              << " (raise it with ulimit -Hn, or open fewer --streams)\n";
    std::exit(1);
  }
}

//! Opens one event stream and reads its answer's headers; exits 1 unless it is a 200 of
//! type text/event-stream.
std::unique_ptr<bench::tcp::socket> open_stream(bench::asio::io_context& io, int port,
                                                const std::string& sid, const std::string& key) {
  auto socket = std::make_unique<bench::tcp::socket>(io);
  socket->connect({bench::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
  const std::string request = "GET /v1/sessions/" + sid +
                              "/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                              key + "\r\nAccept: text/event-stream\r\n\r\n";
  bench::asio::write(*socket, bench::asio::buffer(request));
  std::string head;
  char chunk[1024];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < 16'384) {
    head.append(chunk, socket->read_some(bench::asio::buffer(chunk)));
  }
  if (head.rfind("HTTP/1.1 200", 0) != 0 || head.find("text/event-stream") == std::string::npos) {
    std::cerr << program << ": a stream of session " << sid << " was answered "
              << head.substr(0, head.find("\r\n")) << "\n";
    std::exit(1);
  }
  return socket;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse_options(argc, argv);
  allow_descriptors(o.streams + 256);
  const std::uint64_t sessions = (o.streams + o.per_session - 1) / o.per_session;
  const auto server = bench::start_toolwire(
      o.toolwire,
      {"--api-key", "streams", "--model-url", "http://127.0.0.1:9/v1", "--clock", "virtual",
       "--quiet", "--max-connections", std::to_string(o.streams + 128), "--max-streams-per-session",
       std::to_string(o.per_session), "--max-sessions", std::to_string(sessions + o.requests + 16)},
      program);
  bench::asio::io_context io;
  bench::json_client api(io, server.port, "streams");
  std::vector<std::string> ids;
  for (std::uint64_t i = 0; i < sessions; ++i)
    ids.push_back(api.call(verb::post, "/v1/sessions", json::object(), program).value("id", ""));
  const double rss_before = bench::rss_mib(server.pid);

  const auto opening = steady::now();
  std::vector<std::unique_ptr<bench::tcp::socket>> streams;
  streams.reserve(o.streams);
  for (std::uint64_t i = 0; i < o.streams; ++i) {
    streams.push_back(open_stream(io, server.port, ids[i / o.per_session], "streams"));
    if (o.streams >= 1000 && (i + 1) % (o.streams / 10) == 0) {
      std::cerr << program << ": " << i + 1 << "/" << o.streams << " streams open\n";
    }
  }
  const double open_s = std::chrono::duration<double>(steady::now() - opening).count();
  const double rss_after = bench::rss_mib(server.pid);

  // With every stream open: a new session, a client in it, its pings, each timed.
  std::vector<double> latencies_us;
  for (std::uint64_t i = 0; i < o.requests; ++i) {
    const auto started = steady::now();
    const json session = api.call(verb::post, "/v1/sessions", json::object(), program);
    const std::string path = "/v1/sessions/" + session.value("id", "") + "/clients";
    const json client = api.call(verb::post, path,
                                 {{"name", "tab"},
                                  {"lifetime", {{"type", "ttl"}, {"data", {{"seconds", 60}}}}},
                                  {"tools", json::array()}},
                                 program);
    api.call(verb::post, path + "/" + client.value("client_id", "") + "/ping", json(), program);
    latencies_us.push_back(
        std::chrono::duration<double, std::micro>(steady::now() - started).count() / 3);
  }
  server.stop();

  std::printf("open event streams: %llu in %llu sessions (%llu each), opened in %.1f s\n",
              static_cast<unsigned long long>(o.streams), static_cast<unsigned long long>(sessions),
              static_cast<unsigned long long>(o.per_session), open_s);
  std::printf("  server RSS: %.1f MiB before, %.1f MiB with them open: %.1f KiB per stream\n",
              rss_before, rss_after, (rss_after - rss_before) * 1024 / o.streams);
  std::printf("  requests meanwhile (create session, register, ping): p50 %.0f us, p99 %.0f us\n",
              bench::percentile(latencies_us, 0.5), bench::percentile(latencies_us, 0.99));
  return 0;
}
