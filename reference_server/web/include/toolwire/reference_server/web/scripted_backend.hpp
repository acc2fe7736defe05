// A model backend that answers from a model script (`toolwire serve --model-script`).
#pragma once

#include <memory>

#include <boost/asio/any_io_executor.hpp>

#include "toolwire/reference_server/model_script.hpp"
#include "toolwire/reference_server/web/model_backend.hpp"

namespace toolwire::reference_server::web {

//! Answers each step from the script (see model_script), posted to the executor so that
//! the answer arrives after `start` returns, like a real model's.
class scripted_backend final : public model_backend {
 public:
  scripted_backend(boost::asio::any_io_executor executor, reference_server::model_script script);

  void start(const reference_server::model_step_request& request,
             std::function<void(reference_server::model_reply)> done) override;
  void close() override;

 private:
  boost::asio::any_io_executor executor_;
  reference_server::model_script script_;
  // Shared with every posted answer: false once closed, so late answers are dropped.
  std::shared_ptr<bool> open_ = std::make_shared<bool>(true);
};

}  // namespace toolwire::reference_server::web
