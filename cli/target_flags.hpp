// The flags that choose a target, shared by check, simulate, replay and explore: a
// profile (--target), the bundled server over HTTP, or the in-process core, with faults,
// variations and the profile overrides. One reading of them, so every command accepts
// and refuses the same combinations with the same words.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "profile_flags.hpp"
#include "toolwire/actors/trace_header.hpp"
#include "toolwire/conformance/runner.hpp"
#include "toolwire/protocol/outcome.hpp"

namespace toolwire::cli {

//! Which target a command runs on when no flag says otherwise.
enum class default_target { bundled, in_process };

struct chosen_target {
  conformance::target_choice choice;
  std::string name;  // for reports and summaries; never a credential
  //! A real-clock target's tolerance window and where it came from, e.g. "timing tolerance
  //! 400 ms, derived from the target's speed (round trip p99 52 ms, ...)"; "" otherwise.
  std::string timing;
  //! A stated tolerance narrower than the target's measured speed needs, said in a
  //! sentence; "" when it is not, or nothing was stated or measured. Why: a deadline case
  //! then fails on the target's speed, which reads as a SPEC violation (a call "never
  //! failed") unless the user is told where to look.
  std::string timing_caveat;
};

class target_flags {
 public:
  //! Adds --target, the flags that build a profile instead (--base-url ...), --fault,
  //! --variation, --settle-ms, --request-timeout-ms, --no-preflight, and --in-process
  //! (when the default is the bundled server) or --bundled (when it is the in-process core).
  void add_to(CLI::App& app, default_target fallback);

  //! Validates the flags and, for a --target or --base-url, reads the profile, checks that the
  //! target answers and runs its preflight. Errors are one sentence for the user (exit 2).
  protocol::outcome<chosen_target> choose() const;

  //! replay: the target a trace header recorded (in-process, the bundled server with its
  //! faults and variations, a profile file or profile flags), chosen with the same checks
  //! as the flags that chose it. `override_profile`, replay's --target, replaces it. A
  //! header without a target ran in-process. Errors start with "WHERE:1: ".
  static protocol::outcome<chosen_target> recorded(const actors::trace_header& header,
                                                   const std::string& override_profile,
                                                   bool no_preflight, const std::string& where);

  //! A profile file or one from flags.
  bool has_profile() const { return !target_.empty() || from_flags_.given(); }
  //! The flags as given, to repeat in a reproduce command ("--fault X --bundled ...").
  std::string as_flags() const;

 private:
  default_target fallback_ = default_target::bundled;
  std::string target_;
  profile_flags from_flags_;
  std::vector<std::string> faults_;
  std::vector<std::string> variations_;
  bool in_process_ = false;
  bool bundled_ = false;
  std::int64_t settle_ms_ = -1;           // -1: the profile's
  std::int64_t request_timeout_ms_ = -1;  // -1: the profile's
  bool no_preflight_ = false;
};

}  // namespace toolwire::cli
