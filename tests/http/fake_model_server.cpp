// A tiny OpenAI-compatible model endpoint for tests: records requests, answers as told.
#include "fake_model_server.hpp"

#include <boost/asio/post.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "toolwire/protocol/codec.hpp"

namespace toolwire::test {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;

//! One connection: read one request, answer it (or hang), close.
struct model_connection : std::enable_shared_from_this<model_connection> {
  explicit model_connection(tcp::socket s) : socket(std::move(s)) {}
  tcp::socket socket;
  beast::flat_buffer buffer;
  http::request<http::string_body> request;
  http::response<http::string_body> response;
};

}  // namespace

fake_model_server::fake_model_server(responder respond)
    : acceptor_(ioc_, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0)),
      respond_(std::move(respond)) {
  do_accept();
  thread_ = std::thread([this] { ioc_.run(); });
}

fake_model_server::~fake_model_server() {
  // Why stop rather than drain: a hanging answer would keep the context busy forever.
  ioc_.stop();
  thread_.join();
}

std::string fake_model_server::base_url() const {
  return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()) + "/v1";
}

std::vector<model_request> fake_model_server::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

void fake_model_server::do_accept() {
  acceptor_.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec) return;
    serve(std::move(socket));
    do_accept();
  });
}

void fake_model_server::serve(tcp::socket socket) {
  auto connection = std::make_shared<model_connection>(std::move(socket));
  http::async_read(
      connection->socket, connection->buffer, connection->request,
      [this, connection](beast::error_code ec, std::size_t) {
        if (ec) return;
        model_request seen{std::string(connection->request.method_string()),
                           std::string(connection->request.target()),
                           std::string(connection->request[http::field::authorization]),
                           json::parse(connection->request.body(), nullptr, false)};
        {
          std::lock_guard lock(mutex_);
          requests_.push_back(seen);
        }
        const model_answer_spec answer = respond_(seen);
        if (answer.hang) {
          held_.push_back(connection);  // open and unanswered until the server goes
          return;
        }
        auto& response = connection->response;
        response.result(static_cast<unsigned>(answer.status));
        response.version(11);
        response.set(http::field::content_type, "application/json");
        response.keep_alive(false);
        response.body() = answer.body;
        response.prepare_payload();
        http::async_write(connection->socket, response,
                          [connection](beast::error_code, std::size_t) {
                            beast::error_code ignored;
                            connection->socket.shutdown(tcp::socket::shutdown_both, ignored);
                          });
      });
}

std::string completion_text(const std::string& text) {
  protocol::model_answer answer;
  answer.text = text;
  return protocol::to_chat_completion(answer).dump();
}

}  // namespace toolwire::test
