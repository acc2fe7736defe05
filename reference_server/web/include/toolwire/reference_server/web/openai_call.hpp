// One chat-completions request to the model endpoint: resolve, connect, write, read, parse.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "toolwire/reference_server/web/openai_backend.hpp"

namespace toolwire::reference_server::web {

//! One request on its own connection, under one deadline that covers every stage.
//! Calls `done` exactly once with the answer or with a failure naming the stage that
//! failed, unless abandoned first.
class openai_call : public std::enable_shared_from_this<openai_call> {
 public:
  using completion = std::function<void(reference_server::model_reply)>;

  openai_call(boost::asio::io_context& ioc, const openai_config& config, std::string body,
              completion done);

  //! Starts the request. Call once, on the io_context's thread.
  void run();

  //! Drops the request: closes the connection and never calls `done`.
  void abandon();

 private:
  //! Connects to an address without the resolver and, where the connection is made at
  //! once (loopback), writes the request before returning.
  void connect_now(const boost::asio::ip::tcp::endpoint& endpoint);
  //! Why a connection begun by connect_now failed, once its socket is writable (none: it
  //! is made).
  boost::beast::error_code connect_error();
  void on_resolve(boost::beast::error_code ec,
                  boost::asio::ip::tcp::resolver::results_type results);
  void on_connect(boost::beast::error_code ec, boost::asio::ip::tcp::endpoint endpoint);
  void on_write(boost::beast::error_code ec, std::size_t bytes);
  void on_read(boost::beast::error_code ec, std::size_t bytes);
  void on_deadline(boost::beast::error_code ec);
  //! Turns a complete response into an answer or a failure (MODEL-4).
  reference_server::model_reply interpret() const;
  void fail(std::string what);
  void finish(reference_server::model_reply reply);
  void shut();

  std::string host_;
  std::string port_;
  std::chrono::milliseconds timeout_;
  boost::asio::ip::tcp::resolver resolver_;
  boost::beast::tcp_stream stream_;
  boost::asio::steady_timer deadline_;
  boost::beast::http::request<boost::beast::http::string_body> request_;
  boost::beast::flat_buffer buffer_;
  boost::beast::http::response_parser<boost::beast::http::string_body> parser_;
  completion done_;
  bool finished_ = false;
};

}  // namespace toolwire::reference_server::web
