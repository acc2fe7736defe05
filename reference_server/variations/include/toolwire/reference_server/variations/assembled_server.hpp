// A reference server over HTTP, assembled from its settings: the one place that puts a
// front end, its model backend and the variations together. `toolwire serve` and the
// bundled server (check, simulate --bundled, explore --bundled) start theirs here; the
// simulator runs the core alone (actors::core_actor) and needs no front end.
#pragma once

#include <memory>
#include <variant>

#include <boost/asio/io_context.hpp>

#include "toolwire/reference_server/model_script.hpp"
#include "toolwire/reference_server/variations/variations.hpp"
#include "toolwire/reference_server/web/openai_backend.hpp"
#include "toolwire/reference_server/web/server.hpp"

namespace toolwire::reference_server::variations {

//! Where the model's answers come from: a script (`--model-script`), or an
//! OpenAI-compatible endpoint (`--model-url`, the bundled server's model stand-in).
using model_source = std::variant<model_script, web::openai_config>;

//! The server `config` describes, with its model backend from `model`, both varied as
//! `set` says (an empty set: the reference as it is). Not started: web::server::start()
//! listens.
std::unique_ptr<web::server> assemble_server(boost::asio::io_context& ioc,
                                             web::server_config config, model_source model,
                                             const variation_set& set);

}  // namespace toolwire::reference_server::variations
