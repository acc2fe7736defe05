// Benchmark: latency from the model's tool call leaving the model endpoint to the
// `client_tool_dispatched` event reaching an SSE client, with many registered clients.
//
// It hosts a minimal OpenAI-compatible model endpoint itself, starts `toolwire serve`
// pointed at it, registers N clients, opens the session's event stream and runs T turns.
// Each turn: the model answers with one tool call (the clock starts as the response is
// written), the SSE reader stops the clock on the dispatched event and posts the result,
// the model then answers with text. Prints p50/p90/p99/max in microseconds, and the CPU
// time the server spent per turn (each turn is two model steps, both offering every
// client's tool, a message, a result and their events).
//
// `--think-ms N`: the stand-in waits N ms before each answer, as a real model thinks.
// The window then starts with an idle server, so it includes the wake-up of an idle
// process, which on a VM grows with the idle time (docs/benchmarks.md).
#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench_args.hpp"
#include "bench_http.hpp"
#include "toolwire/protocol/events.hpp"

namespace asio = boost::asio;
namespace bench = toolwire::bench;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using json = nlohmann::json;
using steady = std::chrono::steady_clock;

namespace {

struct options {
  std::string toolwire = "build/cli/toolwire";
  int clients = 1000;
  int turns = 300;
  int think_ms = 0;  // how long the model stand-in waits before each answer
};

options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] { return bench::flag_value(argc, argv, i, "dispatch_latency"); };
    if (arg == "--toolwire") {
      o.toolwire = value();
    } else if (arg == "--clients") {
      o.clients =
          static_cast<int>(bench::positive_arg("dispatch_latency", arg, value(), 1'000'000));
    } else if (arg == "--turns") {
      o.turns = static_cast<int>(bench::positive_arg("dispatch_latency", arg, value(), 1'000'000));
    } else if (arg == "--think-ms") {
      o.think_ms = static_cast<int>(bench::positive_arg("dispatch_latency", arg, value(), 60'000));
    } else if (arg == "--quick") {  // a self-check for CI: seconds, not a figure
      o.clients = 50;
      o.turns = 20;
    } else {
      std::cerr
          << "usage: dispatch_latency [--toolwire PATH] [--clients N] [--turns N] [--think-ms N] "
             "[--quick]\n";
      std::exit(2);
    }
  }
  return o;
}

//! The moment the model stand-in began writing its tool-call answer.
std::atomic<steady::rep> tool_call_sent{0};

