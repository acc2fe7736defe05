// One scenario run on whichever target was chosen: the in-process reference core, the
// bundled reference server over HTTP, or any server a profile describes. `check` runs
// its cases through it, and `simulate`, `replay` and `explore` their scenarios, so a
// scenario does not know where it runs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "toolwire/actors/simulator.hpp"
#include "toolwire/conformance/runner.hpp"
#include "toolwire/scenarios/loader.hpp"

namespace toolwire::conformance {

namespace detail {
class bundled_reference;
}

class scenario_runner {
 public:
  //! Nothing starts yet: the bundled server starts on the first run that needs its
  //! timeouts. Not thread-safe: one per worker.
  explicit scenario_runner(target_choice target);
  ~scenario_runner();
  scenario_runner(const scenario_runner&) = delete;
  scenario_runner& operator=(const scenario_runner&) = delete;

  //! How scenario files are read for this target (scenarios/timing.hpp): the profile's
  //! timeouts and clock; in-process and for the bundled server, target_choice's.
  scenarios::timing timing() const { return target_.timing(); }

  //! Why `plan` cannot run here ("" when it can): a capability it needs, a [P] rule the
  //! target replaces, or clock routes in-process. `plan` must be timed for this target.
  //! Fails when the target cannot be set up (the bundled server cannot listen).
  protocol::outcome<std::string> not_applicable(const scenarios::scenario& plan);

  //! Runs `plan` with `seed`. Over HTTP its model requests carry `tag` (MODEL-3), which
  //! must be unique among the runs sharing the model stand-in. The bundled server used is
  //! one with `plan`'s timeouts. `clock_stops`: see run_options. Fails when the target
  //! cannot be reached or set up.
  protocol::outcome<actors::run_result> run(const scenarios::scenario& plan, std::uint64_t seed,
                                            const std::string& source, const std::string& tag,
                                            std::vector<time_ms> clock_stops = {});

  //! How far apart in time the same behaviour may be seen on this target: 1 ms on a
  //! virtual clock (and in-process), the tolerance window on a real one.
  time_ms tolerance_ms() const { return timing().tolerance_ms; }
  bool in_process() const { return target_.in_process(); }
  bool real_clock() const { return timing().real_clock; }
  const target_choice& choice() const { return target_; }
  //! Where the runs' browser clients (kind: browser) get their tabs; owned by the caller.
  void use_browser(actors::tab_driver* driver) { browser_ = driver; }
  //! The next runs keep each open tab's screenshot and console (run_options::evidence_prefix).
  void keep_tab_evidence(std::string prefix) { evidence_prefix_ = std::move(prefix); }

 private:
  //! Over HTTP, the profile `plan` runs against: the profile's own, or that of the bundled
  //! server started for `plan`'s timeouts. Null in-process.
  protocol::outcome<const target_profile*> profile_for(const scenarios::scenario& plan);

  target_choice target_;
  std::unique_ptr<detail::bundled_reference> bundled_;
  target_profile bundled_profile_;  // profile_for's answer for the bundled server
  actors::tab_driver* browser_ = nullptr;
  std::string evidence_prefix_;
};

}  // namespace toolwire::conformance
