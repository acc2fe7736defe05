// One connection to the model stand-in: reads a request, has it decided, waits (bounded)
// for the run's answer when it was routed, writes the answer; keep-alive as asked.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "stand_in_reads.hpp"
#include "stand_in_routes.hpp"

namespace toolwire::conformance::detail {

class stand_in_connection : public std::enable_shared_from_this<stand_in_connection> {
 public:
  //! `reads`: where it reports what it handed over (its entry is registered by the caller).
  stand_in_connection(boost::asio::ip::tcp::socket socket, stand_in_routes& routes,
                      std::chrono::milliseconds reply_timeout, stand_in_reads& reads,
                      std::shared_ptr<stand_in_reads::connection> entry);
  ~stand_in_connection();

  void start();
  //! Closes at once (the stand-in stops).
  void close();

 private:
  void do_read();
  void on_read(boost::beast::error_code ec, std::size_t bytes);
  //! Routes the request read to its run, or answers it.
  void handle_request();
  void wait_for(model_stand_in::route to, json body);
  //! The run's answer or the timeout's to routed request number `request`: only the
  //! first of the two is written.
  void answer(std::uint64_t request, int status, std::string body);
  void write(int status, std::string body);
  void on_write(boost::beast::error_code ec, bool keep_alive);

  boost::beast::tcp_stream stream_;
  stand_in_routes& routes_;
  stand_in_reads& reads_;
  std::shared_ptr<stand_in_reads::connection> entry_;
  std::chrono::milliseconds reply_timeout_;
  boost::asio::steady_timer reply_timer_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  boost::beast::http::response<boost::beast::http::string_body> response_;
  unsigned version_ = 11;
  bool keep_alive_ = false;
  bool waiting_ = false;
  std::uint64_t requests_ = 0;  // routed requests so far
};

}  // namespace toolwire::conformance::detail
