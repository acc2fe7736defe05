// The synchronous client: asynchronous Beast operations on a private io_context, run until
// they finish or the exchange's deadline passes, so every wait is bounded.
#include "toolwire/conformance/http_client.hpp"

#include <optional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "beast_messages.hpp"
#include "strict_http.hpp"
#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/protocol/url.hpp"

namespace toolwire::conformance {

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using clock_type = std::chrono::steady_clock;

//! The peer closed a connection we hoped to reuse, before answering anything.
bool closed_by_peer(const beast::error_code& ec) {
  return ec == http::error::end_of_stream || ec == net::error::eof ||
         ec == net::error::connection_reset || ec == net::error::broken_pipe ||
         ec == net::error::connection_aborted;
}

//! An answer that is not HTTP (a parser error), as opposed to a failing connection.
bool malformed_http(const beast::error_code& ec) {
  return ec.category() == make_error_code(http::error::bad_version).category() &&
         ec != http::error::end_of_stream && ec != http::error::partial_message;
}

}  // namespace

namespace detail {

beast_request to_beast(const protocol::api_request& request, const host_port& server) {
  beast_request out;
  out.version(11);
  const auto verb = http::string_to_verb(request.method);
  if (verb == http::verb::unknown) {
    out.method_string(request.method);
  } else {
    out.method(verb);
  }
  out.target(request_target(request));
  out.set(http::field::host, server.to_string());
  out.set(http::field::user_agent, "toolwire-conformance");
  if (request.credential) out.set(http::field::authorization, "Bearer " + *request.credential);
  if (request.last_event_id) out.set("Last-Event-ID", *request.last_event_id);
  for (const auto& [name, value] : request.cors)
    out.set(name, value);
  if (!request.body.empty()) {
    out.set(http::field::content_type, "application/json");
    out.body() = request.body;
  }
  out.keep_alive(true);
  out.prepare_payload();
  return out;
}

std::map<std::string, std::string> cors_fields(const http::fields& header) {
  std::map<std::string, std::string> fields;
  for (const auto& field : header) {
    std::string name(field.name_string());
    for (auto& c : name)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!name.starts_with("access-control-") && name != "vary") continue;
    // Why appended: a field may come in several lines, which mean their values joined.
    auto& value = fields[name];
    value += (value.empty() ? "" : ", ") + escape_invalid_utf8(field.value());
  }
  return fields;
}

}  // namespace detail

std::string describe_answer(const protocol::api_response& response) {
  if (is_transport_failure(response)) return response.body["error"].value("message", "");
  return "HTTP " + std::to_string(response.status) + " " + safe_dump(response.body);
}

std::string request_target(const protocol::api_request& request) {
  std::string target = request.path;
  char separator = '?';
  for (const auto& [key, value] : request.query) {
    target += separator + protocol::percent_encode(key) + "=" + protocol::percent_encode(value);
    separator = '&';
  }
  return target;
}

json response_body(const std::string& text) {
  if (text.empty()) return json(nullptr);
  auto parsed = parse_outside_json(text);
  if (auto* value = std::get_if<json>(&parsed)) return std::move(*value);
  // Why escape: the text goes into traces and reports, which must stay UTF-8.
  if (nested_deeper_than(text)) return json(safe_excerpt(text, 1024));
  return json(escape_invalid_utf8(text));
}

std::optional<std::string> unreadable_body(const std::string& text) {
  if (auto bad = first_invalid_utf8(text)) {
    return "the answer's body is not valid UTF-8 (byte " +
           escape_invalid_utf8(text.substr(*bad, 1)) + " at offset " + std::to_string(*bad) +
           "): " + safe_excerpt(text);
  }
  if (nested_deeper_than(text)) {
    return "the answer's body nests JSON deeper than " + std::to_string(max_json_depth) +
           " levels: " + safe_excerpt(text, 80);
  }
  return std::nullopt;
}

struct http_client::impl {
  host_port server;
  std::chrono::milliseconds timeout;
  net::io_context ioc;
  tcp::resolver resolver{ioc};
  beast::tcp_stream stream{ioc};
  beast::flat_buffer buffer;
  bool connected = false;
  clock_type::time_point deadline;

  impl(host_port s, std::chrono::milliseconds t) : server(std::move(s)), timeout(t) {}

  //! Runs the operation `start` began until its handler ran or the deadline passed; a
  //! late operation is cancelled by closing everything, and reports timed_out. Why the
  //! stream gets no expiry of its own: `run_until` already ends the wait at the deadline,
  //! and the stream's timer was armed, cancelled and run for every connect, write and read
  //! (a system call each: about 100 of a program's in explore over HTTP).
  template <typename Start>
  beast::error_code await(Start start) {
    std::optional<beast::error_code> result;
    start([&result](beast::error_code ec) { result = ec; });
    ioc.restart();
    ioc.run_until(deadline);
    if (result) return *result;
    resolver.cancel();
    disconnect();
    ioc.restart();
    ioc.run();  // the cancelled handlers run, with nothing left to wait for
    return beast::error::timeout;
  }

  void disconnect() {
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream.close();
    buffer.clear();
    connected = false;
  }

  std::string timed_out(std::string_view stage) const {
    return stage.empty()
               ? "no answer within " + std::to_string(timeout.count()) + " ms"
               : std::string(stage) + " within " + std::to_string(timeout.count()) + " ms";
  }

