// One stand-in connection, in the shape of Beast's async server examples.
#include "stand_in_connection.hpp"

#include <boost/asio/post.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "toolwire/conformance/outside_data.hpp"

namespace toolwire::conformance::detail {

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// Why: a chat-completions body holds the whole conversation, but not without bound.
constexpr std::uint64_t max_request_bytes = max_body_bytes;
// An idle keep-alive connection is closed after this long.
constexpr std::chrono::seconds idle_timeout{60};

}  // namespace

stand_in_connection::stand_in_connection(tcp::socket socket, stand_in_routes& routes,
                                         std::chrono::milliseconds reply_timeout,
                                         stand_in_reads& reads,
                                         std::shared_ptr<stand_in_reads::connection> entry)
    : stream_(std::move(socket)),
      routes_(routes),
      reads_(reads),
      entry_(std::move(entry)),
      reply_timeout_(reply_timeout),
      reply_timer_(stream_.get_executor()) {}

stand_in_connection::~stand_in_connection() {
  reads_.closed(*entry_);  // before the socket closes with the members
}

void stand_in_connection::start() {
  do_read();
}

void stand_in_connection::close() {
  reads_.closed(*entry_);
  reply_timer_.cancel();
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.close();
}

void stand_in_connection::do_read() {
  parser_.emplace();
  parser_->body_limit(max_request_bytes);
  stream_.expires_after(idle_timeout);
  http::async_read(stream_, buffer_, *parser_,
                   [self = shared_from_this()](beast::error_code ec, std::size_t bytes) {
                     self->on_read(ec, bytes);
                   });
}

void stand_in_connection::on_read(beast::error_code ec, std::size_t bytes) {
  if (ec == http::error::body_limit) {
    // Why answer: the target then fails its turn visibly, and the connection is spent
    // (nothing on it is handed over any more).
    reads_.closed(*entry_);
    keep_alive_ = false;
    version_ = 11;
    return write(
        413, error_answer("invalid_request", "the model request's body is larger than " +
                                                 std::to_string(max_request_bytes >> 20) + " MiB"));
  }
  if (ec) return close();  // the peer left, idled out or sent something unreadable
  handle_request();
  // Only now: a harness that sees every byte handed over finds the request in its run.
  reads_.handed_over(*entry_, bytes);
}

void stand_in_connection::handle_request() {
  const auto& request = parser_->get();
  version_ = request.version();
  keep_alive_ = request.keep_alive();
  // Why before routing: the body must be safe to parse and to quote as evidence.
  if (auto bad = first_invalid_utf8(request.body())) {
    return write(400, error_answer("invalid_request",
                                   "the model request's body is not valid UTF-8 (offset " +
                                       std::to_string(*bad) + ")"));
  }
  if (nested_deeper_than(request.body())) {
    return write(400,
                 error_answer("invalid_request", "the model request's JSON nests deeper than " +
                                                     std::to_string(max_json_depth) + " levels"));
  }
  try {
    auto decision = routes_.decide(request.method_string(), request.target(), request.body());
    if (!decision.to) return write(decision.status, std::move(decision.answer));
    wait_for(std::move(decision.to), std::move(decision.body));
  } catch (const std::exception& e) {
    // A request the stand-in cannot handle is answered, and the stand-in goes on serving.
    waiting_ = false;
    reply_timer_.cancel();
    write(500,
          error_answer("server_error", std::string("the model stand-in failed on this request: ") +
                                           escape_invalid_utf8(e.what())));
  }
}

void stand_in_connection::wait_for(model_stand_in::route to, json body) {
  const std::uint64_t request = ++requests_;
  waiting_ = true;
  stream_.expires_never();  // the reply timer bounds the wait instead
  reply_timer_.expires_after(reply_timeout_);
  reply_timer_.async_wait([self = shared_from_this(), request](beast::error_code ec) {
    if (ec) return;
    self->answer(
        request, 503,
        error_answer("unavailable", "the suite's model did not answer within " +
                                        std::to_string(self->reply_timeout_.count()) + " ms"));
  });
  std::weak_ptr<stand_in_connection> weak = shared_from_this();
  auto executor = stream_.get_executor();
  to(std::move(body), [weak, executor, request](int status, std::string text) {
    net::post(executor, [weak, request, status, text = std::move(text)]() mutable {
      if (auto self = weak.lock()) self->answer(request, status, std::move(text));
    });
  });
}

void stand_in_connection::answer(std::uint64_t request, int status, std::string body) {
  // Why the number: a late answer must not go to a later request of a kept-alive connection.
  if (!waiting_ || request != requests_) return;
  waiting_ = false;
  reply_timer_.cancel();
  write(status, std::move(body));
}

void stand_in_connection::write(int status, std::string body) {
  response_ = {static_cast<http::status>(status), version_};
  response_.set(http::field::server, "toolwire-model-stand-in");
  response_.set(http::field::content_type, "application/json");
  response_.keep_alive(keep_alive_);
  response_.body() = std::move(body);
  response_.prepare_payload();
  stream_.expires_after(idle_timeout);
  http::async_write(stream_, response_,
                    [self = shared_from_this(), keep = keep_alive_](
                        beast::error_code ec, std::size_t) { self->on_write(ec, keep); });
}

void stand_in_connection::on_write(beast::error_code ec, bool keep_alive) {
  if (ec || !keep_alive) return close();
  do_read();
}

}  // namespace toolwire::conformance::detail
