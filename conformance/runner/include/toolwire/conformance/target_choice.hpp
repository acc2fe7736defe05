// Which server a run is checked against: one of three kinds, each with only the settings
// it has. check, simulate, replay and explore choose one from their flags
// (cli/target_flags) and run on it through scenario_runner, which keeps a host per kind.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "toolwire/conformance/target_profile.hpp"
#include "toolwire/reference_server/faults.hpp"
#include "toolwire/reference_server/variations/variations.hpp"
#include "toolwire/scenarios/loader.hpp"

namespace toolwire::conformance {

//! The timeouts the reference runs with in-process and bundled (the SPEC's defaults unless
//! told). Cases are timed for them (docs/scenario-language.md, "Time").
struct reference_timeouts {
  time_ms ack_timeout_ms = 10'000;
  time_ms result_timeout_ms = 300'000;
  time_ms interrupt_timeout_ms = 600'000;
};

//! The bundled reference server over HTTP. The runner starts one per distinct timeout
//! setting of the cases (and one per worker), all calling one model stand-in.
struct bundled_server {
  reference_server::fault_set faults;
  //! Behaviour SPEC allows that the reference does not show by default.
  reference_server::variations::variation_set variations;
  reference_timeouts timeouts;
  //! On the wall clock instead of the virtual one, its deadlines checked within
  //! `timing_tolerance_ms`.
  bool real_clock = false;
  time_ms timing_tolerance_ms = 200;
  //! The harness's quiet time (target_profile::settle_ms) instead of the default. Shorter
  //! is faster and, on a loaded machine, more likely to miss a late arrival; it is carried
  //! by every reproduce command.
  std::optional<time_ms> settle_ms;
};

//! The reference core in-process, on the simulator's virtual clock.
struct in_process_core {
  reference_server::fault_set faults;
  reference_timeouts timeouts;
};

//! Any server a profile describes.
struct profiled_server {
  target_profile profile;
  std::string path;  // the profile file, for the reproduce command; empty when from flags
  //! A profile built from flags instead (--base-url ...): those flags, naming the key's
  //! environment variables, never the keys; a trace header records them for replay.
  std::vector<std::string> flags;
};

struct target_choice {
  //! The default is the bundled server with the SPEC's timeouts.
  std::variant<bundled_server, in_process_core, profiled_server> kind;
  //! Flags that shaped the run beyond the seed and the target (e.g. "--settle-ms 50"),
  //! carried by every reproduce command.
  std::vector<std::string> reproduce_flags;

  bool in_process() const { return std::holds_alternative<in_process_core>(kind); }
  const bundled_server* bundled() const { return std::get_if<bundled_server>(&kind); }
  const profiled_server* profiled() const { return std::get_if<profiled_server>(&kind); }
  //! The profile's server's profile; null for the reference.
  const target_profile* profile() const;
  //! The reference's faults (in-process or bundled); none for a profile's server.
  reference_server::fault_set faults() const;
  //! How scenario files are read for this target (scenarios::timing): the profile's
  //! timeouts and clock, or the reference's timeouts on its clock.
  scenarios::timing timing() const;
  //! The flags that choose this target again, for a reproduce command: " --in-process",
  //! " --target FILE", " --fault F", " --variation V" and the reproduce flags.
  std::string as_flags() const;
};

}  // namespace toolwire::conformance
