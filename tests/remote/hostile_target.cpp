// The hostile target: POSIX sockets, a thread per connection, every wait interruptible.
#include "remote/hostile_target.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

namespace toolwire::remote_test {

namespace {

std::string answer(int status, const std::string& reason, const std::string& body,
                   const std::string& extra_headers = "") {
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n" + extra_headers + "\r\n" + body;
}

//! A plausible answer, so that a run gets as far as its event streams.
std::string plausible(const std::string& method, const std::string& path) {
  if (method == "POST" && path == "/v1/sessions") {
    return answer(201, "Created", R"({"id":"s1","token":"hostile-token"})");
  }
  if (method == "POST" && path.ends_with("/messages")) {
    return answer(202, "Accepted", R"({"turn_id":"t1"})");
  }
  return answer(200, "OK", "{}");
}

//! Well-formed JSON whose fields have the wrong types: numbers for ids, arrays for
//! objects, objects for strings. Sessions and tasks get usable ids, so that a run gets
//! as far as its clients, calls, polls and event streams.
std::string wrong_types(const std::string& method, const std::string& path) {
  if (method == "POST" && path == "/v1/sessions") {
    return answer(201, "Created", R"({"id":"s1","token":"hostile-token","expires":[1]})");
  }
  if (method == "POST" && path.ends_with("/clients")) {
    return answer(201, "Created", R"({"client_id":42,"name":{"n":1},"lifetime":"x","tools":5})");
  }
  if (method == "POST" && path == "/api/tasks") {
    return answer(201, "Created", R"({"uuid":"u1","status":7})");
  }
  if (method == "GET" && path.starts_with("/api/tasks/")) {
    return answer(200, "OK",
                  R"({"uuid":["u1"],"status":"interrupted","pending_tool_calls":)"
                  R"([{"id":5,"name":["x"],"arguments":"{"},3,"s",{"id":{"a":1}}],)"
                  R"("output":{"type":1},"error":"e"})");
  }
  if (method == "POST" && path.ends_with("/ping")) {
    return answer(200, "OK", R"({"expires_at_ms":"soon"})");
  }
  if (method == "GET" && path == "/v1/_test/clock") return answer(200, "OK", R"({"now_ms":"x"})");
  if (method == "POST" && path.ends_with("/messages")) {
    return answer(202, "Accepted", R"({"turn_id":{"t":1}})");
  }
  return answer(200, "OK", R"([1,"two",null,{"error":{"type":3}}])");
}

//! Event frames of the right form whose data has the wrong types, then nothing.
const std::string wrong_type_events =
    "id: 1\nevent: client_registered\ndata: {\"client_id\":7,\"name\":[],"
    "\"requested_name\":{}}\n\n"
    "id: 2\nevent: client_tool_dispatched\ndata: {\"call_id\":5,\"client_id\":[],"
    "\"tool\":{},\"arguments\":\"x\",\"turn_id\":null}\n\n"
    "id: 3\nevent: client_tools_updated\ndata: {\"client_id\":true,\"tools\":\"a\"}\n\n"
    "id: 4\nevent: client_tool_completed\ndata: []\n\n"
    "id: 5\nevent: client_unregistered\ndata: 5\n\n"
    "id: 6\nevent: turn_completed\ndata: {\"turn_id\":1,\"output\":[]}\n\n"
    "id: 7\nevent: client_tool_failed\ndata: {\"call_id\":{},\"reason\":9}\n\n"
    "id: 8\nevent: stream_gap\ndata: {\"oldest_seq\":\"one\"}\n\n";

}  // namespace

const std::vector<misbehaviour>& all_misbehaviours() {
  static const std::vector<misbehaviour> all = {misbehaviour::invalid_utf8,
                                                misbehaviour::deep_json,
                                                misbehaviour::huge_body,
                                                misbehaviour::slowloris,
                                                misbehaviour::silent,
                                                misbehaviour::reset_mid_response,
                                                misbehaviour::garbage_sse,
                                                misbehaviour::huge_sse_line,
                                                misbehaviour::wrong_content_length,
                                                misbehaviour::http09,
                                                misbehaviour::te_identity,
                                                misbehaviour::te_with_length,
                                                misbehaviour::wrong_json_types};
  return all;
}

std::string to_string(misbehaviour how) {
  switch (how) {
    case misbehaviour::invalid_utf8:
      return "invalid UTF-8 in JSON strings";
    case misbehaviour::deep_json:
      return "JSON nested 100,000 deep";
    case misbehaviour::huge_body:
      return "a 100 MB body";
    case misbehaviour::slowloris:
      return "one byte a second";
    case misbehaviour::silent:
      return "never answering";
    case misbehaviour::reset_mid_response:
      return "a reset mid-response";
    case misbehaviour::garbage_sse:
      return "garbage on the event stream";
    case misbehaviour::huge_sse_line:
      return "a 10 MB SSE line";
    case misbehaviour::wrong_content_length:
      return "a Content-Length larger than the body";
    case misbehaviour::http09:
      return "an HTTP/0.9 answer";
    case misbehaviour::te_identity:
      return "Transfer-Encoding: identity";
    case misbehaviour::te_with_length:
      return "Transfer-Encoding with Content-Length";
    case misbehaviour::wrong_json_types:
      return "JSON of the wrong types";
  }
  return "?";
}

hostile_target::hostile_target(misbehaviour how) : how_(how) {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listener_ < 0) throw std::runtime_error("socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener_, 64) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(listener_);
    throw std::runtime_error("bind/listen");
  }
  port_ = ntohs(address.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

hostile_target::~hostile_target() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stopped_.notify_all();
  acceptor_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    threads.swap(threads_);
  }
  for (auto& t : threads)
    t.join();
  ::close(listener_);
}

bool hostile_target::pause(int ms) {
  std::unique_lock lock(mutex_);
  return !stopped_.wait_for(lock, std::chrono::milliseconds(ms),
                            [this] { return stopping_.load(); });
}

void hostile_target::accept_loop() {
  while (!stopping_) {
    pollfd p{listener_, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    const int fd = ::accept(listener_, nullptr, nullptr);
    if (fd < 0) continue;
    ++accepted_;
    std::lock_guard lock(mutex_);
    threads_.emplace_back([this, fd] {
      serve(fd);
      ::close(fd);
    });
  }
}

bool hostile_target::send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    if (stopping_) return false;
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    const auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent_ += static_cast<std::uint64_t>(n);
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void hostile_target::hold(int fd) {
  // Held open, unanswered, until the peer goes or the target stops.
  while (!stopping_) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) > 0) {
      char sink[4096];
      if (::recv(fd, sink, sizeof sink, 0) <= 0) return;
    }
  }
}

