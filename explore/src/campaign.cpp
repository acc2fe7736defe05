// How a campaign split with `toolwire explore --shard I/N` shares out its seeds and programs.
#include "toolwire/explore/explore.hpp"

namespace toolwire::explore {

std::uint64_t campaign_seed(std::uint64_t base, campaign_shard shard, int job) {
  return base + static_cast<std::uint64_t>(shard.index - 1) +
         static_cast<std::uint64_t>(shard.count) * static_cast<std::uint64_t>(job);
}

int shard_programs(int programs, campaign_shard shard) {
  return programs / shard.count + (shard.index <= programs % shard.count ? 1 : 0);
}

}  // namespace toolwire::explore
