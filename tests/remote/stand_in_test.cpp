// The model stand-in (SPEC 8): routing by the run's tag (MODEL-3), the two paths, and
// what it answers when it cannot route or nobody answers in time.
#include <catch2/catch.hpp>

#include <mutex>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include "support/eventually.hpp"
#include "toolwire/conformance/http_client.hpp"
#include "toolwire/conformance/model_stand_in.hpp"

using namespace toolwire;
using namespace toolwire::conformance;

namespace {

constexpr std::chrono::milliseconds deadline{2'000};

json chat_body(const std::string& user_text) {
  return {
      {"model", "m"},
      {"messages",
       {{{"role", "system"}, {"content", "be brief"}}, {{"role", "user"}, {"content", user_text}}}},
      {"tools", json::array()}};
}

protocol::api_response post(http_client& client, const std::string& path, const std::string& body) {
  return client.send({"POST", path, {}, std::nullopt, std::nullopt, body});
}

std::shared_ptr<model_stand_in> fresh_stand_in(std::chrono::milliseconds reply_timeout) {
  auto stand_in = model_stand_in::at({"127.0.0.1", 0}, reply_timeout);
  REQUIRE(stand_in.ok());
  return *stand_in;
}

}  // namespace

TEST_CASE("MODEL-3 requests go to the run whose tag they carry", "[remote][stand_in]") {
  auto stand_in = fresh_stand_in(deadline);
  std::mutex mutex;
  std::vector<json> seen_by_a;
  stand_in->add_route("[tw:a] ", [&](json body, model_stand_in::respond_fn respond) {
    {
      std::lock_guard lock(mutex);
      seen_by_a.push_back(body);
    }
    respond(200, json{{"run", "a"}}.dump());
  });
  stand_in->add_route("[tw:b] ", [](json, model_stand_in::respond_fn respond) {
    respond(200, json{{"run", "b"}}.dump());
  });
  CHECK_FALSE(stand_in->add_route("[tw:a] ", [](json, model_stand_in::respond_fn) {}));
  http_client client(stand_in->address(), deadline);

  SECTION("on both paths a target may use") {
    const auto path = GENERATE(as<std::string>{}, "/v1/chat/completions", "/chat/completions");
    auto a = post(client, path, chat_body("[tw:a] read the form").dump());
    auto b = post(client, path, chat_body("[tw:b] read the form").dump());
    CHECK(a.status == 200);
    CHECK(a.body["run"] == "a");
    CHECK(b.body["run"] == "b");
    std::lock_guard lock(mutex);
    REQUIRE(seen_by_a.size() == 1);
    CHECK(seen_by_a[0] == chat_body("[tw:a] read the form"));
    CHECK(stand_in->unrouted().empty());
  }
  SECTION("a request with no known tag is refused and kept as evidence") {
    auto response = post(client, "/v1/chat/completions", chat_body("[tw:zz] hello").dump());
    CHECK(response.status == 404);
    CHECK(response.body["error"]["type"] == "not_found");
    const auto evidence = stand_in->unrouted();
    REQUIRE(evidence.size() == 1);
    CHECK(evidence[0]["reason"] == "no run's tag in the current turn's user messages");
    CHECK(evidence[0]["excerpt"] == "[tw:zz] hello");
  }
  SECTION("malformed JSON is a 400, kept as evidence") {
    auto response = post(client, "/v1/chat/completions", "{not json");
    CHECK(response.status == 400);
    const auto evidence = stand_in->unrouted();
    REQUIRE(evidence.size() == 1);
    CHECK(evidence[0]["reason"] == "malformed JSON");
  }
  SECTION("another path is a 404") {
    CHECK(post(client, "/v1/embeddings", chat_body("[tw:a] x").dump()).status == 404);
  }
  SECTION("a removed route takes nothing more") {
    stand_in->remove_route("[tw:b] ");
    CHECK(post(client, "/chat/completions", chat_body("[tw:b] x").dump()).status == 404);
  }
}

TEST_CASE("MODEL-1..3 history: the latest user message routes, and the run reads its turn",
          "[remote][stand_in]") {
  auto stand_in = fresh_stand_in(deadline);
  std::mutex mutex;
  std::vector<std::pair<std::string, json>> seen;
  for (const std::string tag : {"[tw:a] ", "[tw:b] "}) {
    stand_in->add_route(tag, [&, tag](json body, model_stand_in::respond_fn respond) {
      {
        std::lock_guard lock(mutex);
        seen.emplace_back(tag, body);
      }
      respond(200, "{}");
    });
  }
  http_client client(stand_in->address(), deadline);
  const json system = {{"role", "system"}, {"content", "be brief"}};
  const json first_turn =
      json::array({{{"role", "user"}, {"content", "[tw:a] first turn"}},
                   {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", json::array()}},
                   {{"role", "tool"}, {"tool_call_id", "m1"}, {"content", "an earlier result"}},
                   {{"role", "assistant"}, {"content", "done"}}});
  json body = {{"model", "m"}, {"messages", json::array({system})}, {"tools", json::array()}};
  for (const auto& m : first_turn)
    body["messages"].push_back(m);
  // The current turn's user message, as text parts, after a repeated system prompt; then
  // its first step's answer and tool result.
  body["messages"].push_back(system);
  body["messages"].push_back(
      {{"role", "user"}, {"content", {{{"type", "text"}, {"text", "[tw:b] second turn"}}}}});
  body["messages"].push_back({{"role", "assistant"}, {"content", "checking"}});
  body["messages"].push_back({{"role", "tool"}, {"tool_call_id", "m2"}, {"content", "new"}});
  REQUIRE(post(client, "/v1/chat/completions", body.dump()).status == 200);
  std::lock_guard lock(mutex);
  REQUIRE(seen.size() == 1);
  // Routed by the latest user message, not the first (which carries another run's tag).
  CHECK(seen[0].first == "[tw:b] ");
  // The run reads the leading system prompt and its own turn only: steps count from the
  // latest user message, and the earlier turn's tool result is not news to it.
  const json expected =
      json::array({system,
                   {{"role", "user"}, {"content", "[tw:b] second turn"}},
                   {{"role", "assistant"}, {"content", "checking"}},
                   {{"role", "tool"}, {"tool_call_id", "m2"}, {"content", "new"}}});
  CHECK(seen[0].second["messages"] == expected);
  CHECK(seen[0].second["model"] == "m");
}

TEST_CASE("The stand-in's wait for a run's answer is bounded", "[remote][stand_in]") {
  auto stand_in = fresh_stand_in(std::chrono::milliseconds(200));
  model_stand_in::respond_fn kept;
  std::mutex mutex;
  stand_in->add_route("[tw:slow] ", [&](json, model_stand_in::respond_fn respond) {
    std::lock_guard lock(mutex);
    kept = std::move(respond);  // never answered in time
  });
  http_client client(stand_in->address(), deadline);
  auto response = post(client, "/v1/chat/completions", chat_body("[tw:slow] hi").dump());
  CHECK(response.status == 503);
  CHECK(response.body["error"]["type"] == "unavailable");
  // A late answer goes nowhere, not to the connection's next request.
  {
    std::lock_guard lock(mutex);
    REQUIRE(kept);
    kept(200, "{}");
  }
  auto next = post(client, "/v1/chat/completions", chat_body("[tw:slow] again").dump());
  CHECK(next.status == 503);
}

TEST_CASE("Stand-ins are shared by address within a process", "[remote][stand_in]") {
  auto first = fresh_stand_in(deadline);
  auto again = model_stand_in::at(first->address());
  REQUIRE(again.ok());
  CHECK(again->get() == first.get());
  auto other = fresh_stand_in(deadline);
  CHECK(other.get() != first.get());
}

TEST_CASE("A request on the stand-in's sockets is unread until its run has it",
          "[remote][stand_in]") {
  // The harness waits on this before it moves a virtual clock, so that a model request the
  // target sent but nobody owed (a step taken early, CALL-9) reaches the run first.
  auto stand_in = fresh_stand_in(deadline);
  std::mutex mutex;
  std::vector<model_stand_in::respond_fn> routed;
  stand_in->add_route("[tw:u] ", [&](json, model_stand_in::respond_fn respond) {
    std::lock_guard lock(mutex);
    routed.push_back(std::move(respond));
  });
  const auto routed_count = [&] {
    std::lock_guard lock(mutex);
    return routed.size();
  };
  CHECK_FALSE(stand_in->unread());

  boost::asio::io_context ioc;
  boost::asio::ip::tcp::socket target(ioc);
  target.connect({boost::asio::ip::make_address("127.0.0.1"), stand_in->address().port});
  const std::string body = chat_body("[tw:u] hi").dump();
  const std::string request =
      "POST /v1/chat/completions HTTP/1.1\r\nHost: m\r\n"
      "Content-Type: application/json\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  const auto half = request.size() / 2;
  boost::asio::write(target, boost::asio::buffer(request.data(), half));
  // Waiting to be accepted, or half read (asked until delivered: half a request stays).
  CHECK(toolwire::testing::eventually([&] { return stand_in->unread(); }));
  CHECK_FALSE(stand_in->await_read(std::chrono::milliseconds(50)));
  CHECK(routed_count() == 0);

  boost::asio::write(target, boost::asio::buffer(request.data() + half, request.size() - half));
  REQUIRE(stand_in->await_read(deadline));
  CHECK(routed_count() == 1);  // nothing unread means handed to its run, never lost between

  std::lock_guard lock(mutex);
  routed[0](200, R"({"ok":true})");
}
