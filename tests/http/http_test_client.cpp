// A small synchronous HTTP and SSE client for loopback tests; every read has a deadline.
#include "http_test_client.hpp"

#include <array>
#include <stdexcept>

#include <boost/asio/connect.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/http.hpp>

namespace toolwire::test {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using steady = std::chrono::steady_clock;

struct op_result {
  beast::error_code ec;
  std::size_t bytes = 0;
  bool timed_out = false;
};

//! Runs one asynchronous operation to completion, or cancels it at `deadline`. The
//! socket stays open after a timeout, so a stream can be read again.
template <typename Start>
op_result run_op(net::io_context& ioc, tcp::socket& socket, steady::time_point deadline,
                 Start start) {
  op_result result;
  bool done = false;
  net::steady_timer timer(ioc, deadline);
  timer.async_wait([&](beast::error_code ec) {
    if (ec || done) return;
    result.timed_out = true;
    beast::error_code ignored;
    socket.cancel(ignored);
  });
  start([&](beast::error_code ec, auto... rest) {
    result.ec = ec;
    ((result.bytes = static_cast<std::size_t>(rest)), ...);
    done = true;
    timer.cancel();
  });
  ioc.restart();
  ioc.run();
  return result;
}

std::runtime_error failure(std::string_view what, const op_result& result) {
  return std::runtime_error(
      std::string(what) + ": " +
      (result.timed_out ? "no answer before the deadline" : result.ec.message()));
}

template <typename Message>
std::map<std::string, std::string> lower_case_headers(const Message& message) {
  std::map<std::string, std::string> headers;
  for (const auto& field : message) {
    std::string name(field.name_string());
    for (char& c : name)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    headers[name] = std::string(field.value());
  }
  return headers;
}

void connect(net::io_context& ioc, tcp::socket& socket, const tcp::endpoint& server,
             steady::time_point deadline) {
  auto connected = run_op(ioc, socket, deadline,
                          [&](auto handler) { socket.async_connect(server, std::move(handler)); });
  if (connected.ec || connected.timed_out) throw failure("connect", connected);
}

//! Writes `message` while reading the answer: a server may answer before it has read a
//! whole body (413), and the answer is what the test wants.
template <typename Writer>
http_reply exchange(net::io_context& ioc, tcp::socket& socket, steady::time_point deadline,
                    Writer write) {
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(std::uint64_t{64} << 20);
  beast::error_code write_ec;
  auto read = run_op(ioc, socket, deadline, [&](auto handler) {
    write([&](beast::error_code ec, std::size_t) { write_ec = ec; });
    http::async_read(socket, buffer, parser, [&, handler](beast::error_code ec, std::size_t n) {
      beast::error_code ignored;
      socket.cancel(ignored);  // a write still in flight is no longer needed
      handler(ec, n);
    });
  });
  if (read.ec || read.timed_out) throw failure("reading the answer", read);
  http_reply reply;
  reply.status = static_cast<int>(parser.get().result_int());
  reply.headers = lower_case_headers(parser.get());
  reply.body = parser.get().body();
  return reply;
}

//! SSE allows CRLF line ends; this server sends LF, so dropping CR is enough here.
std::string normalize_newlines(std::string text) {
  std::erase(text, '\r');
  return text;
}

}  // namespace

json http_reply::json_body() const {
  return json::parse(body, nullptr, false);
}

std::string http_reply::error_type() const {
  const json document = json_body();
  if (!document.is_object() || !document.contains("error")) return {};
  return document["error"].value("type", "");
}

http_reply request(const tcp::endpoint& server, std::string_view method, std::string_view target,
                   std::string body, std::optional<std::string> bearer, const header_list& headers,
                   std::chrono::milliseconds deadline) {
  net::io_context ioc;
  tcp::socket socket(ioc);
  const auto until = steady::now() + deadline;
  connect(ioc, socket, server, until);
  http::request<http::string_body> message;
  if (auto verb = http::string_to_verb(method); verb != http::verb::unknown) {
    message.method(verb);
  } else {
    message.method_string(method);
  }
  message.target(target);
  message.version(11);
  message.set(http::field::host, "127.0.0.1");
  message.keep_alive(false);
  if (bearer) message.set(http::field::authorization, "Bearer " + *bearer);
  for (const auto& [name, value] : headers)
    message.set(name, value);
  if (!body.empty()) message.set(http::field::content_type, "application/json");
  message.body() = std::move(body);
  message.prepare_payload();
  return exchange(ioc, socket, until, [&](auto on_written) {
    http::async_write(socket, message, std::move(on_written));
  });
}

