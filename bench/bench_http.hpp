// What the HTTP benches share: `toolwire serve` started as a child process on a free
// loopback port, a blocking keep-alive JSON client, percentiles and a process's RSS.
// Loopback only: the benches never send traffic anywhere else.
#pragma once

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace toolwire::bench {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using json = nlohmann::json;

//! A `toolwire serve` child; stopped with SIGTERM (a graceful stop) by `stop`.
struct server_process {
  pid_t pid = -1;
  int port = 0;

  void stop() const {
    if (pid <= 0) return;
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
  }
};

//! Starts `toolwire serve --port 0 ARGS...` and reads the port from its "listening on"
//! line; exits 1 (naming `program`) when it cannot start.
inline server_process start_toolwire(const std::string& toolwire,
                                     const std::vector<std::string>& args,
                                     std::string_view program) {
  int out[2];
  if (pipe(out) != 0) std::exit(1);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    std::vector<std::string> all = {toolwire, "serve", "--port", "0"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& arg : all)
      argv.push_back(arg.data());
    argv.push_back(nullptr);
    execv(toolwire.c_str(), argv.data());
    std::perror("exec toolwire");
    std::_Exit(127);
  }
  close(out[1]);
  FILE* stream = fdopen(out[0], "r");
  char line[256] = {};
  if (std::fgets(line, sizeof line, stream) == nullptr) {
    std::cerr << program << ": toolwire serve printed nothing (is " << toolwire
              << " a toolwire binary?)\n";
    std::exit(1);
  }
  const std::string text = line;
  const auto colon = text.rfind(':');
  return {pid, std::stoi(text.substr(colon + 1))};
}

//! One answer: its status and its body as JSON (null when empty or not JSON).
struct reply {
  int status = 0;
  json body;
};

//! A blocking keep-alive JSON client on one connection.
class json_client {
 public:
  json_client(asio::io_context& io, int port, std::string bearer)
      : stream_(io), bearer_(std::move(bearer)) {
    stream_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  }

  //! Sends one request and reads its answer; a transport error throws.
  reply send(http::verb verb, const std::string& target, const json& body,
             const std::string& bearer = {}) {
    http::request<http::string_body> request{verb, target, 11};
    request.set(http::field::host, "127.0.0.1");
    request.set(http::field::authorization, "Bearer " + (bearer.empty() ? bearer_ : bearer));
    if (!body.is_null()) {
      request.set(http::field::content_type, "application/json");
      request.body() = body.dump();
    }
    request.prepare_payload();
    http::write(stream_, request);
    http::response<http::string_body> response;
    http::read(stream_, buffer_, response);
    reply answer{static_cast<int>(response.result_int()), json()};
    if (!response.body().empty()) answer.body = json::parse(response.body(), nullptr, false);
    return answer;
  }

  //! As `send`, and exits 1 (naming `program`) on a status of 300 or more.
  json call(http::verb verb, const std::string& target, const json& body,
            std::string_view program) {
    reply answer = send(verb, target, body);
    if (answer.status >= 300) {
      std::cerr << program << ": " << target << " -> " << answer.status << " " << answer.body.dump()
                << "\n";
      std::exit(1);
    }
    return answer.body;
  }

 private:
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::string bearer_;
};

//! The p-th quantile (0..1) of `values`, nearest rank below; 0 for none.
inline double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t index = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1));
  return values[index];
}

//! The CPU time process `pid` has used so far (user and system), in seconds, from
//! /proc/PID/stat (0 when unreadable). Its resolution is the kernel's tick (10 ms).
inline double cpu_seconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  // Fields 14 and 15 (utime, stime) count from after the command name, which may hold
  // spaces and is closed by the last ')'.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i >= 14) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

//! The resident set of process `pid` in MiB, from /proc (0 when unreadable).
inline double rss_mib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") {
      double kib = 0;
      status >> kib;
      return kib / 1024.0;
    }
    std::string rest;
    std::getline(status, rest);
  }
  return 0;
}

}  // namespace toolwire::bench
