// A model backend that calls an OpenAI-compatible chat-completions endpoint (SPEC 8).
#include "toolwire/reference_server/web/openai_backend.hpp"

#include <algorithm>
#include <utility>

#include "toolwire/reference_server/web/openai_call.hpp"

namespace toolwire::reference_server::web {

openai_backend::openai_backend(boost::asio::io_context& ioc, openai_config config)
    : ioc_(ioc), config_(std::move(config)) {}

openai_backend::~openai_backend() {
  close();
}

void openai_backend::start(const reference_server::model_step_request& request,
                           std::function<void(reference_server::model_reply)> done) {
  std::erase_if(calls_, [](const auto& weak) { return weak.expired(); });
  auto call = std::make_shared<openai_call>(ioc_, config_, request.body_text(), std::move(done));
  calls_.push_back(call);
  call->run();
}

void openai_backend::close() {
  for (const auto& weak : calls_) {
    if (auto call = weak.lock()) call->abandon();
  }
  calls_.clear();
}

}  // namespace toolwire::reference_server::web
