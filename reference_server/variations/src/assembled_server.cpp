// A reference server over HTTP from its settings.
#include "toolwire/reference_server/variations/assembled_server.hpp"

#include "toolwire/reference_server/web/scripted_backend.hpp"

namespace toolwire::reference_server::variations {

std::unique_ptr<web::server> assemble_server(boost::asio::io_context& ioc,
                                             web::server_config config, model_source model,
                                             const variation_set& set) {
  std::unique_ptr<web::model_backend> backend;
  if (auto* script = std::get_if<model_script>(&model)) {
    backend = std::make_unique<web::scripted_backend>(ioc.get_executor(), std::move(*script));
  } else {
    backend = std::make_unique<web::openai_backend>(ioc, std::get<web::openai_config>(model));
  }
  apply(set, config);
  return std::make_unique<web::server>(ioc, std::move(config),
                                       wrap_backend(set, std::move(backend)));
}

}  // namespace toolwire::reference_server::variations
