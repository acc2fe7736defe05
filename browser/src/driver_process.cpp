// The browser driver child process (driver_process.hpp).
#include "toolwire/browser/driver_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <vector>

#include "toolwire/protocol/safe_json.hpp"

extern char** environ;

namespace toolwire::browser {

namespace {

using protocol::json;
using clock_type = std::chrono::steady_clock;

protocol::api_error driver_failed(const std::string& message) {
  return {protocol::error_code::unavailable, message};
}

//! The first directory of $PATH that holds an executable `name`, or "".
std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const auto end = dirs.find(':', start);
    const std::string dir = dirs.substr(start, end == std::string::npos ? end : end - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "";
}

std::string chromium_path() {
  const char* given = std::getenv("CHROMIUM");
  if (given != nullptr && *given != '\0') return given;
  return ::access("/usr/bin/chromium", X_OK) == 0 ? "/usr/bin/chromium" : on_path("chromium");
}

}  // namespace

std::string browser_dir(const driver_settings& settings) {
  const char* given = std::getenv("TOOLWIRE_BROWSER_DIR");
  return given != nullptr && *given != '\0' ? std::string(given) : settings.browser_dir;
}

std::string missing_for_browser(const driver_settings& settings) {
  const std::string dir = browser_dir(settings);
  std::error_code ec;
  if (chromium_path().empty())
    return "chromium is not installed (scripts/bootstrap --browser installs it)";
  if (on_path("node").empty())
    return "node is not installed (scripts/bootstrap --browser installs it)";
  if (!std::filesystem::is_regular_file(dir + "/driver/driver.mjs", ec)) {
    return "no browser driver at " + dir +
           "/driver/driver.mjs (set TOOLWIRE_BROWSER_DIR to the source tree's browser/)";
  }
  if (!std::filesystem::is_regular_file(dir + "/node_modules/playwright-core/package.json", ec)) {
    return dir +
           "/node_modules has no playwright-core (scripts/bootstrap --browser, or npm ci in " +
           dir + ")";
  }
  return "";
}

protocol::outcome<std::unique_ptr<driver_process>> driver_process::start(
    const driver_settings& settings) {
  if (auto missing = missing_for_browser(settings); !missing.empty()) return driver_failed(missing);
  const std::string dir = browser_dir(settings);
  std::unique_ptr<driver_process> driver(new driver_process());
  driver->reply_deadline_ = settings.reply_deadline;
  char log_template[] = "/tmp/toolwire-driver-XXXXXX";
  const int log_fd = ::mkstemp(log_template);
  if (log_fd < 0)
    return driver_failed(std::string("cannot make the driver's log: ") + strerror(errno));
  driver->log_path_ = log_template;
  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(log_fd);
    return driver_failed(std::string("cannot make pipes to the driver: ") + strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, log_fd, 2);
  // The driver's environment: this one, with its tab deadline.
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "TOOLWIRE_DRIVER_TIMEOUT_MS=", 27) != 0) env.emplace_back(*e);
  }
  env.push_back("TOOLWIRE_DRIVER_TIMEOUT_MS=" + std::to_string(settings.tab_deadline.count()));
  std::vector<char*> envp;
  for (auto& e : env)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string node = on_path("node"), script = dir + "/driver/driver.mjs";
  std::vector<char*> argv = {node.data(), script.data(), nullptr};
  pid_t pid = -1;
  const int spawned =
      ::posix_spawn(&pid, node.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(log_fd);
  if (spawned != 0) {
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    return driver_failed("cannot start " + node + ": " + strerror(spawned));
  }
  driver->pid_ = pid;
  driver->to_driver_ = in_pipe[1];
  driver->from_driver_ = out_pipe[0];
  return driver;
}

driver_process::~driver_process() {
  stop();
  if (!log_path_.empty()) std::filesystem::remove(log_path_);
}

void driver_process::stop() {
  if (pid_ < 0) return;
  if (to_driver_ >= 0) {
    // The driver closes Chromium and exits at the end of its input.
    ::close(to_driver_);
    to_driver_ = -1;
  }
  // Bounded: a driver that does not exit within 5 s is killed, Chromium with it (its group).
  const auto until = clock_type::now() + std::chrono::seconds(5);
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (clock_type::now() > until) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    ::usleep(20'000);
  }
  if (from_driver_ >= 0) ::close(from_driver_);
  from_driver_ = -1;
  pid_ = -1;
}

std::string driver_process::log_tail() const {
  std::ifstream in(log_path_);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (last.size() > 4) last.pop_front();
  }
  std::string tail;
  for (const auto& line : last)
    tail += (tail.empty() ? "" : " | ") + line;
  return tail.empty() ? "" : " (its log: " + tail + ")";
}

protocol::outcome<json> driver_process::command(const json& command) {
  if (!broken_.empty()) return driver_failed(broken_);
  const std::string what = protocol::string_at(command, "cmd");
  const auto fail = [&](const std::string& why) -> protocol::outcome<json> {
    broken_ = "the driver " + why + log_tail();
    return driver_failed(broken_);
  };
  const std::string line = command.dump() + "\n";
  for (std::size_t sent = 0; sent < line.size();) {
    const auto n = ::write(to_driver_, line.data() + sent, line.size() - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("is gone (writing '" + what + "': " + strerror(errno) + ")");
    sent += static_cast<std::size_t>(n);
  }
  const auto until = clock_type::now() + reply_deadline_;
  for (;;) {
    if (const auto end = pending_.find('\n'); end != std::string::npos) {
      const std::string reply_line = pending_.substr(0, end);
      pending_.erase(0, end + 1);
      auto reply = protocol::parse_untrusted_json(reply_line, "the driver's reply");
      if (!reply || !reply->is_object()) return fail("answered '" + what + "' with no JSON object");
      if (reply->value("ok", false)) return *reply;
      // The tab could not do it (e.g. the page never registered): the target's doing.
      return protocol::invalid_request(protocol::string_at(*reply, "error"));
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(until - clock_type::now()).count();
    if (left <= 0) {
      return fail("did not answer '" + what + "' within " +
                  std::to_string(reply_deadline_.count()) + " ms");
    }
    pollfd ready{from_driver_, POLLIN, 0};
    const int polled = ::poll(&ready, 1, static_cast<int>(left));
    if (polled < 0 && errno == EINTR) continue;
    if (polled <= 0) continue;
    char buffer[4096];
    const auto n = ::read(from_driver_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("exited while '" + what + "' waited for its reply");
    pending_.append(buffer, static_cast<std::size_t>(n));
  }
}

protocol::outcome<std::unique_ptr<driver_process>> driver_process::start_with_chromium(
    const driver_settings& settings) {
  auto started = start(settings);
  if (!started) return started.error();
  auto launched = (*started)->command({{"cmd", "launch"}});
  if (!launched) return launched.error();
  return std::move(*started);
}

}  // namespace toolwire::browser