namespace {

enum class read_result { appended, nothing_yet, closed };

//! Appends what `fd` has within 20 ms to `in`.
read_result read_some(int fd, std::string& in) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 20) <= 0) return read_result::nothing_yet;
  char buffer[4096];
  const auto n = ::recv(fd, buffer, sizeof buffer, 0);
  if (n <= 0) return read_result::closed;
  in.append(buffer, static_cast<std::size_t>(n));
  return read_result::appended;
}

}  // namespace

void hostile_target::serve(int fd) {
  std::string in;
  for (;;) {
    // One request: its header, then a Content-Length body (bounded: this is a fixture).
    std::size_t end = std::string::npos;
    while ((end = in.find("\r\n\r\n")) == std::string::npos) {
      if (stopping_ || in.size() > (1u << 20)) return;
      const auto read = read_some(fd, in);
      if (read == read_result::closed) return;
      if (read == read_result::nothing_yet) continue;
    }
    const std::string head = in.substr(0, end);
    std::size_t body_length = 0;
    if (auto at = head.find("Content-Length: "); at != std::string::npos) {
      body_length = std::stoul(head.substr(at + 16));
    }
    while (in.size() < end + 4 + body_length) {
      if (stopping_) return;
      const auto read = read_some(fd, in);
      if (read == read_result::closed) return;
      if (read == read_result::nothing_yet) continue;
    }
    in.erase(0, end + 4 + body_length);
    const auto space = head.find(' ');
    const std::string method = head.substr(0, space);
    const std::string target = head.substr(space + 1, head.find(' ', space + 1) - space - 1);
    const std::string path = target.substr(0, target.find('?'));
    const bool events = path.ends_with("/events");

    switch (how_) {
      case misbehaviour::invalid_utf8: {
        const std::string body =
            "{\"id\":\"s\xFF\",\"token\":\"\xC3\x28\",\"error\":{\"type\":"
            "\"\xC0\xAF\",\"message\":\"\xED\xA0\x80 \xF4\x90\x80\x80\"}}";
        if (!send_all(fd, answer(method == "POST" && path == "/v1/sessions" ? 201 : 400, "Whatever",
                                 body))) {
          return;
        }
        break;
      }
      case misbehaviour::deep_json: {
        const std::string body = std::string(100'000, '[') + std::string(100'000, ']');
        if (!send_all(fd, answer(200, "OK", body))) return;
        break;
      }
      case misbehaviour::huge_body: {
        constexpr std::uint64_t size = 100u << 20;
        if (!send_all(fd,
                      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                      "Content-Length: " +
                          std::to_string(size + 2) + "\r\n\r\n\"")) {
          return;
        }
        const std::string chunk(64 << 10, 'a');
        for (std::uint64_t sent = 0; sent < size; sent += chunk.size()) {
          if (!send_all(fd, chunk)) return;
        }
        if (!send_all(fd, "\"")) return;
        break;
      }
      case misbehaviour::slowloris: {
        const std::string reply = plausible(method, path);
        for (const char c : reply) {
          if (!send_all(fd, std::string_view(&c, 1)) || !pause(1000)) return;
        }
        break;
      }
      case misbehaviour::silent:
        return hold(fd);
      case misbehaviour::reset_mid_response: {
        send_all(fd,
                 "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
                 "Content-Length: 100\r\n\r\n{\"id\":\"s");
        linger reset{1, 0};  // close with RST, not FIN
        ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
        return;
      }
      case misbehaviour::garbage_sse:
      case misbehaviour::huge_sse_line: {
        if (!events) {
          // Why the pause: the run's own stream of a new session opens right after its
          // creation; later answers wait a little, so the garbage is read before the case
          // can end (well within the 300 ms a test allows a request).
          const bool create = method == "POST" && path == "/v1/sessions";
          if ((!create && !pause(100)) || !send_all(fd, plausible(method, path))) return;
          break;
        }
        if (!send_all(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")) return;
        if (how_ == misbehaviour::garbage_sse) {
          const std::string garbage =
              "id: x\nevent: \xFF\xFE\ndata: {not json\n\n"
              "id: 1\nevent: client_registered\ndata: " +
              std::string(10'000, '[') +
              "\n\n"
              "id: 2\nevent: turn_started\ndata: {\"x\":\"\xC3\x28\"}\n\n"
              "\x01\x02\x03 binary \xFF\n\n";
          if (!send_all(fd, garbage)) return;
        } else {
          if (!send_all(fd, "data: ")) return;
          const std::string chunk(64 << 10, 'a');
          for (int i = 0; i < 160; ++i) {  // 10 MB, no newline
            if (!send_all(fd, chunk)) return;
          }
        }
        return hold(fd);
      }
      case misbehaviour::wrong_content_length:
        send_all(fd,
                 "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
                 "Content-Length: 1000\r\n\r\n{\"id\":\"s1\",\"token\":\"hostile-token\"}");
        return;
      case misbehaviour::http09:
        send_all(fd, "{\"id\":\"s1\",\"token\":\"hostile-token\"}");
        return;
      case misbehaviour::te_identity:
        send_all(fd,
                 "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
                 "Transfer-Encoding: identity\r\n\r\n{\"id\":\"s1\",\"token\":\"t\"}"
                 "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}");
        return;
      case misbehaviour::wrong_json_types:
        if (events) {
          if (!send_all(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n") ||
              !send_all(fd, wrong_type_events)) {
            return;
          }
          return hold(fd);
        }
        if (!send_all(fd, wrong_types(method, path))) return;
        break;
      case misbehaviour::te_with_length:
        if (!send_all(fd,
                      "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
                      "Content-Length: 26\r\nTransfer-Encoding: chunked\r\n\r\n"
                      "1a\r\n{\"id\":\"s1\",\"token\":\"tkn\"}\r\n0\r\n\r\n")) {
          return;
        }
        break;
    }
  }
}

}  // namespace toolwire::remote_test