http_reply request_json(const tcp::endpoint& server, std::string_view method,
                        std::string_view target, const json& body,
                        std::optional<std::string> bearer) {
  return request(server, method, target, body.dump(), std::move(bearer));
}

http_reply raw_request(const tcp::endpoint& server, const std::string& bytes,
                       std::chrono::milliseconds deadline) {
  net::io_context ioc;
  tcp::socket socket(ioc);
  const auto until = steady::now() + deadline;
  connect(ioc, socket, server, until);
  return exchange(ioc, socket, until, [&](auto on_written) {
    net::async_write(socket, net::buffer(bytes), std::move(on_written));
  });
}

raw_outcome raw_exchange(const tcp::endpoint& server, const std::string& bytes,
                         std::size_t max_replies, bool half_close,
                         std::chrono::milliseconds deadline) {
  net::io_context ioc;
  tcp::socket socket(ioc);
  const auto until = steady::now() + deadline;
  connect(ioc, socket, server, until);
  auto written = run_op(ioc, socket, until, [&](auto handler) {
    net::async_write(socket, net::buffer(bytes), std::move(handler));
  });
  raw_outcome outcome;
  if (written.ec) {
    outcome.closed = true;  // the server closed before taking everything (a reset)
  }
  if (half_close) {
    beast::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_send, ignored);
  }
  beast::flat_buffer buffer;
  while (!outcome.closed) {
    http::response_parser<http::string_body> parser;
    parser.body_limit(std::uint64_t{64} << 20);
    auto read = run_op(ioc, socket, until, [&](auto handler) {
      http::async_read(socket, buffer, parser, std::move(handler));
    });
    if (read.timed_out) break;
    if (read.ec) {
      outcome.closed = read.ec == http::error::end_of_stream || read.ec == net::error::eof ||
                       read.ec == net::error::connection_reset ||
                       read.ec == http::error::partial_message;
      break;
    }
    http_reply reply;
    reply.status = static_cast<int>(parser.get().result_int());
    reply.headers = lower_case_headers(parser.get());
    reply.body = parser.get().body();
    outcome.replies.push_back(std::move(reply));
    // Why read on after the last expected reply: to see whether the server closes.
    if (outcome.replies.size() > max_replies) break;
  }
  return outcome;
}

void send_and_reset(const tcp::endpoint& server, const std::string& bytes) {
  net::io_context ioc;
  tcp::socket socket(ioc);
  const auto until = steady::now() + default_deadline;
  connect(ioc, socket, server, until);
  auto written = run_op(ioc, socket, until, [&](auto handler) {
    net::async_write(socket, net::buffer(bytes), std::move(handler));
  });
  if (written.ec || written.timed_out) throw failure("sending before the reset", written);
  socket.set_option(net::socket_base::linger(true, 0));
  socket.close();
}

