// Fault tests for the virtual clock: its routes (CLOCK-1), timers on advance (CLOCK-2),
// and model steps over the HTTP front end (CLOCK-3).
#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <memory>
#include <string>
#include <thread>

#include "faults/fault_contrast.hpp"
#include "http/http_test_client.hpp"
#include "toolwire/reference_server/model_script.hpp"
#include "toolwire/reference_server/web/scripted_backend.hpp"
#include "toolwire/reference_server/web/server.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference_server::fault;

namespace {

const std::string clock_path = "/v1/_test/clock";
const std::string advance_path = "/v1/_test/clock/advance";

//! POSTs `{"ms": ms}` to the advance route (CLOCK-1) with the admin key.
toolwire::protocol::api_response advance_by(core_harness& h, const json& ms) {
  return h.request("POST", advance_path, {{"ms", ms}});
}

//! A response as `{status, now_ms}`, or `{status, error type}` when it is an error.
json clock_answer(const toolwire::protocol::api_response& response) {
  if (response.status != 200) return json{response.status, response.body["error"]["type"]};
  return json{response.status, response.body["now_ms"].get<time_ms>() - start_time};
}

}  // namespace

TEST_CASE("fault zero_advance_rejected breaks CLOCK-1", "[faults][CLOCK-1]") {
  // CLOCK-1: "`POST /v1/_test/clock/advance` `{"ms": N}` (N a non-negative integer, else
  // 400) -> 200 `{"now_ms"}`."
  const auto seen = run_clean_and_faulty(fault::zero_advance_rejected, [](core_harness& h) {
    return json{{"zero", clock_answer(advance_by(h, 0))},
                {"five", clock_answer(advance_by(h, 5))},
                {"clock", clock_answer(h.request("GET", clock_path))}};
  });
  CHECK(seen.clean == json{{"zero", {200, 0}}, {"five", {200, 5}}, {"clock", {200, 5}}});
  CHECK(seen.faulty ==
        json{{"zero", {400, "invalid_request"}}, {"five", {200, 5}}, {"clock", {200, 5}}});
}

