// Joining explore shards' summaries into the campaign's.
#include "toolwire/reports/explore_merge.hpp"

#include <algorithm>
#include <type_traits>
#include "text.hpp"

namespace toolwire::reports {

namespace {

using text::concatenated;

using protocol::json;

//! `value[key]` when it is of the type asked; else `fallback`. Why: a hand-edited or
//! truncated summary is an error message, not an exception.
template <typename T>
T field(const json& value, const char* key, T fallback) {
  if (!value.is_object() || !value.contains(key)) return fallback;
  const auto& at = value[key];
  if constexpr (std::is_same_v<T, std::string>) {
    return at.is_string() ? at.get<std::string>() : fallback;
  } else if constexpr (std::is_floating_point_v<T>) {
    return at.is_number() ? at.get<T>() : fallback;
  } else {
    return at.is_number_integer() ? at.get<T>() : fallback;
  }
}

//! "shard 2/4".
std::string shard_name(long long index, long long count) {
  return concatenated("shard ", std::to_string(index), "/", std::to_string(count));
}

//! What every shard of one campaign must agree on, read from one summary.
struct campaign {
  long long count = 0;
  unsigned long long base_seed = 0;
  long long programs = 0;
  std::string time_budget = {};
  std::string target = {};
  long long points = 0;  // the life-cycle points of this toolwire version
};

campaign campaign_of(const json& summary) {
  const auto& shard = summary["shard"];
  campaign c;
  c.count = field<long long>(shard, "count", 0);
  c.base_seed = field<unsigned long long>(shard, "base_seed", 0);
  c.programs = field<long long>(shard, "campaign_programs", 0);
  c.time_budget = field<std::string>(shard, "time_budget", "");
  c.target = field<std::string>(summary, "target", "");
  c.points = field<long long>(summary.value("coverage", json::object()), "total", 0);
  return c;
}

//! Why `theirs` is not of the campaign of `ours`, whose file is `first` (empty when it
//! is), naming what differs: "its --seed is 3, s1.json's 1".
std::string mismatch(const campaign& ours, const campaign& theirs, const std::string& first) {
  const auto differs = [&](const char* what, const std::string& a, const std::string& b) {
    return concatenated("its ", what, " is ", b.empty() ? "none" : b, ", ", first, "'s ",
                        a.empty() ? "none" : a);
  };
  if (ours.count != theirs.count)
    return differs("N", std::to_string(ours.count), std::to_string(theirs.count));
  if (ours.base_seed != theirs.base_seed)
    return differs("--seed", std::to_string(ours.base_seed), std::to_string(theirs.base_seed));
  if (ours.programs != theirs.programs)
    return differs("--programs", std::to_string(ours.programs), std::to_string(theirs.programs));
  if (ours.time_budget != theirs.time_budget)
    return differs("--time-budget", ours.time_budget, theirs.time_budget);
  if (ours.target != theirs.target) return differs("target", ours.target, theirs.target);
  if (ours.points != theirs.points) {
    return concatenated("it counts ", std::to_string(theirs.points), " life-cycle points, ", first,
                        " ", std::to_string(ours.points), " (another toolwire version)");
  }
  return "";
}

}  // namespace

bool is_explore_summary(const json& value) {
  return value.is_object() && value.contains("toolwire_explore");
}

protocol::outcome<json> merge_explore_shards(const std::vector<explore_shard_summary>& shards) {
  if (shards.empty()) return protocol::invalid_request("no explore shard to merge");
  // Checked first, all of them: a refusal names the file, and nothing is merged from a
  // set of which one does not belong.
  std::vector<const explore_shard_summary*> by_index;
  const explore_shard_summary* first = nullptr;
  campaign ours;
  for (const auto& s : shards) {
    if (!is_explore_summary(s.summary)) {
      return protocol::invalid_request(concatenated(
          s.file, " is not a toolwire explore summary (toolwire explore --json FILE)"));
    }
    const json shard = s.summary.value("shard", json());
    const auto index = field<long long>(shard, "index", 0);
    const auto count = field<long long>(shard, "count", 0);
    if (!shard.is_object() || count < 1 || index < 1 || index > count) {
      return protocol::invalid_request(
          concatenated(s.file,
                       " is the summary of a search that was not a shard (run explore with --shard "
                       "I/N)"));
    }
    const auto theirs = campaign_of(s.summary);
    if (!first) {
      first = &s;
      ours = theirs;
      by_index.assign(static_cast<std::size_t>(count), nullptr);
    } else if (const auto why = mismatch(ours, theirs, first->file); !why.empty()) {
      return protocol::invalid_request(concatenated(s.file, " (", shard_name(index, count),
                                                    ") is of another campaign than ", first->file,
                                                    ": ", why));
    }
    auto& slot = by_index[static_cast<std::size_t>(index - 1)];
    if (slot) {
      return protocol::invalid_request(concatenated(s.file, " is ", shard_name(index, count),
                                                    " again (so is ", slot->file, ")"));
    }
    slot = &s;
  }

