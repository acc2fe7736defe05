// The SPEC rule table that scenarios cite: all 63 rules of SPEC.md, once each, and the three
// rules of the CORS capability (issue 22), which SPEC.md does not state.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>

#include "toolwire/protocol/spec_rules.hpp"

using toolwire::protocol::find_spec_rule;
using toolwire::protocol::spec_rules;

TEST_CASE("spec_rules holds the 63 rules of SPEC.md and CORS-1..3, each once", "[scenarios][spec_rules]") {
  std::set<std::string_view> ids;
  std::map<std::string, int> per_section;
  for (const auto& rule : spec_rules()) {
    INFO(rule.id);
    CHECK(ids.insert(rule.id).second);
    CHECK(std::string("SPR").find(rule.tag) != std::string::npos);
    CHECK(std::string("CAB").find(rule.part) != std::string::npos);
    CHECK_FALSE(rule.summary.empty());
    ++per_section[std::string(rule.id.substr(0, rule.id.find('-')))];
  }
  CHECK(ids.size() == 66);
  CHECK(per_section == std::map<std::string, int>{{"C", 6},
                                                  {"AUTH", 5},
                                                  {"SES", 5},
                                                  {"REG", 9},
                                                  {"LIFE", 6},
                                                  {"TOOLS", 6},
                                                  {"CALL", 9},
                                                  {"CLOCK", 3},
                                                  {"MODEL", 4},
                                                  {"TASK", 10},
                                                  {"CORS", 3}});
}

TEST_CASE("find_spec_rule finds rules by exact ID", "[scenarios][spec_rules]") {
  REQUIRE(find_spec_rule("REG-7") != nullptr);
  CHECK(find_spec_rule("REG-7")->tag == 'R');
  CHECK(find_spec_rule("TASK-10")->part == 'B');
  CHECK(find_spec_rule("CLOCK-2")->tag == 'P');
  CHECK(find_spec_rule("CLOCK-2")->part == 'C');
  CHECK(find_spec_rule("LIFE-5")->part == 'A');
  CHECK(find_spec_rule("LIFE-7") == nullptr);
  CHECK(find_spec_rule("life-5") == nullptr);
  CHECK(find_spec_rule("CORS-3")->part == 'C');
}