TEST_CASE("fault negative_advance_accepted breaks CLOCK-1", "[faults][CLOCK-1]") {
  // CLOCK-1: "`{"ms": N}` (N a non-negative integer, else 400)".
  const auto seen = run_clean_and_faulty(fault::negative_advance_accepted, [](core_harness& h) {
    return json{{"negative", clock_answer(advance_by(h, -1'000))},
                {"fraction", clock_answer(advance_by(h, 1.5))},
                {"clock", clock_answer(h.request("GET", clock_path))}};
  });
  CHECK(seen.clean == json{{"negative", {400, "invalid_request"}},
                           {"fraction", {400, "invalid_request"}},
                           {"clock", {200, 0}}});
  CHECK(seen.faulty ==
        json{{"negative", {200, 0}}, {"fraction", {400, "invalid_request"}}, {"clock", {200, 0}}});
}

TEST_CASE("fault advance_fires_timers_late breaks CLOCK-2", "[faults][CLOCK-2]") {
  // CLOCK-2: "Before `advance` answers, every timer due at or before the new time has fired
  // and its events are on the stream, in time order."
  const auto seen = run_clean_and_faulty(fault::advance_fires_timers_late, [](core_harness& h) {
    const auto sid = h.create_session();
    h.register_client(sid, "tab", core_harness::ttl(5));  // expires at +5 000 ms
    // C-3: a rejected advance moves nothing, now or later.
    const auto rejected = h.request("POST", advance_path, {{"ms", 60'000}}, std::nullopt);
    const json first = clock_answer(advance_by(h, 5'000));
    const auto after_first = count_events(h, sid, "client_unregistered");
    const json clock = clock_answer(h.request("GET", clock_path));
    const json second = clock_answer(advance_by(h, 1));
    json expired_at = json::array();
    for (const auto& event : h.events_of(sid, "client_unregistered"))
      expired_at.push_back(event.at - start_time);
    return json{{"rejected", rejected.status},
                {"advance_5000", first},
                {"expired_after_it", after_first},
                {"clock", clock},
                {"advance_1", second},
                {"expired_at", expired_at}};
  });
  CHECK(seen.clean == json{{"rejected", 401},
                           {"advance_5000", {200, 5'000}},
                           {"expired_after_it", 1},
                           {"clock", {200, 5'000}},
                           {"advance_1", {200, 5'001}},
                           {"expired_at", {5'000}}});
  // The clock it reports moves at once; the expiry only comes with the next advance.
  CHECK(seen.faulty == json{{"rejected", 401},
                            {"advance_5000", {200, 5'000}},
                            {"expired_after_it", 0},
                            {"clock", {200, 5'000}},
                            {"advance_1", {200, 5'001}},
                            {"expired_at", {5'000}}});
}

namespace {

namespace http = toolwire::test;
namespace web = toolwire::reference_server::web;

//! The reference server (HTTP front end, virtual clock, a model script answering every
//! step with text) on loopback, on its own thread. Why not the HTTP tests' test_server:
//! it plants no faults, and CLOCK-3's fault lives in the front end's model replies.
class virtual_clock_server {
 public:
  explicit virtual_clock_server(toolwire::reference_server::fault_set faults) {
    web::server_config config;
    config.core = default_config(std::move(faults));
    config.clock = web::clock_kind::virtual_time;
    config.log = [](std::string_view) {};
    auto script = toolwire::reference_server::model_script::from_json(
        json{{"rules",
              json::array({{{"match", ""}, {"steps", json::array({{{"content", "ok"}}})}}})}},
        "clock test script");
    REQUIRE(script);
    server_ = std::make_unique<web::server>(
        ioc_, std::move(config),
        std::make_unique<web::scripted_backend>(ioc_.get_executor(), std::move(*script)));
    endpoint_ = server_->start();
    thread_ = std::thread([this] { ioc_.run(); });
  }
  ~virtual_clock_server() {
    boost::asio::post(ioc_, [this] { server_->stop(); });
    thread_.join();
  }
  virtual_clock_server(const virtual_clock_server&) = delete;
  virtual_clock_server& operator=(const virtual_clock_server&) = delete;

  const http::tcp::endpoint& endpoint() const { return endpoint_; }

  //! GET /v1/_test/clock (CLOCK-1); REQUIREs 200.
  time_ms now() const {
    const auto reply = http::request(endpoint_, "GET", clock_path, {}, std::string(admin_key));
    REQUIRE(reply.status == 200);
    return reply.json_body().at("now_ms").get<time_ms>();
  }

 private:
  boost::asio::io_context ioc_;
  std::unique_ptr<web::server> server_;
  http::tcp::endpoint endpoint_;
  std::thread thread_;
};

//! Runs two one-step turns (SES-2) on `server`; returns how far the virtual clock moved by
//! the end of each. Waits on the event stream, never on the wall clock.
json clock_moves_over_turns(const virtual_clock_server& server) {
  const auto created = http::request_json(server.endpoint(), "POST", "/v1/sessions", json::object(),
                                          std::string(admin_key));
  REQUIRE(created.status == 201);
  const std::string sid = created.json_body().at("id");
  const std::string token = created.json_body().at("token");
  http::sse_stream stream(server.endpoint(), events_path(sid), token);
  REQUIRE(stream.reply().status == 200);
  const time_ms start = server.now();
  json moved = json::array();
  for (const char* text : {"first", "second"}) {
    const auto message = http::request_json(server.endpoint(), "POST", messages_path(sid),
                                            {{"content", text}}, token);
    REQUIRE(message.status == 202);
    const auto events = stream.until("turn_completed");
    REQUIRE(events.back().data["output"] == "ok");
    moved.push_back(server.now() - start);
  }
  return moved;
}

}  // namespace

TEST_CASE("fault model_steps_take_virtual_time breaks CLOCK-3", "[faults][CLOCK-3]") {
  // CLOCK-3: "The virtual clock starts at the wall-clock time of start-up and then moves
  // only by `advance`; model steps take no virtual time."
  contrast seen;
  {
    INFO("the clean server");
    virtual_clock_server clean{{}};
    seen.clean = clock_moves_over_turns(clean);
  }
  {
    INFO("the server with the fault");
    virtual_clock_server faulty{{fault::model_steps_take_virtual_time}};
    seen.faulty = clock_moves_over_turns(faulty);
  }
  CHECK(seen.clean == json{0, 0});
  CHECK(seen.faulty == json{1'000, 2'000});
}
