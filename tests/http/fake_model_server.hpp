// A tiny OpenAI-compatible model endpoint for tests: records requests, answers as told.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "http_test_client.hpp"

namespace toolwire::test {

//! One request the fake model received.
struct model_request {
  std::string method;
  std::string target;
  std::string authorization;
  json body;
};

//! What the fake model answers: a status and a body, or nothing at all (`hang`).
struct model_answer_spec {
  int status = 200;
  std::string body;
  bool hang = false;
};

//! Serves on 127.0.0.1, port 0, on its own thread until destroyed.
class fake_model_server {
 public:
  using responder = std::function<model_answer_spec(const model_request&)>;

  explicit fake_model_server(responder respond);
  ~fake_model_server();
  fake_model_server(const fake_model_server&) = delete;
  fake_model_server& operator=(const fake_model_server&) = delete;

  //! `http://127.0.0.1:PORT/v1`, what `--model-url` takes.
  std::string base_url() const;

  std::vector<model_request> requests() const;

 private:
  void do_accept();
  void serve(boost::asio::ip::tcp::socket socket);

  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  responder respond_;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<model_request> requests_;
  std::vector<std::shared_ptr<void>> held_;  // hanging connections; the io thread's alone
};

//! A chat-completions body whose answer is `text` (MODEL-2).
std::string completion_text(const std::string& text);

}  // namespace toolwire::test
