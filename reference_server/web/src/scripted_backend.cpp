// A model backend that answers from a model script (`toolwire serve --model-script`).
#include "toolwire/reference_server/web/scripted_backend.hpp"

#include <utility>

#include <boost/asio/post.hpp>

namespace toolwire::reference_server::web {

scripted_backend::scripted_backend(boost::asio::any_io_executor executor,
                                   reference_server::model_script script)
    : executor_(std::move(executor)), script_(std::move(script)) {}

void scripted_backend::start(const reference_server::model_step_request& request,
                             std::function<void(reference_server::model_reply)> done) {
  boost::asio::post(executor_, [open = open_, reply = script_.answer(request.conversation),
                                done = std::move(done)]() mutable {
    if (*open) done(std::move(reply));
  });
}

void scripted_backend::close() {
  *open_ = false;
}

}  // namespace toolwire::reference_server::web
