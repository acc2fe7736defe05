// The catalog over HTTP: no false failures against the bundled server, the cases whose
// proof needs the served reference broken by their breaks_with faults, and a target that misbehaves
// at the transport level still gets a verdict for every case within its deadlines.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>
#include <tuple>

#include <boost/asio.hpp>

#include "conformance/fault_proof.hpp"
#include "conformance/real_clock_runs.hpp"
#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/runner.hpp"

namespace conformance = toolwire::conformance;
namespace reference_server = toolwire::reference_server;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

//! The catalog's cases but the browser ones, which need tabs in Chromium: those run in
//! tests/browser/browser_scenarios.sh.
std::vector<conformance::catalog_case> cases(const std::string& glob = "") {
  auto loaded = conformance::load_catalog(conformance::default_catalog_dir());
  if (!loaded) FAIL(loaded.error().message);
  auto chosen = conformance::filter_cases(*loaded, glob);
  std::erase_if(chosen, [](const auto& c) { return conformance::opens_tabs(c); });
  return chosen;
}

std::vector<conformance::case_result> run(const std::vector<conformance::catalog_case>& chosen,
                                          conformance::target_choice target, int jobs = 16) {
  conformance::run_settings settings;
  settings.jobs = jobs;
  auto results = conformance::run_cases(chosen, target, settings);
  REQUIRE(results);
  return *results;
}

//! A TCP server that does one thing to every connection, on its own thread.
class misbehaving_target {
 public:
  enum class behaviour { silent, garbage, drops_streams };

  explicit misbehaving_target(behaviour b)
      : acceptor_(ioc_, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0)), behaviour_(b) {
    accept();
    thread_ = std::thread([this] { ioc_.run(); });
  }
  ~misbehaving_target() {
    // Why stop rather than drain: a silent target holds its connections open for ever.
    ioc_.stop();
    thread_.join();
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

 private:
  void accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
      if (ec) return;
      answer(socket);
      accept();
    });
  }

  void answer(tcp::socket& socket) {
    boost::system::error_code ec;
    char buffer[8192];
    socket.read_some(net::buffer(buffer), ec);
    if (behaviour_ == behaviour::silent) {
      held_.push_back(std::move(socket));  // never answers, never closes
      return;
    }
    const std::string reply = behaviour_ == behaviour::garbage
                                  ? std::string("this is not HTTP at all\r\n\r\n")
                                  // Every request "succeeds" as an event stream that ends at once.
                                  : std::string(
                                        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
                                        "id: 1\nevent: client_registered\ndata: {not json\n\n");
    net::write(socket, net::buffer(reply), ec);
    socket.close(ec);
  }

  net::io_context ioc_;
  tcp::acceptor acceptor_;
  behaviour behaviour_;
  std::vector<tcp::socket> held_;
  std::thread thread_;
};

conformance::target_profile profile_at(std::uint16_t port) {
  conformance::target_profile profile;
  profile.name = "misbehaving";
  profile.base = {"127.0.0.1", port};
  profile.api_key = "KEY";
  profile.part_a = profile.part_b = true;
  profile.model_stand_in = {"127.0.0.1", 0};
  profile.assistant_id = 1;
  profile.virtual_clock = true;
  profile.request_timeout_ms = 200;
  return profile;
}

}  // namespace

TEST_CASE("every case passes over HTTP against the bundled server", "[catalog][http]") {
  for (const auto& r : run(cases(), {})) {
    INFO(r.id << "\n" << (r.evidence.empty() ? "" : r.evidence.front().text()));
    CHECK(r.verdict == conformance::verdict::pass);
  }
}

TEST_CASE("every case passes over HTTP against the bundled server with short timeouts",
          "[catalog][http][timing]") {
  // One catalog for any timeouts: no case is "not applicable" because of them.
  for (const auto& [ack, result, interrupt] :
       std::vector<std::tuple<int, int, int>>{{1000, 3000, 4000}, {300, 900, 1200}}) {
    conformance::target_choice target;
    target.kind.emplace<conformance::bundled_server>().timeouts = {ack, result, interrupt};
    for (const auto& r : run(cases(), target)) {
      INFO(ack << "/" << result << "/" << interrupt << " ms: " << r.id << "\n"
               << (r.evidence.empty() ? r.not_applicable_because : r.evidence.front().text()));
      CHECK(r.verdict == conformance::verdict::pass);
    }
  }
}

TEST_CASE("the catalog passes against the bundled server on a real clock, in parallel",
          "[catalog][http][real-clock]") {
  const auto started = std::chrono::steady_clock::now();
  const auto results = toolwire::conformance_test::run_with_reruns(
      cases(), toolwire::conformance_test::bundled_real_clock(), "real clock");
  const auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto applicable =
      toolwire::conformance_test::check_real_clock_results(results, "real clock");
  WARN("real clock, 300/900/1200 ms: " << applicable << " of " << results.size()
                                       << " cases applicable, " << seconds << " s wall");
}

TEST_CASE("the cases proven over HTTP fail against each fault of their breaks_with",
          "[catalog][http][proof]") {
  std::vector<conformance::catalog_case> clock_cases;
  for (auto& c : cases()) {
    if (toolwire::testing::proven_over_http(c)) clock_cases.push_back(std::move(c));
  }
  REQUIRE_FALSE(clock_cases.empty());
  for (const auto& c : clock_cases) {
    REQUIRE_FALSE(c.plan.breaks_with.empty());
    for (const auto& name : c.plan.breaks_with) {
      INFO(c.id << " against " << name);
      conformance::target_choice target;
      target.kind.emplace<conformance::bundled_server>().faults = {
          *reference_server::parse_fault(name)};
      const auto results = run({c}, target);
      REQUIRE(results.size() == 1);
      CHECK(results.front().verdict == conformance::verdict::fail);
    }
  }
}

TEST_CASE("a target that misbehaves at the transport level gets verdicts, not a hang",
          "[catalog][http]") {
  using behaviour = misbehaving_target::behaviour;
  const auto b = GENERATE(behaviour::silent, behaviour::garbage, behaviour::drops_streams);
  misbehaving_target server(b);
  conformance::target_choice target;
  auto& profiled = target.kind.emplace<conformance::profiled_server>();
  profiled.profile = profile_at(server.port());
  profiled.path = "misbehaving.json";
  const auto chosen = cases("reg.tool-name-6*");
  REQUIRE_FALSE(chosen.empty());
  const auto started = std::chrono::steady_clock::now();
  const auto results = run(chosen, target, 1);
  const auto took = std::chrono::steady_clock::now() - started;
  for (const auto& r : results) {
    INFO(r.id);
    // A target that never answers is not judged by SPEC: its cases are errors.
    CHECK(r.verdict ==
          (b == behaviour::silent ? conformance::verdict::error : conformance::verdict::fail));
    CHECK_FALSE(r.evidence.empty());
  }
  // Bounded: every request waits at most 200 ms, and a case makes a handful of them.
  CHECK(took < std::chrono::seconds(30) * static_cast<int>(results.size()));
}
