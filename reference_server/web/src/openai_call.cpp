// One chat-completions request to the model endpoint: resolve, connect, write, read, parse.
#include "toolwire/reference_server/web/openai_call.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <charconv>
#include <optional>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "toolwire/protocol/codec.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::reference_server::web {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// Why a bound at all: a broken endpoint must not make the server buffer without end.
constexpr std::uint64_t max_answer_bytes = 64u << 20;

//! The endpoint `host`:`port` names when `host` is an IP address, not a name to resolve.
std::optional<tcp::endpoint> literal_endpoint(const std::string& host, const std::string& port) {
  beast::error_code not_an_address;
  const auto address = net::ip::make_address(host, not_an_address);
  unsigned short number = 0;
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), number);
  if (not_an_address || error != std::errc() || end != port.data() + port.size())
    return std::nullopt;
  return tcp::endpoint(address, number);
}

}  // namespace

openai_call::openai_call(net::io_context& ioc, const openai_config& config, std::string body,
                         completion done)
    : host_(config.url.host),
      port_(config.url.port),
      timeout_(config.timeout),
      resolver_(ioc),
      stream_(ioc),
      deadline_(ioc),
      request_(http::verb::post, config.url.chat_completions_target(), 11),
      done_(std::move(done)) {
  request_.set(http::field::host, config.url.authority());
  request_.set(http::field::user_agent, "toolwire-reference");
  request_.set(http::field::content_type, "application/json");
  request_.set(http::field::accept, "application/json");
  if (config.api_key) request_.set(http::field::authorization, "Bearer " + *config.api_key);
  request_.keep_alive(false);
  request_.body() = std::move(body);
  request_.prepare_payload();
  parser_.body_limit(max_answer_bytes);
}

void openai_call::run() {
  deadline_.expires_after(timeout_);
  deadline_.async_wait(beast::bind_front_handler(&openai_call::on_deadline, shared_from_this()));
  // Why no resolver for an address: it answers on a thread of its own, so the request
  // went out after the server had answered what started the step; written at once, it is
  // on the model's socket before that answer (docs/reference-server.md).
  if (const auto endpoint = literal_endpoint(host_, port_)) return connect_now(*endpoint);
  resolver_.async_resolve(host_, port_,
                          beast::bind_front_handler(&openai_call::on_resolve, shared_from_this()));
}

void openai_call::connect_now(const tcp::endpoint& endpoint) {
  // Why a failure is posted, not handled here: the step is still being started, and its
  // failure reply must not reach the server in the middle of that.
  const auto fail_later = [this, &endpoint](beast::error_code ec) {
    net::post(stream_.get_executor(), beast::bind_front_handler(&openai_call::on_connect,
                                                                shared_from_this(), ec, endpoint));
  };
  auto& socket = stream_.socket();
  beast::error_code ec;
  socket.open(endpoint.protocol(), ec);
  if (!ec) socket.non_blocking(true, ec);
  if (ec) return fail_later(ec);
  const int fd = socket.native_handle();
  if (::connect(fd, endpoint.data(), static_cast<socklen_t>(endpoint.size())) != 0 &&
      errno != EINPROGRESS) {
    return fail_later(beast::error_code(errno, beast::system_category()));
  }
  // On loopback the handshake is over when connect returns: the request is written now.
  pollfd ready{fd, POLLOUT, 0};
  if (::poll(&ready, 1, 0) == 1) {
    if (const auto refused = connect_error()) return fail_later(refused);
    return on_connect({}, endpoint);
  }
  socket.async_wait(tcp::socket::wait_write,
                    [self = shared_from_this(), endpoint](beast::error_code wait_error) {
                      if (self->finished_) return;
                      self->on_connect(wait_error ? wait_error : self->connect_error(), endpoint);
                    });
}

beast::error_code openai_call::connect_error() {
  int error = 0;
  socklen_t length = sizeof error;
  if (::getsockopt(stream_.socket().native_handle(), SOL_SOCKET, SO_ERROR, &error, &length) != 0)
    error = errno;
  return {error, beast::system_category()};
}

void openai_call::abandon() {
  finished_ = true;
  done_ = nullptr;
  shut();
}

void openai_call::on_resolve(beast::error_code ec, tcp::resolver::results_type results) {
  if (finished_) return;
  if (ec) return fail("cannot resolve the model host " + host_ + ": " + ec.message());
  stream_.async_connect(results,
                        beast::bind_front_handler(&openai_call::on_connect, shared_from_this()));
}

void openai_call::on_connect(beast::error_code ec, tcp::endpoint /*endpoint*/) {
  if (finished_) return;
  if (ec) {
    return fail("cannot connect to the model endpoint " + host_ + ":" + port_ + ": " +
                ec.message());
  }
  http::async_write(stream_, request_,
                    beast::bind_front_handler(&openai_call::on_write, shared_from_this()));
}

void openai_call::on_write(beast::error_code ec, std::size_t /*bytes*/) {
  if (finished_) return;
  if (ec) return fail("cannot send the request to the model endpoint: " + ec.message());
  http::async_read(stream_, buffer_, parser_,
                   beast::bind_front_handler(&openai_call::on_read, shared_from_this()));
}

void openai_call::on_read(beast::error_code ec, std::size_t /*bytes*/) {
  if (finished_) return;
  if (ec) return fail("cannot read the model endpoint's answer: " + ec.message());
  finish(interpret());
}

void openai_call::on_deadline(beast::error_code ec) {
  if (ec || finished_) return;
  fail("the model endpoint did not answer within " + std::to_string(timeout_.count()) + " ms");
}

reference_server::model_reply openai_call::interpret() const {
  const auto& response = parser_.get();
  if (response.result_int() / 100 != 2) {
    return {std::nullopt,
            "the model endpoint answered HTTP " + std::to_string(response.result_int())};
  }
  // Why bounded: the model is outside input (UTF-8, depth and numbers as for a body).
  const auto document = protocol::parse_untrusted_json(response.body(), "answer");
  if (!document) {
    return {std::nullopt,
            "the model endpoint answered malformed JSON: " + document.error().message};
  }
  auto answer = protocol::parse_chat_completion(*document);
  if (!answer) {
    return {std::nullopt,
            "the model endpoint answered a malformed chat completion: " + answer.error().message};
  }
  return {std::move(*answer), {}};
}

void openai_call::fail(std::string what) {
  finish({std::nullopt, std::move(what)});
}

void openai_call::finish(reference_server::model_reply reply) {
  if (finished_) return;
  finished_ = true;
  auto done = std::move(done_);
  done_ = nullptr;
  // Why the answer first and the connection after: closing it (timer, resolver, socket)
  // took 150-160 us with 10,000 clients, all of it between the model's answer and the
  // dispatch it causes (docs/benchmarks.md).
  if (done) done(std::move(reply));
  shut();
}

void openai_call::shut() {
  deadline_.cancel();
  resolver_.cancel();
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.close();
}

}  // namespace toolwire::reference_server::web
