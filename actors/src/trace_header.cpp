// A trace's header, to and from its JSON line.
#include "toolwire/actors/trace_header.hpp"

namespace toolwire::actors {

using protocol::json;

namespace {

json target_to_json(const recorded_target& target) {
  switch (target.where) {
    case recorded_target::kind::in_process:
      return "in-process";
    case recorded_target::kind::bundled:
      return {{"bundled", true}, {"variations", target.variations}};
    case recorded_target::kind::profile:
      return {{"profile", target.profile}};
    case recorded_target::kind::profile_flags:
      return {{"profile_flags", target.profile_flags}};
  }
  return nullptr;
}

//! `names` as strings, or why not.
std::optional<std::string> strings_into(const json& names, std::vector<std::string>& into) {
  if (!names.is_array()) return "must be an array of strings";
  for (const auto& name : names) {
    if (!name.is_string()) return "must be an array of strings; it holds " + name.dump();
    into.push_back(name.get<std::string>());
  }
  return std::nullopt;
}

protocol::outcome<recorded_target> target_from_json(const json& target) {
  recorded_target read;
  if (target == json("in-process")) return read;
  auto bad = [](const std::string& why) {
    return protocol::invalid_request(
        "\"target\" " + why +
        " (\"in-process\", {\"bundled\": true, \"variations\": [...]}, {\"profile\": PATH} or "
        "{\"profile_flags\": [...]})");
  };
  if (!target.is_object()) return bad("is not a target");
  if (target.contains("profile")) {
    if (!target["profile"].is_string()) return bad("has a \"profile\" that is not a path");
    read.where = recorded_target::kind::profile;
    read.profile = target["profile"].get<std::string>();
    return read;
  }
  if (target.contains("profile_flags")) {
    read.where = recorded_target::kind::profile_flags;
    if (auto why = strings_into(target["profile_flags"], read.profile_flags))
      return bad("has \"profile_flags\" that " + *why);
    return read;
  }
  if (target.value("bundled", json()) == json(true)) {
    read.where = recorded_target::kind::bundled;
    if (target.contains("variations")) {
      if (auto why = strings_into(target["variations"], read.variations))
        return bad("has \"variations\" that " + *why);
    }
    return read;
  }
  return bad("names no target");
}

}  // namespace

json trace_header::to_json() const {
  json header = {
      {"toolwire_trace", version}, {"scenario", scenario}, {"source", source}, {"seed", seed}};
  if (!registration_order.empty()) header["registration_order"] = registration_order;
  if (call_deadlines_ms) {
    header["call_deadlines_ms"] = {{"ack", call_deadlines_ms->ack},
                                   {"result", call_deadlines_ms->result}};
  }
  if (stream_lag_ms) header["stream_lag_ms"] = *stream_lag_ms;
  if (harness_late_ms) header["harness_late_ms"] = *harness_late_ms;
  if (faults) header["faults"] = *faults;
  if (target) header["target"] = target_to_json(*target);
  return header;
}

protocol::outcome<trace_header> trace_header::from_json(const json& header,
                                                        const std::string& where) {
  auto bad = [&](const std::string& why) {
    return protocol::invalid_request(where + ":1: the trace header " + why);
  };
  if (!header.is_object()) return bad("is not a JSON object");
  if (!header.contains("source") || !header["source"].is_string() || !header.contains("seed") ||
      !header["seed"].is_number_unsigned()) {
    return bad("needs \"source\" (string) and \"seed\" (non-negative integer)");
  }
  trace_header read;
  read.source = header["source"].get<std::string>();
  read.seed = header["seed"].get<std::uint64_t>();
  if (header.contains("scenario")) {
    if (!header["scenario"].is_string()) return bad("has a \"scenario\" that is not a string");
    read.scenario = header["scenario"].get<std::string>();
  }
  if (header.contains("registration_order")) {
    if (auto why = strings_into(header["registration_order"], read.registration_order))
      return bad("has a \"registration_order\" that " + *why);
  }
  if (header.contains("call_deadlines_ms")) {
    const json& deadlines = header["call_deadlines_ms"];
    if (!deadlines.is_object() || !deadlines.value("ack", json()).is_number_integer() ||
        !deadlines.value("result", json()).is_number_integer()) {
      return bad("has \"call_deadlines_ms\" that is not {\"ack\": MS, \"result\": MS}");
    }
    read.call_deadlines_ms = call_deadlines{deadlines["ack"].get<protocol::time_ms>(),
                                            deadlines["result"].get<protocol::time_ms>()};
  }
  if (header.contains("stream_lag_ms")) {
    if (!header["stream_lag_ms"].is_number_integer())
      return bad("has a \"stream_lag_ms\" that is not a whole number of ms");
    read.stream_lag_ms = header["stream_lag_ms"].get<protocol::time_ms>();
  }
  if (header.contains("harness_late_ms")) {
    const json& late = header["harness_late_ms"];
    if (!late.is_number_integer() || late.get<protocol::time_ms>() < 0)
      return bad("has a \"harness_late_ms\" that is not a whole number of ms");
    read.harness_late_ms = header["harness_late_ms"].get<protocol::time_ms>();
  }
  if (header.contains("faults")) {
    read.faults.emplace();
    if (auto why = strings_into(header["faults"], *read.faults))
      return bad("has \"faults\" that " + *why);
  }
  if (header.contains("target")) {
    auto target = target_from_json(header["target"]);
    if (!target) return bad(target.error().message);
    read.target = std::move(*target);
  }
  return read;
}

}  // namespace toolwire::actors