sse_stream::sse_stream(const tcp::endpoint& server, std::string target,
                       std::optional<std::string> bearer, std::optional<std::string> last_event_id,
                       std::chrono::milliseconds deadline)
    : socket_(ioc_) {
  const auto until = steady::now() + deadline;
  connect(ioc_, socket_, server, until);
  http::request<http::empty_body> message{http::verb::get, target, 11};
  message.set(http::field::host, "127.0.0.1");
  message.set(http::field::accept, "text/event-stream");
  if (bearer) message.set(http::field::authorization, "Bearer " + *bearer);
  if (last_event_id) message.set("Last-Event-ID", *last_event_id);
  auto written = run_op(ioc_, socket_, until, [&](auto handler) {
    http::async_write(socket_, message, std::move(handler));
  });
  if (written.ec || written.timed_out) throw failure("sending the events request", written);
  http::response_parser<http::string_body> parser;
  auto header = run_op(ioc_, socket_, until, [&](auto handler) {
    http::async_read_header(socket_, buffer_, parser, std::move(handler));
  });
  if (header.ec || header.timed_out) throw failure("reading the events header", header);
  reply_.status = static_cast<int>(parser.get().result_int());
  reply_.headers = lower_case_headers(parser.get());
  if (reply_.status != 200) {
    auto body = run_op(ioc_, socket_, until, [&](auto handler) {
      http::async_read(socket_, buffer_, parser, std::move(handler));
    });
    if (body.ec || body.timed_out) throw failure("reading the error body", body);
    reply_.body = parser.get().body();
    ended_ = true;
    return;
  }
  // What the header read took beyond the header is the start of the event stream.
  text_ = normalize_newlines(beast::buffers_to_string(buffer_.data()));
  buffer_.consume(buffer_.size());
}

sse_stream::~sse_stream() {
  beast::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

std::optional<sse_event> sse_stream::next(std::chrono::milliseconds within) {
  const auto deadline = steady::now() + within;
  while (true) {
    if (auto block = take_block()) return block;
    if (ended_ || !read_more(deadline)) return std::nullopt;
  }
}

std::optional<sse_event> sse_stream::next_event(std::chrono::milliseconds within) {
  const auto deadline = steady::now() + within;
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady::now());
    auto block = next(std::max(left, std::chrono::milliseconds{0}));
    if (!block || !block->is_comment) return block;
  }
}

std::vector<sse_event> sse_stream::until(std::string_view type, std::chrono::milliseconds within) {
  const auto deadline = steady::now() + within;
  std::vector<sse_event> seen;
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady::now());
    auto event = next_event(std::max(left, std::chrono::milliseconds{0}));
    if (!event) {
      std::string types;
      for (const auto& e : seen)
        types += " " + e.type;
      throw std::runtime_error("no " + std::string(type) + " event in time; saw:" + types);
    }
    seen.push_back(std::move(*event));
    if (seen.back().type == type) return seen;
  }
}

std::optional<sse_event> sse_stream::take_block() {
  while (true) {
    const auto end = text_.find("\n\n");
    if (end == std::string::npos) return std::nullopt;
    const std::string block = text_.substr(0, end + 1);
    text_.erase(0, end + 2);
    sse_event event;
    bool has_field = false;
    bool has_comment = false;
    std::vector<std::string> data_lines;
    std::size_t start = 0;
    while (start < block.size()) {
      const auto newline = block.find('\n', start);
      std::string line = block.substr(start, newline - start);
      start = newline + 1;
      if (line.empty()) continue;
      if (line.front() == ':') {
        has_comment = true;
        event.comment = line.substr(line.size() > 1 && line[1] == ' ' ? 2 : 1);
        continue;
      }
      const auto colon = line.find(':');
      const std::string field = line.substr(0, colon);
      std::string value = colon == std::string::npos ? std::string{} : line.substr(colon + 1);
      if (!value.empty() && value.front() == ' ') value.erase(0, 1);
      has_field = true;
      if (field == "id") event.id = std::stoull(value);
      if (field == "event") event.type = value;
      if (field == "data") data_lines.push_back(value);
    }
    if (!has_field && !has_comment) continue;
    event.is_comment = !has_field;
    for (std::size_t i = 0; i < data_lines.size(); ++i) {
      event.raw_data += (i ? "\n" : "") + data_lines[i];
    }
    event.data = json::parse(event.raw_data, nullptr, false);
    return event;
  }
}

bool sse_stream::read_more(steady::time_point deadline) {
  std::array<char, 4096> chunk{};
  auto read = run_op(ioc_, socket_, deadline, [&](auto handler) {
    socket_.async_read_some(net::buffer(chunk), std::move(handler));
  });
  if (read.timed_out) return false;
  if (read.ec) {
    ended_ = true;
    return false;
  }
  text_ += normalize_newlines(std::string(chunk.data(), read.bytes));
  return true;
}

}  // namespace toolwire::test
