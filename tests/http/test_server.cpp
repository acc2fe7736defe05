// The reference server in-process on its own thread, for loopback tests.
#include "test_server.hpp"

#include <stdexcept>

#include <boost/asio/post.hpp>

#include "toolwire/reference_server/model_script.hpp"
#include "toolwire/reference_server/web/openai_backend.hpp"
#include "toolwire/reference_server/web/scripted_backend.hpp"

namespace toolwire::test {
namespace {

namespace web = reference_server::web;

std::unique_ptr<web::model_backend> make_backend(boost::asio::io_context& ioc,
                                                 const test_server_options& options) {
  if (options.model_url) {
    auto url = web::parse_http_url(*options.model_url);
    if (!url) throw std::runtime_error(url.error().message);
    return std::make_unique<web::openai_backend>(
        ioc, web::openai_config{*url, options.model_api_key, options.model_timeout});
  }
  auto script = reference_server::model_script::from_json(options.script, "test script");
  if (!script) throw std::runtime_error(script.error().message);
  return std::make_unique<web::scripted_backend>(ioc.get_executor(), std::move(*script));
}

}  // namespace

test_server::test_server(test_server_options options) {
  web::server_config config;
  config.core.api_keys = {{admin_key, {reference_server::scope_session_manage}}, {plain_key, {}}};
  config.core.secret_seed = 42;
  config.core.event_retention = options.event_retention;
  config.clock = options.clock;
  config.keepalive = options.keepalive;
  config.idle_timeout = options.idle_timeout;
  config.write_timeout = options.write_timeout;
  config.max_connections = options.max_connections;
  config.max_streams_per_session = options.max_streams_per_session;
  config.reserved_connections = options.reserved_connections;
  config.core.idle_expiry_ms = options.idle_expiry_ms;
  config.log_requests = options.log_requests;
  config.log = [this](std::string_view line) {
    std::lock_guard lock(log_mutex_);
    log_.emplace_back(line);
  };
  server_ = std::make_unique<web::server>(ioc_, std::move(config), make_backend(ioc_, options));
  endpoint_ = server_->start();
  // Why no catch around run(): an exception escaping a handler must fail the test that
  // caused it, not be hidden; `thread_done` tells a test that the server died.
  thread_ = std::thread([this] {
    ioc_.run();
    done_ = true;
  });
}

test_server::~test_server() {
  boost::asio::post(ioc_, [this] { server_->stop(); });
  thread_.join();
}

std::vector<std::string> test_server::log_lines() const {
  std::lock_guard lock(log_mutex_);
  return log_;
}

test_session test_server::create_session() const {
  auto reply = request_json(endpoint_, "POST", "/v1/sessions", json::object(), admin_key);
  if (reply.status != 201) {
    throw std::runtime_error("create session: " + std::to_string(reply.status) + " " + reply.body);
  }
  const json body = reply.json_body();
  return {body.at("id").get<std::string>(), body.at("token").get<std::string>()};
}

json tool(const std::string& name) {
  return json{{"name", name},
              {"description", "the " + name + " tool"},
              {"parameters", {{"type", "object"}}}};
}

json client_body(const std::string& name, const std::vector<std::string>& tools, int ttl_seconds) {
  json lifetime = ttl_seconds > 0 ? json{{"type", "ttl"}, {"data", {{"seconds", ttl_seconds}}}}
                                  : json{{"type", "never"}};
  json list = json::array();
  for (const auto& t : tools)
    list.push_back(tool(t));
  return json{{"name", name}, {"lifetime", lifetime}, {"tools", list}};
}

}  // namespace toolwire::test