  std::optional<std::string> connect();
  std::optional<std::string> write(detail::beast_request& request, bool& retry);
  protocol::api_response read(bool& retry);
  protocol::api_response exchange(const protocol::api_request& request, bool may_retry);
};

std::optional<std::string> http_client::impl::connect() {
  const std::string where = server.to_string();
  // Why no resolver for an address (a target at 127.0.0.1, the bundled server): the
  // resolver answers on a thread of its own, started for each client's io_context, so
  // every run paid a thread's start and two hand-offs for a name that needs no lookup.
  beast::error_code not_an_address;
  const auto address = net::ip::make_address(server.host, not_an_address);
  beast::error_code ec;
  if (!not_an_address) {
    ec = await([&](auto done) {
      stream.async_connect(tcp::endpoint(address, server.port),
                           [done](beast::error_code e) { done(e); });
    });
  } else {
    tcp::resolver::results_type endpoints;
    ec = await([&](auto done) {
      resolver.async_resolve(
          server.host, std::to_string(server.port),
          [&endpoints, done](beast::error_code e, tcp::resolver::results_type r) {
            endpoints = std::move(r);
            done(e);
          });
    });
    if (ec == beast::error::timeout) return timed_out("cannot resolve " + server.host);
    if (ec) return "cannot resolve " + server.host + ": " + ec.message();
    ec = await([&](auto done) {
      stream.async_connect(endpoints,
                           [done](beast::error_code e, const tcp::endpoint&) { done(e); });
    });
  }
  if (ec == beast::error::timeout) return timed_out("cannot connect to " + where);
  if (ec) return "cannot connect to " + where + ": " + ec.message();
  connected = true;
  return std::nullopt;
}

std::optional<std::string> http_client::impl::write(detail::beast_request& request, bool& retry) {
  auto ec = await([&](auto done) {
    http::async_write(stream, request, [done](beast::error_code e, std::size_t) { done(e); });
  });
  if (!ec) return std::nullopt;
  retry = retry && closed_by_peer(ec);
  disconnect();
  if (ec == beast::error::timeout) return timed_out("cannot send the request");
  return "cannot send the request: " + ec.message();
}

protocol::api_response http_client::impl::read(bool& retry) {
  http::response_parser<http::string_body> parser;
  parser.body_limit(max_body_bytes);
  auto ec = await([&](auto done) {
    http::async_read_header(stream, buffer, parser,
                            [done](beast::error_code e, std::size_t) { done(e); });
  });
  if (!ec) {
    // RFC 9112 6.3: framing the suite cannot trust is an error, not a guess.
    if (auto problem = detail::framing_problem(parser.get())) {
      disconnect();
      return transport_failure("malformed HTTP answer: " + *problem);
    }
    ec = await([&](auto done) {
      http::async_read(stream, buffer, parser,
                       [done](beast::error_code e, std::size_t) { done(e); });
    });
  }
  if (ec) {
    retry = retry && !parser.got_some() && closed_by_peer(ec);
    disconnect();
    if (ec == beast::error::timeout) {
      return transport_failure(timed_out(""), transport_cause::unreachable);
    }
    if (ec == http::error::body_limit) {
      return transport_failure("the answer's body is larger than " +
                               std::to_string(max_body_bytes >> 20) +
                               " MiB; the suite stopped reading it");
    }
    if (malformed_http(ec)) return transport_failure("malformed HTTP answer: " + ec.message());
    // Why the part matters: a target that closed or reset the connection before it said
    // anything may have gone away; one that broke off an answer it had begun (a
    // Content-Length it did not keep) gave a malformed answer.
    const auto cause =
        parser.got_some() ? transport_cause::unreadable : transport_cause::unreachable;
    if (closed_by_peer(ec) || ec == http::error::partial_message) {
      return transport_failure(parser.got_some()
                                   ? "the target closed the connection in the middle of its answer"
                                   : "the target closed the connection without a complete answer",
                               cause);
    }
    return transport_failure("cannot read the answer: " + ec.message(), cause);
  }
  auto response = parser.release();
  if (!response.keep_alive()) disconnect();
  if (auto problem = unreadable_body(response.body())) return transport_failure(*problem);
  protocol::api_response out;
  out.status = static_cast<int>(response.result_int());
  out.body = response_body(response.body());
  if (auto allow = response.find(http::field::allow); allow != response.end()) {
    out.allow = escape_invalid_utf8(allow->value());
  }
  out.cors = detail::cors_fields(response);
  return out;
}

protocol::api_response http_client::impl::exchange(const protocol::api_request& request,
                                                   bool may_retry) {
  bool retry = may_retry && connected;  // only a reused connection may have gone stale
  if (!connected) {
    if (auto failure = connect()) {
      return transport_failure(*failure, transport_cause::unreachable);
    }
  }
  auto message = detail::to_beast(request, server);
  if (auto failure = write(message, retry)) {
    return retry ? exchange(request, false)
                 : transport_failure(*failure, transport_cause::unreachable);
  }
  auto response = read(retry);
  if (is_transport_failure(response) && retry) return exchange(request, false);
  return response;
}

http_client::http_client(host_port server, std::chrono::milliseconds timeout)
    : impl_(std::make_unique<impl>(std::move(server), timeout)) {}

http_client::~http_client() = default;

protocol::api_response http_client::send(const protocol::api_request& request) {
  impl_->deadline = clock_type::now() + impl_->timeout;
  return impl_->exchange(request, true);
}

}  // namespace toolwire::conformance
