// What each kind of target is, asked in one place.
#include "toolwire/conformance/target_choice.hpp"

#include "toolwire/conformance/runner.hpp"

namespace toolwire::conformance {

namespace {

//! Overloaded lambdas for std::visit, one per kind.
template <typename... Kinds>
struct per_kind : Kinds... {
  using Kinds::operator()...;
};
// Why spelled out: clang 14 (the sanitized build) deduces no aggregate's arguments.
template <typename... Kinds>
per_kind(Kinds...) -> per_kind<Kinds...>;

scenarios::timing reference_timing(const reference_timeouts& timeouts) {
  scenarios::timing timing;
  timing.ack_timeout_ms = timeouts.ack_timeout_ms;
  timing.result_timeout_ms = timeouts.result_timeout_ms;
  timing.interrupt_timeout_ms = timeouts.interrupt_timeout_ms;
  return timing;
}

}  // namespace

const target_profile* target_choice::profile() const {
  const auto* server = profiled();
  return server ? &server->profile : nullptr;
}

reference_server::fault_set target_choice::faults() const {
  return std::visit(per_kind{[](const profiled_server&) { return reference_server::fault_set{}; },
                             [](const auto& reference) { return reference.faults; }},
                    kind);
}

scenarios::timing target_choice::timing() const {
  return std::visit(
      per_kind{[](const in_process_core& core) { return reference_timing(core.timeouts); },
               [](const bundled_server& server) {
                 auto timing = reference_timing(server.timeouts);
                 if (server.real_clock) {
                   timing.real_clock = true;
                   timing.tolerance_ms = server.timing_tolerance_ms;
                 }
                 return timing;
               },
               [](const profiled_server& server) { return timing_of(server.profile); }},
      kind);
}

std::string target_choice::as_flags() const {
  std::string flags;
  if (in_process()) flags += " --in-process";
  if (const auto* server = profiled(); server && !server->path.empty())
    flags += " --target " + server->path;
  for (auto f : faults())
    flags += " --fault " + std::string(reference_server::describe(f).name);
  if (const auto* server = bundled()) {
    for (auto v : server->variations)
      flags += " --variation " + std::string(reference_server::variations::describe(v).name);
  }
  for (const auto& flag : reproduce_flags)
    flags += " " + flag;
  return flags;
}

}  // namespace toolwire::conformance
