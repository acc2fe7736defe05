// Target profiles (SPEC 10): the documented example, and one test per kind of error.
#include <catch2/catch.hpp>

#include <cstdlib>

#include <cstdio>
#include <fstream>

#include "toolwire/conformance/target_profile.hpp"

using namespace toolwire::conformance;

namespace {

const std::string example = R"({"name": "acme", "base_url": "http://127.0.0.1:8080",
  "api_key": "KEY", "parts": ["A", "B"], "model_stand_in": "127.0.0.1:18080",
  "assistant_id": 1, "clock": "virtual", "ack_timeout_ms": 10000,
  "result_timeout_ms": 300000, "interrupt_timeout_ms": 600000})";

//! The example with `field` set to `value` (or removed, when value is discarded).
std::string example_with(const std::string& field, const json& value) {
  json doc = json::parse(example);
  if (value.is_discarded()) {
    doc.erase(field);
  } else {
    doc[field] = value;
  }
  return doc.dump(2);
}

std::string error_of(const std::string& text) {
  auto parsed = parse_profile(text, "acme.json");
  REQUIRE_FALSE(parsed.ok());
  return parsed.error().message;
}

const json removed = json(json::value_t::discarded);

}  // namespace

TEST_CASE("SPEC 10 the example profile parses", "[remote][profile]") {
  auto parsed = parse_profile(example, "acme.json");
  REQUIRE(parsed.ok());
  const auto& p = *parsed;
  CHECK(p.name == "acme");
  CHECK(p.base == host_port{"127.0.0.1", 8080});
  CHECK(p.api_key == "KEY");
  CHECK(p.limited_api_key.empty());
  CHECK(p.part_a);
  CHECK(p.part_b);
  CHECK(p.model_stand_in == host_port{"127.0.0.1", 18080});
  CHECK(p.assistant_id == 1);
  CHECK(p.virtual_clock);
  CHECK(p.ack_timeout_ms == 10'000);
  CHECK(p.result_timeout_ms == 300'000);
  CHECK(p.interrupt_timeout_ms == 600'000);
  CHECK(p.settle_ms == 15);
  CHECK(p.request_timeout_ms == 2'000);
  CHECK(p.overrides == json::object());
  CHECK(p.meets("part_a"));
  CHECK(p.meets("virtual_clock"));
  CHECK_FALSE(p.meets("limited_key"));
  CHECK_FALSE(p.meets("teleport"));
}

TEST_CASE("A profile's optional fields", "[remote][profile]") {
  json doc = json::parse(example);
  doc["limited_api_key"] = "LIMITED";
  doc["settle_ms"] = 0;
  doc["request_timeout_ms"] = 500;
  doc["overrides"] = {{"name_counter_form", "<name> (<n>)"}};
  doc["$schema"] = "../conformance/profile.schema.json";
  doc["parts"] = {"A"};
  doc.erase("assistant_id");
  doc["clock"] = "real";
  doc["base_url"] = "http://[::1]:9000/";
  auto parsed = parse_profile(doc.dump(), "acme.json");
  REQUIRE(parsed.ok());
  CHECK(parsed->meets("limited_key"));
  CHECK(parsed->settle_ms == 0);
  CHECK(parsed->request_timeout_ms == 500);
  CHECK(parsed->overrides["name_counter_form"] == "<name> (<n>)");
  CHECK_FALSE(parsed->part_b);
  CHECK_FALSE(parsed->virtual_clock);
  CHECK(parsed->base == host_port{"::1", 9000});
  CHECK(parsed->base.to_string() == "[::1]:9000");
}

TEST_CASE("A key from the environment: api_key_env and limited_api_key_env", "[remote][profile]") {
  // Why (issue 24.4): a CI job keeps its key in a secret; a profile in the repository must
  // not have to hold it.
  json doc = json::parse(example);
  doc.erase("api_key");
  doc["api_key_env"] = "TOOLWIRE_TEST_KEY_5d1a";
  doc["limited_api_key_env"] = "TOOLWIRE_TEST_LIMITED_5d1a";
  ::setenv("TOOLWIRE_TEST_KEY_5d1a", "key-from-env", 1);
  ::setenv("TOOLWIRE_TEST_LIMITED_5d1a", "limited-from-env", 1);
  auto parsed = parse_profile(doc.dump(), "acme.json");
  REQUIRE(parsed.ok());
  CHECK(parsed->api_key == "key-from-env");
  CHECK(parsed->limited_api_key == "limited-from-env");
  CHECK(parsed->meets("limited_key"));

  ::unsetenv("TOOLWIRE_TEST_LIMITED_5d1a");
  CHECK(error_of(doc.dump()) ==
        "acme.json: field 'limited_api_key_env': names the environment variable "
        "TOOLWIRE_TEST_LIMITED_5d1a, which is not set here: export it (in CI, from a secret) "
        "before running toolwire");
  ::setenv("TOOLWIRE_TEST_LIMITED_5d1a", "", 1);
  CHECK(error_of(doc.dump()).find("which is empty here") != std::string::npos);
  doc.erase("limited_api_key_env");

  doc["api_key"] = "KEY";
  CHECK(error_of(doc.dump()) == "acme.json: give 'api_key' or 'api_key_env', not both");
  doc.erase("api_key");
  doc.erase("api_key_env");
  CHECK(error_of(doc.dump()) ==
        "acme.json: field 'api_key' (or 'api_key_env', the environment variable that holds it) "
        "is required");
  ::unsetenv("TOOLWIRE_TEST_KEY_5d1a");
  ::unsetenv("TOOLWIRE_TEST_LIMITED_5d1a");
}

TEST_CASE("Profile errors name the file and the field", "[remote][profile]") {
  SECTION("clock") {
    CHECK(error_of(example_with("clock", "fast")) ==
          R"(acme.json: field 'clock': must be "virtual" or "real", got "fast")");
  }
  SECTION("https") {
    CHECK(error_of(example_with("base_url", "https://acme.example:443")) ==
          "acme.json: field 'base_url': https is not supported; the suite speaks plain "
          "http://host:port");
  }
  SECTION("a base URL that is not http://host:port") {
    CHECK(
        error_of(example_with("base_url", "http://acme.example:8080/api")) ==
        R"(acme.json: field 'base_url': must be http://host:port, got "http://acme.example:8080/api")");
  }
  SECTION("a stand-in address without a port") {
    CHECK(
        error_of(example_with("model_stand_in", "localhost")) ==
        R"(acme.json: field 'model_stand_in': must be host:port with a port from 1 to 65535, got "localhost")");
  }
  SECTION("a number too large for a double is an error at its line (fuzz finding)") {
    CHECK(error_of("{\n  \"name\": \"x\",\n  \"settle_ms\": 2000e555552\n}") ==
          "acme.json:3: invalid JSON: the number 2000e555552 is out of range");
  }
  SECTION("an unknown field, with a suggestion") {
    CHECK(error_of(example_with("clok", "virtual")) ==
          "acme.json: unknown field 'clok' (did you mean 'clock'?)");
  }
  SECTION("an unknown field, without one") {
    CHECK(error_of(example_with("teleport", true)) ==
          "acme.json: unknown field 'teleport'; see docs/target-profile.md for the fields");
  }
  SECTION("a missing required field") {
    CHECK(error_of(example_with("model_stand_in", removed)) ==
          "acme.json: field 'model_stand_in' is required");
  }
  SECTION("parts") {
    CHECK(error_of(example_with("parts", json::array())) ==
          R"(acme.json: field 'parts': must be a non-empty array of "A" and "B", got [])");
    CHECK(error_of(example_with("parts", {"A", "C"})) ==
          R"(acme.json: field 'parts': must be a non-empty array of "A" and "B", got ["A","C"])");
  }
  SECTION("assistant_id with part B") {
    CHECK(error_of(example_with("assistant_id", removed)) ==
          R"(acme.json: field 'assistant_id' is required when parts has "B")");
    CHECK(error_of(example_with("assistant_id", "one")) ==
          R"(acme.json: field 'assistant_id': must be an integer, got "one")");
  }
  SECTION("timeouts") {
    CHECK(error_of(example_with("ack_timeout_ms", 0)) ==
          "acme.json: field 'ack_timeout_ms': must be a positive integer of milliseconds, got 0");
    CHECK(error_of(example_with("interrupt_timeout_ms", 1.5)) ==
          "acme.json: field 'interrupt_timeout_ms': must be a positive integer of milliseconds, "
          "got 1.5");
    CHECK(error_of(example_with("settle_ms", -1)) ==
          "acme.json: field 'settle_ms': must be a non-negative integer of milliseconds, got -1");
    CHECK(error_of(example_with("result_timeout_ms", 5000)) ==
          "acme.json: field 'result_timeout_ms': must be greater than ack_timeout_ms (10000), "
          "got 5000");
  }
  SECTION("a key's value is never quoted") {
    const std::string message = error_of(example_with("api_key", 12345));
    CHECK(message == "acme.json: field 'api_key': must be a non-empty string");
    CHECK(message.find("12345") == std::string::npos);
  }
  SECTION("overrides") {
    CHECK(error_of(example_with("overrides", "none")) ==
          R"(acme.json: field 'overrides': must be an object, got "none")");
  }
  SECTION("not an object") {
    CHECK(error_of("[1, 2]") == "acme.json: a target profile is a JSON object, got [1,2]");
  }
  SECTION("JSON syntax, with the line") {
    const std::string message = error_of("{\n  \"name\": \"acme\",\n  \"clock\" \"virtual\"\n}");
    CHECK(message.rfind("acme.json:3: invalid JSON: ", 0) == 0);
  }
}

TEST_CASE("load_profile reads a file, and names it when it cannot", "[remote][profile]") {
  const std::string path = "remote_profile_test.json";
  {
    std::ofstream out(path);
    out << example;
  }
  auto loaded = load_profile(path);
  std::remove(path.c_str());
  REQUIRE(loaded.ok());
  CHECK(loaded->name == "acme");
  auto missing = load_profile("no/such/profile.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "no/such/profile.json: cannot read the file");
}

// examples/ is what a new user copies first, so each file must load and say what its
// name says; `toolwire profile init` writes the same profiles (tests/cli compares them).
TEST_CASE("The example profiles in examples/ load", "[remote][profile]") {
  const std::string dir = TOOLWIRE_EXAMPLES_DIR;
  SECTION("virtual-clock.json") {
    auto p = load_profile(dir + "/virtual-clock.json");
    INFO((p ? "" : p.error().message));
    REQUIRE(p);
    CHECK(p->virtual_clock);
    CHECK(p->part_a);
    CHECK(p->part_b);
    CHECK(p->limited_api_key == "LIMITED");
    CHECK(p->model_stand_in == host_port{"127.0.0.1", 18080});
  }
  SECTION("real-clock.json") {
    auto p = load_profile(dir + "/real-clock.json");
    INFO((p ? "" : p.error().message));
    REQUIRE(p);
    CHECK_FALSE(p->virtual_clock);
    CHECK(p->ack_timeout_ms == 1000);
    CHECK(p->result_timeout_ms == 3000);
    CHECK(p->interrupt_timeout_ms == 4000);
    CHECK(p->timing_tolerance_ms == 200);
  }
}
