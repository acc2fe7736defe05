// Joining the summaries of `toolwire explore --shard I/N` (`toolwire report merge`).
#include <catch2/catch.hpp>

#include "toolwire/reports/explore_merge.hpp"

namespace reports = toolwire::reports;
using toolwire::protocol::json;

namespace {

//! A shard's summary as explore --shard I/N --json writes it (the fields merge reads).
json shard_summary(int index, int count, const std::string& outcome,
                   std::vector<std::string> never = {"call acked --acked--> acked (CALL-3)",
                                                     "task failed --tool_results--> refused "
                                                     "(TASK-4)"}) {
  const std::uint64_t seed = 7 + static_cast<std::uint64_t>(index - 1);
  json summary = {{"toolwire_explore", 1},
                  {"target", "toolwire reference (in-process)"},
                  {"outcome", outcome},
                  {"programs", 10},
                  {"requests", 100 * index},
                  {"seconds", 1.5 * index},
                  {"seed", seed},
                  {"seeds", {seed, seed + static_cast<std::uint64_t>(count)}},
                  {"coverage", {{"reached", 34 - never.size()}, {"total", 34}, {"never", never}}},
                  {"shard",
                   {{"index", index},
                    {"count", count},
                    {"base_seed", 7},
                    {"campaign_programs", 10 * count},
                    {"programs_budget", 10},
                    {"time_budget", "5m"}}}};
  if (outcome == "divergence") {
    summary["divergence"] = {
        {"problems", {"invariant CALL-5 at record 41: call_2 settled twice"}},
        {"seed", seed},
        {"reproduce", "toolwire simulate out/explore-seed" + std::to_string(seed) +
                          ".yaml --seed " + std::to_string(seed) +
                          " --fault double_result_accepted"}};
  }
  if (outcome == "error") summary["error"] = "the target stopped answering";
  return summary;
}

}  // namespace

TEST_CASE(
    "Explore shards merge: a divergence in any shard is the campaign's, with its "
    "reproduce line",
    "[reports][explore-merge]") {
  const auto merged =
      reports::merge_explore_shards({{"s2.json", shard_summary(2, 2, "divergence")},
                                     {"s1.json", shard_summary(1, 2, "no_divergence")}});
  REQUIRE(merged);
  const auto& m = *merged;
  CHECK(m["outcome"] == "divergence");
  REQUIRE(m["divergences"].size() == 1);
  CHECK(m["divergences"][0]["shard"] == 2);
  CHECK(m["divergences"][0]["file"] == "s2.json");
  CHECK(m["divergences"][0]["reproduce"] ==
        "toolwire simulate out/explore-seed8.yaml --seed 8 --fault double_result_accepted");
  CHECK(m["programs"] == 20);
  CHECK(m["requests"] == 300);
  // Shards run side by side: the campaign took the longest shard's time.
  CHECK(m["seconds"] == Approx(3.0));
  CHECK(m["seconds_summed"] == Approx(4.5));
  // In shard order, whatever order the files were given in.
  CHECK(m["seeds"] == json({7, 9, 8, 10}));
  CHECK(m["shards"][0]["file"] == "s1.json");
  CHECK(m["missing_shards"].empty());
}

TEST_CASE("Explore shards merge: no divergence only when every shard ran clean",
          "[reports][explore-merge]") {
  SECTION("all clean") {
    const auto merged =
        reports::merge_explore_shards({{"a", shard_summary(1, 3, "no_divergence")},
                                       {"b", shard_summary(2, 3, "no_divergence")},
                                       {"c", shard_summary(3, 3, "no_divergence")}});
    REQUIRE(merged);
    CHECK((*merged)["outcome"] == "no_divergence");
    CHECK((*merged)["errors"].empty());
  }
  SECTION("a shard that errored") {
    const auto merged = reports::merge_explore_shards(
        {{"a", shard_summary(1, 2, "no_divergence")}, {"b", shard_summary(2, 2, "error")}});
    REQUIRE(merged);
    CHECK((*merged)["outcome"] == "error");
    REQUIRE((*merged)["errors"].size() == 1);
    CHECK((*merged)["errors"][0]["shard"] == 2);
    CHECK((*merged)["errors"][0]["error"] == "the target stopped answering");
  }
  SECTION("a missing shard is named, and no verdict is given without it") {
    const auto merged = reports::merge_explore_shards(
        {{"a", shard_summary(1, 3, "no_divergence")}, {"c", shard_summary(3, 3, "no_divergence")}});
    REQUIRE(merged);
    CHECK((*merged)["outcome"] == "error");
    CHECK((*merged)["missing_shards"] == json({2}));
  }
  SECTION("a divergence still counts when another shard is missing") {
    const auto merged = reports::merge_explore_shards({{"a", shard_summary(1, 3, "divergence")}});
    REQUIRE(merged);
    CHECK((*merged)["outcome"] == "divergence");
    CHECK((*merged)["missing_shards"] == json({2, 3}));
  }
}

TEST_CASE("Explore shards merge: the coverage is the union of the shards'",
          "[reports][explore-merge]") {
  const auto merged = reports::merge_explore_shards(
      {{"a", shard_summary(1, 2, "no_divergence", {"p (A-1)", "q (B-2)", "r (C-3)"})},
       {"b", shard_summary(2, 2, "no_divergence", {"q (B-2)", "s (D-4)", "r (C-3)"})}});
  REQUIRE(merged);
  // A point is never reached only when no shard reached it.
  CHECK((*merged)["coverage"]["never"] == json({"q (B-2)", "r (C-3)"}));
  CHECK((*merged)["coverage"]["reached"] == 32);
  CHECK((*merged)["coverage"]["total"] == 34);
}

TEST_CASE("Explore shards that do not belong together are refused, naming the file",
          "[reports][explore-merge]") {
  const auto refused = [](std::vector<reports::explore_shard_summary> shards) {
    const auto merged = reports::merge_explore_shards(shards);
    REQUIRE_FALSE(merged);
    return merged.error().message;
  };
  const auto one = shard_summary(1, 2, "no_divergence");
  SECTION("the same shard twice") {
    CHECK(refused({{"a.json", one}, {"b.json", one}}) ==
          "b.json is shard 1/2 again (so is a.json)");
  }
  SECTION("another N") {
    CHECK(refused({{"a.json", one}, {"b.json", shard_summary(2, 3, "no_divergence")}}) ==
          "b.json (shard 2/3) is of another campaign than a.json: its N is 3, a.json's 2");
  }
  SECTION("another base seed") {
    auto other = shard_summary(2, 2, "no_divergence");
    other["shard"]["base_seed"] = 8;
    CHECK(refused({{"a.json", one}, {"b.json", other}}) ==
          "b.json (shard 2/2) is of another campaign than a.json: its --seed is 8, a.json's 7");
  }
  SECTION("another target") {
    auto other = shard_summary(2, 2, "no_divergence");
    other["target"] = "acme";
    CHECK_THAT(refused({{"a.json", one}, {"b.json", other}}),
               Catch::Contains("its target is acme"));
  }
  SECTION("a search that was not a shard") {
    auto whole = one;
    whole.erase("shard");
    CHECK(refused({{"a.json", one}, {"w.json", whole}}) ==
          "w.json is the summary of a search that was not a shard (run explore with --shard "
          "I/N)");
  }
  SECTION("not an explore summary") {
    CHECK_THAT(refused({{"r.json", json{{"toolwire_report", 1}}}}),
               Catch::StartsWith("r.json is not a toolwire explore summary"));
  }
}
