// The in-process reference target and the raw misbehaving one.
#include "remote_fixture.hpp"

#include <stdexcept>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "toolwire/reference_server/web/openai_backend.hpp"

namespace toolwire::remote_test {

namespace {

namespace net = boost::asio;
namespace web = reference_server::web;
using tcp = net::ip::tcp;

std::shared_ptr<conformance::model_stand_in> start_stand_in() {
  auto stand_in = conformance::model_stand_in::at({"127.0.0.1", 0});
  if (!stand_in) throw std::runtime_error(stand_in.error().message);
  return *stand_in;
}

//! Sends each model request `request_lag` late and applies each answer `answer_lag` late,
//! as a loaded machine might; answers unchanged.
class lagging_backend final : public web::model_backend {
 public:
  lagging_backend(net::io_context& ioc, std::chrono::milliseconds request_lag,
                  std::chrono::milliseconds answer_lag, std::unique_ptr<web::model_backend> inner)
      : ioc_(ioc), request_lag_(request_lag), answer_lag_(answer_lag), inner_(std::move(inner)) {}

  void start(const reference_server::model_step_request& request,
             std::function<void(reference_server::model_reply)> done) override {
    after(request_lag_, [this, request, done = std::move(done)]() mutable {
      inner_->start(
          request, [this, done = std::move(done)](reference_server::model_reply reply) mutable {
            after(answer_lag_, [done = std::move(done), reply = std::move(reply)]() mutable {
              done(std::move(reply));
            });
          });
    });
  }
  void close() override {
    closed_ = true;
    inner_->close();
  }

 private:
  //! Runs `then` on the I/O thread after `lag`, unless the backend closed meanwhile.
  template <typename F>
  void after(std::chrono::milliseconds lag, F then) {
    auto timer = std::make_shared<net::steady_timer>(ioc_, lag);
    timer->async_wait(
        [this, timer, then = std::move(then)](const boost::system::error_code& error) mutable {
          if (!error && !closed_) then();
        });
  }

  net::io_context& ioc_;
  std::chrono::milliseconds request_lag_, answer_lag_;
  std::unique_ptr<web::model_backend> inner_;
  bool closed_ = false;
};

}  // namespace

reference_target::reference_target(fixture_options options)
    : stand_in_(start_stand_in()), options_(options) {
  web::server_config config;
  config.core.api_keys = {{admin_key, {reference_server::scope_session_manage}}, {limited_key, {}}};
  config.core.ack_timeout_ms = options.ack_timeout_ms;
  config.core.result_timeout_ms = options.result_timeout_ms;
  config.core.interrupt_timeout_ms = options.interrupt_timeout_ms;
  config.core.secret_seed = 42;
  config.clock = options.real_clock ? web::clock_kind::real : web::clock_kind::virtual_time;
  config.log_requests = false;
  config.log = [](std::string_view) {};
  config.wire = options.wire;
  auto url =
      web::parse_http_url("http://127.0.0.1:" + std::to_string(stand_in_->address().port) + "/v1");
  if (!url) throw std::runtime_error(url.error().message);
  std::unique_ptr<web::model_backend> backend = std::make_unique<web::openai_backend>(
      ioc_, web::openai_config{*url, std::nullopt, std::chrono::milliseconds(5'000)});
  if (options.model_lag_ms > 0 || options.answer_lag_ms > 0) {
    backend = std::make_unique<lagging_backend>(
        ioc_, std::chrono::milliseconds(options.model_lag_ms),
        std::chrono::milliseconds(options.answer_lag_ms), std::move(backend));
  }
  server_ = std::make_unique<web::server>(ioc_, std::move(config), std::move(backend));
  endpoint_ = server_->start();
  thread_ = std::thread([this] { ioc_.run(); });
}

reference_target::~reference_target() {
  net::post(ioc_, [this] { server_->stop(); });
  thread_.join();
}

conformance::target_profile reference_target::profile() const {
  json text = {{"name", "reference"},
               {"base_url", "http://127.0.0.1:" + std::to_string(endpoint_.port())},
               {"api_key", admin_key},
               {"limited_api_key", limited_key},
               {"parts", {"A", "B"}},
               {"model_stand_in", stand_in_->address().to_string()},
               {"assistant_id", 1},
               {"clock", options_.real_clock ? "real" : "virtual"},
               {"ack_timeout_ms", options_.ack_timeout_ms},
               {"result_timeout_ms", options_.result_timeout_ms},
               {"interrupt_timeout_ms", options_.interrupt_timeout_ms}};
  if (options_.real_clock) text["timing_tolerance_ms"] = options_.timing_tolerance_ms;
  auto profile = conformance::parse_profile(text.dump(), "reference.json");
  if (!profile) throw std::runtime_error(profile.error().message);
  return *profile;
}

raw_target::raw_target(handler serve)
    : acceptor_(ioc_, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0)),
      serve_(std::move(serve)) {
  do_accept();
  thread_ = std::thread([this] { ioc_.run(); });
}

raw_target::~raw_target() {
  // Why stop rather than drain: a target that never answers holds its connections open.
  ioc_.stop();
  thread_.join();
}

void raw_target::do_accept() {
  acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
    if (ec) return;
    // Handlers are short: they read one request and answer it, or hold it.
    if (serve_(socket)) held_.push_back(std::move(socket));
    do_accept();
  });
}

conformance::host_port raw_target::address() const {
  return {"127.0.0.1", acceptor_.local_endpoint().port()};
}

}  // namespace toolwire::remote_test
