// A model backend that calls an OpenAI-compatible chat-completions endpoint (SPEC 8).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "toolwire/reference_server/web/http_url.hpp"
#include "toolwire/reference_server/web/model_backend.hpp"

namespace toolwire::reference_server::web {

class openai_call;

struct openai_config {
  http_url url;                        // e.g. http://127.0.0.1:PORT/v1
  std::optional<std::string> api_key;  // sent as `Authorization: Bearer`, never logged
  std::chrono::milliseconds timeout{60'000};
};

//! POSTs each step's body to `<url>/chat/completions`, one connection per step, so that
//! the steps of several sessions and tasks run at once. Every failure (connection,
//! timeout, non-2xx status, malformed JSON or answer) becomes a failure reply that says
//! which (MODEL-4); nothing waits longer than `timeout`.
class openai_backend final : public model_backend {
 public:
  openai_backend(boost::asio::io_context& ioc, openai_config config);
  ~openai_backend() override;

  void start(const reference_server::model_step_request& request,
             std::function<void(reference_server::model_reply)> done) override;
  void close() override;

 private:
  boost::asio::io_context& ioc_;
  openai_config config_;
  std::vector<std::weak_ptr<openai_call>> calls_;
};

}  // namespace toolwire::reference_server::web
