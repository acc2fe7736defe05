// `toolwire explore --shard I/N`: how a campaign shares out its seeds and programs.
#include <catch2/catch.hpp>

#include <set>

#include "toolwire/explore/explore.hpp"

namespace explore = toolwire::explore;

TEST_CASE("No two searches of a campaign share a seed, whatever --jobs each shard runs",
          "[explore][shard]") {
  const std::uint64_t base = GENERATE(0, 1, 9000);
  const int count = GENERATE(1, 2, 3, 4, 7);
  CAPTURE(base, count);
  std::set<std::uint64_t> seen;
  std::size_t searches = 0;
  for (int index = 1; index <= count; ++index) {
    // Shards of one campaign may each run their own --jobs: 1, 2, ... 8.
    const int jobs = 1 + (index * 3) % 8;
    for (int job = 0; job < jobs; ++job) {
      const auto seed = explore::campaign_seed(base, {index, count}, job);
      CAPTURE(index, job, seed);
      CHECK(seen.insert(seed).second);
      ++searches;
    }
  }
  CHECK(seen.size() == searches);
}

TEST_CASE("A campaign of one shard searches as explore without --shard: --seed + job",
          "[explore][shard]") {
  for (int job = 0; job < 8; ++job)
    CHECK(explore::campaign_seed(41, {1, 1}, job) == 41 + static_cast<std::uint64_t>(job));
  // Shard I's first job searches --seed + I - 1: what its reproduce line names.
  CHECK(explore::campaign_seed(41, {3, 4}, 0) == 43);
  CHECK(explore::campaign_seed(41, {3, 4}, 2) == 51);
}

TEST_CASE("The shards' parts of --programs add up to it, none more than one apart",
          "[explore][shard]") {
  const int programs = GENERATE(1, 2, 3, 20, 999, 1000, 10'000'000);
  const int count = GENERATE(1, 2, 3, 4, 7, 64);
  CAPTURE(programs, count);
  long long sum = 0;
  int least = programs, most = 0;
  for (int index = 1; index <= count; ++index) {
    const int part = explore::shard_programs(programs, {index, count});
    sum += part;
    least = std::min(least, part);
    most = std::max(most, part);
  }
  CHECK(sum == programs);
  CHECK(most - least <= 1);
  // A shard left with no program (fewer programs than shards) is the last ones, never the
  // first: explore refuses such a shard.
  if (programs < count) CHECK(explore::shard_programs(programs, {count, count}) == 0);
  CHECK(explore::shard_programs(programs, {1, count}) >= 1);
}