//! One blocking model stand-in connection at a time is enough: turns are sequential.
void serve_model(tcp::acceptor& acceptor, int think_ms) {
  for (;;) {
    beast::error_code ec;
    tcp::socket socket(acceptor.get_executor());
    acceptor.accept(socket, ec);
    if (ec) return;
    beast::flat_buffer buffer;
    for (;;) {
      // Why a limit of our own: with 10,000 clients a model request offers 10,000 tools,
      // over Beast's 1 MB default (the connection was reset and the turn failed).
      http::request_parser<http::string_body> parser;
      parser.body_limit(256 * 1024 * 1024);
      http::read(socket, buffer, parser, ec);
      if (ec) break;
      bool is_tool_call = false;
      unsigned version = 11;
      bool keep_alive = false;
      {
        const auto request = parser.release();
        const json body = json::parse(request.body());
        is_tool_call = body["messages"].back()["role"] == "user";
        version = request.version();
        keep_alive = request.keep_alive();
      }
      // Why the request is freed before the answer goes out: with 10,000 clients it is a
      // 1 MB document whose free takes this thread 3-4 ms. Freed after the clock started,
      // it kept a core busy while the server's event was on its way, and the SSE reader,
      // woken on that core, waited for it: half the turns measured 3.5-4.5 ms where the
      // server had written the event within 0.5 ms (timestamps on both sides, 2026-12-06).
      json message = {{"role", "assistant"}, {"content", nullptr}};
      if (is_tool_call) {
        message["tool_calls"] =
            json::array({{{"id", "c1"},
                          {"type", "function"},
                          {"function", {{"name", "probe_0__echo"}, {"arguments", "{\"n\":1}"}}}}});
      } else {
        message["content"] = "done";
      }
      http::response<http::string_body> response{http::status::ok, version};
      response.set(http::field::content_type, "application/json");
      response.keep_alive(keep_alive);
      response.body() =
          json{{"choices", json::array({{{"index", 0}, {"message", message}}})}}.dump();
      response.prepare_payload();
      if (think_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(think_ms));
      if (is_tool_call) tool_call_sent = steady::now().time_since_epoch().count();
      http::write(socket, response, ec);
      if (ec || !keep_alive) break;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse_options(argc, argv);
  if (o.clients < 1 || o.turns < 1) {
    std::cerr << "dispatch_latency: --clients and --turns must be positive\n";
    return 2;
  }
  asio::io_context io;
  tcp::acceptor model_acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  std::thread model_thread([&] { serve_model(model_acceptor, o.think_ms); });

  const std::string model_url =
      "http://127.0.0.1:" + std::to_string(model_acceptor.local_endpoint().port()) + "/v1";
  const bench::server_process server =
      bench::start_toolwire(o.toolwire,
                            {"--api-key", "bench", "--model-url", model_url, "--assistant-id", "1",
                             "--clock", "virtual", "--quiet"},
                            "dispatch_latency");
  bench::json_client api(io, server.port, "bench");
  const auto call = [&api](http::verb verb, const std::string& target, const json& body) {
    return api.call(verb, target, body, "dispatch_latency");
  };
  const json session = call(http::verb::post, "/v1/sessions", json::object());
  const std::string sid = session["id"];
  const json tool = {
      {"name", "echo"}, {"description", "echo"}, {"parameters", {{"type", "object"}}}};
  std::string probe_id;
  for (int i = 0; i < o.clients; ++i) {
    const json registered = call(http::verb::post, "/v1/sessions/" + sid + "/clients",
                                 {{"name", "probe_" + std::to_string(i)},
                                  {"lifetime", {{"type", "never"}}},
                                  {"tools", json::array({tool})}});
    if (i == 0) probe_id = registered["client_id"];
  }

  // The SSE reader: raw socket, so it sees each event the moment it is written.
  tcp::socket events(io);
  events.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server.port));
  const std::string open = "GET /v1/sessions/" + sid +
                           "/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                           "bench\r\nAccept: text/event-stream\r\n\r\n";
  asio::write(events, asio::buffer(open));
  std::string pending;
  auto next_event = [&]() -> std::pair<std::string, json> {
    for (;;) {
      const auto end = pending.find("\n\n");
      if (end != std::string::npos) {
        const std::string block = pending.substr(0, end);
        pending.erase(0, end + 2);
        std::string type, data;
        std::size_t start = 0;
        while (start < block.size()) {
          const auto stop = std::min(block.find('\n', start), block.size());
          const std::string line = block.substr(start, stop - start);
          if (line.rfind("event: ", 0) == 0) type = line.substr(7);
          if (line.rfind("data: ", 0) == 0) data = line.substr(6);
          start = stop + 1;
        }
        if (!type.empty()) return {type, json::parse(data)};
        continue;
      }
      char chunk[8192];
      const std::size_t n = events.read_some(asio::buffer(chunk));
      pending.append(chunk, n);
    }
  };

  std::vector<double> latencies_us;
  const double cpu_before = bench::cpu_seconds(server.pid);
  for (int turn = 0; turn < o.turns; ++turn) {
    call(http::verb::post, "/v1/sessions/" + sid + "/messages", {{"content", "go"}});
    for (;;) {
      auto [name, data] = next_event();
      using toolwire::protocol::event_type;
      const auto type = toolwire::protocol::parse_event_type(name);
      if (type == event_type::client_tool_dispatched) {
        const auto received = steady::now().time_since_epoch().count();
        latencies_us.push_back(
            std::chrono::duration<double, std::micro>(steady::duration(received - tool_call_sent))
                .count());
        call(http::verb::post,
             "/v1/sessions/" + sid + "/clients/" + probe_id + "/calls/" +
                 data["call_id"].get<std::string>() + "/result",
             {{"content", "ok"}});
      } else if (type == event_type::turn_completed) {
        break;
      } else if (type == event_type::turn_failed) {
        std::cerr << "dispatch_latency: turn failed: " << data.dump() << "\n";
        return 1;
      }
    }
  }

  const double cpu_per_turn_ms = (bench::cpu_seconds(server.pid) - cpu_before) * 1000 / o.turns;
  server.stop();
  model_acceptor.close();
  model_thread.detach();

  std::printf(
      "dispatch latency, %d clients, %d turns: p50 %.0f us, p90 %.0f us, p99 %.0f us, "
      "max %.0f us; server CPU %.2f ms per turn\n",
      o.clients, o.turns, bench::percentile(latencies_us, 0.5),
      bench::percentile(latencies_us, 0.9), bench::percentile(latencies_us, 0.99),
      bench::percentile(latencies_us, 1.0), cpu_per_turn_ms);
  return 0;
}