  long long programs = 0;
  unsigned long long requests = 0;
  double seconds = 0, seconds_summed = 0;
  bool diverged = false, unclean = false;
  auto seeds = json::array(), divergences = json::array(), errors = json::array(),
       missing = json::array(), lines = json::array();
  // A point is never reached in the campaign when no shard reached it: the intersection
  // of the shards' "never" lists, in the first shard's order.
  std::vector<std::string> never;
  bool never_set = false;
  for (std::size_t i = 0; i < by_index.size(); ++i) {
    const auto index = static_cast<long long>(i + 1);
    if (!by_index[i]) {
      missing.push_back(index);
      unclean = true;
      continue;
    }
    const auto& s = *by_index[i];
    const auto& summary = s.summary;
    const auto outcome = field<std::string>(summary, "outcome", "");
    const auto shard_programs = field<long long>(summary, "programs", 0);
    const auto shard_requests = field<unsigned long long>(summary, "requests", 0);
    const auto shard_seconds = field<double>(summary, "seconds", 0.0);
    programs += shard_programs;
    requests += shard_requests;
    seconds = std::max(seconds, shard_seconds);
    seconds_summed += shard_seconds;
    const json shard_seeds = summary.value("seeds", json::array());
    if (shard_seeds.is_array())
      for (const auto& seed : shard_seeds)
        seeds.push_back(seed);
    std::vector<std::string> shard_never;
    const json coverage = summary.value("coverage", json::object());
    if (coverage.is_object() && coverage.value("never", json()).is_array()) {
      for (const auto& point : coverage["never"])
        if (point.is_string()) shard_never.push_back(point.get<std::string>());
    }
    if (!never_set) {
      never = shard_never;
      never_set = true;
    } else {
      std::erase_if(never, [&](const std::string& point) {
        return std::find(shard_never.begin(), shard_never.end(), point) == shard_never.end();
      });
    }
    if (outcome == "divergence") {
      diverged = true;
      json divergence = summary.value("divergence", json::object());
      if (!divergence.is_object()) divergence = json::object();
      divergence["shard"] = index;
      divergence["file"] = s.file;
      divergences.push_back(std::move(divergence));
    } else if (outcome != "no_divergence") {
      unclean = true;
      errors.push_back({{"shard", index},
                        {"file", s.file},
                        {"outcome", outcome.empty() ? "none" : outcome},
                        {"error", field<std::string>(summary, "error", "")}});
    }
    lines.push_back({{"index", index},
                     {"file", s.file},
                     {"outcome", outcome},
                     {"seeds", shard_seeds},
                     {"programs", shard_programs},
                     {"requests", shard_requests},
                     {"seconds", shard_seconds}});
  }
  const auto total = ours.points;
  json merged = {{"toolwire_explore", 1},
                 {"merged", true},
                 {"outcome", diverged  ? "divergence"
                             : unclean ? "error"
                                       : "no_divergence"},
                 {"target", ours.target},
                 {"shard_count", ours.count},
                 {"base_seed", ours.base_seed},
                 {"campaign_programs", ours.programs},
                 {"time_budget", ours.time_budget},
                 {"programs", programs},
                 {"requests", requests},
                 {"seconds", seconds},
                 {"seconds_summed", seconds_summed},
                 {"programs_per_second", static_cast<double>(programs) / std::max(seconds, 1e-9)},
                 {"coverage",
                  {{"reached", total - static_cast<long long>(never.size())},
                   {"total", total},
                   {"never", never}}},
                 {"seeds", seeds},
                 {"divergences", divergences},
                 {"errors", errors},
                 {"missing_shards", missing},
                 {"shards", lines}};
  return merged;
}

}  // namespace toolwire::reports
