// The structs actors send one another, as CAF carries them: registered in one type-ID
// block, printed and serialized through their inspect.
#include <catch2/catch.hpp>

#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include "toolwire/actors/messages.hpp"

namespace {

using toolwire::protocol::json;

caf::actor_system_config registered() {
  caf::actor_system_config config;
  config.set("scheduler.policy", caf::atom("testing"));
  config.set("logger.console", caf::atom("none"));
  config.add_message_types<caf::id_block::toolwire_messages>();
  return config;
}

//! `value` written by CAF's serializer and read back by its deserializer.
template <typename T>
T round_trip(caf::actor_system& system, T value) {
  std::vector<char> bytes;
  caf::binary_serializer sink{system, bytes};
  const auto written = sink(value);
  INFO(caf::to_string(written));
  REQUIRE_FALSE(written);
  T read;
  caf::binary_deserializer source{system, bytes};
  const auto error = source(read);
  INFO(caf::to_string(error));
  REQUIRE_FALSE(error);
  return read;
}

}  // namespace

TEST_CASE("Every struct actors send is in the type-ID block under its own name",
          "[actors][messages]") {
  auto config = registered();
  const auto name_of = [&](const std::type_info& type) {
    const auto found = config.type_names_by_rtti.find(std::type_index(type));
    return found == config.type_names_by_rtti.end() ? std::string("(not registered)")
                                                    : found->second;
  };
  CHECK(name_of(typeid(toolwire::protocol::api_request)) == "toolwire::protocol::api_request");
  CHECK(name_of(typeid(toolwire::protocol::api_response)) == "toolwire::protocol::api_response");
  CHECK(name_of(typeid(toolwire::reference_server::session_event)) ==
        "toolwire::reference_server::session_event");
  CHECK(name_of(typeid(toolwire::reference_server::model_step_request)) ==
        "toolwire::reference_server::model_step_request");
  CHECK(name_of(typeid(toolwire::reference_server::model_reply)) ==
        "toolwire::reference_server::model_reply");
  CHECK(name_of(typeid(toolwire::actors::task_model_calls)) ==
        "toolwire::actors::task_model_calls");
}

TEST_CASE("Every struct actors send survives CAF's serializer, members the proxies carry too",
          "[actors][messages]") {
  auto config = registered();
  caf::actor_system system{config};
  SECTION("a request, with and without its optional members") {
    toolwire::protocol::api_request request;
    request.method = "POST";
    request.path = "/v1/sessions/s1/clients";
    request.query = {{"after", "3"}};
    request.credential = "key";
    request.body = "{\"name\":\"tab\"}";
    request.cors = {{"origin", "http://app.test"}};
    auto read = round_trip(system, request);
    CHECK(read.method == "POST");
    CHECK(read.path == request.path);
    CHECK(read.query == request.query);
    CHECK(read.credential == std::optional<std::string>("key"));
    CHECK_FALSE(read.last_event_id);
    CHECK(read.body == request.body);
    CHECK(read.cors == request.cors);
    request.credential.reset();
    request.last_event_id = "7";
    read = round_trip(system, request);
    CHECK_FALSE(read.credential);
    CHECK(read.last_event_id == std::optional<std::string>("7"));
  }
  SECTION("a response that opens a stream, its JSON body at any depth") {
    toolwire::protocol::api_response response;
    response.status = 201;
    response.body = json::parse(R"({"a":[1,{"b":null,"c":"\u00e9"}],"d":2.5})");
    response.stream = toolwire::protocol::stream_directive{"s1", 4, {{"vary", "Origin"}}};
    response.allow = "GET, POST";
    const auto read = round_trip(system, response);
    CHECK(read.status == 201);
    CHECK(read.body == response.body);
    REQUIRE(read.stream);
    CHECK(read.stream->session_id == "s1");
    CHECK(read.stream->after_seq == 4);
    CHECK(read.stream->cors == response.stream->cors);
    CHECK(read.allow == "GET, POST");
  }
  SECTION("an event, a model step of a task, a reply with and without an answer, task calls") {
    toolwire::reference_server::session_event event{"s1", 9, "client_registered",
                                                    json{{"client_id", "c1"}}, 1500};
    const auto event_read = round_trip(system, event);
    CHECK(event_read.session_id == "s1");
    CHECK(event_read.seq == 9);
    CHECK(event_read.type == "client_registered");
    CHECK(event_read.data == event.data);
    CHECK(event_read.at == 1500);

    toolwire::reference_server::model_step_request step;
    step.step_id = 3;
    step.owner = toolwire::reference_server::model_step_request::owner_kind::task;
    step.owner_id = "t-1";
    step.after_seq = 12;
    step.conversation = json{{"messages", json::array()}};
    toolwire::reference_server::offered_tools::builder tools;
    tools.add("tab__read", {"read", "reads", json{{"type", "object"}}});
    step.tools = std::move(tools).build();
    const auto step_read = round_trip(system, step);
    CHECK(step_read.step_id == 3);
    CHECK(step_read.owner == step.owner);
    CHECK(step_read.owner_id == "t-1");
    CHECK(step_read.after_seq == 12);
    CHECK(step_read.body() == step.body());
    CHECK(step_read.tools.names() == std::vector<std::string>{"tab__read"});

    toolwire::reference_server::model_reply reply;
    reply.answer = toolwire::protocol::model_answer{std::nullopt, {{"call_1", "read", "{}"}}};
    auto reply_read = round_trip(system, reply);
    REQUIRE(reply_read.answer);
    CHECK(*reply_read.answer == *reply.answer);
    reply.answer.reset();
    reply.failure = "model_unavailable";
    reply_read = round_trip(system, reply);
    CHECK_FALSE(reply_read.answer);
    CHECK(reply_read.failure == "model_unavailable");

    toolwire::actors::task_model_calls calls{"t-1", json::array({{{"name", "read"}}})};
    const auto calls_read = round_trip(system, calls);
    CHECK(calls_read.task_uuid == "t-1");
    CHECK(calls_read.calls == calls.calls);
  }
}

TEST_CASE("A message prints with its members, JSON as its text", "[actors][messages]") {
  toolwire::protocol::api_response response;
  response.status = 404;
  response.body = json{{"error", {{"type", "not_found"}}}};
  const std::string printed = caf::deep_to_string(response);
  CHECK(printed.find("api_response") != std::string::npos);
  CHECK(printed.find("404") != std::string::npos);
  CHECK(printed.find("not_found") != std::string::npos);
}
