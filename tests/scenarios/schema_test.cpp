// The format's JSON Schema: the checked-in copy is the generated one, and it is made from
// the vocabulary (every action and expectation kind appears).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "toolwire/scenarios/loader.hpp"
#include "toolwire/scenarios/vocabulary.hpp"

using toolwire::protocol::json;
using toolwire::scenarios::json_schema;

TEST_CASE("scenarios/scenario.schema.json is the generated schema", "[scenarios][schema]") {
  const std::string path = std::string(TOOLWIRE_SCENARIOS_DIR) + "/scenario.schema.json";
  std::ifstream in(path);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  INFO(path << " is out of date; regenerate it with\n"
               "  cmake --build build --target scenarios_schema && "
               "build/scenarios/scenarios_schema > scenarios/scenario.schema.json");
  CHECK(text.str() == json_schema().dump(2) + "\n");
}

TEST_CASE("the schema names every action and expectation kind of the vocabulary",
          "[scenarios][schema]") {
  const json schema = json_schema();
  CHECK(schema["$schema"] == "https://json-schema.org/draft/2020-12/schema");
  const json& step = schema["$defs"]["step"]["properties"];
  for (const auto& action : toolwire::scenarios::vocabulary::actions()) {
    INFO(action.name);
    CHECK(step.contains(std::string(action.name)));
  }
  const json& expectation = schema["$defs"]["expectation"]["properties"];
  for (const auto& kind : toolwire::scenarios::vocabulary::expectation_kinds()) {
    INFO(kind.name);
    CHECK((kind.about_the_response || expectation.contains(std::string(kind.name))));
  }
  CHECK(schema["$defs"]["spec_id"]["enum"].size() == 66);  // SPEC.md's 63 and CORS-1..3
}
