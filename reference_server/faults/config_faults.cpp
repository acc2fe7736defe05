// The faults planted in the core's configuration (config_faults.hpp).
#include "config_faults.hpp"

namespace toolwire::reference_server::detail {

core_config with_config_faults(core_config config) {
  // Fault interrupt_deadline_early (TASK-7): a tenth of the timeout is lost to rounding.
  if (config.faults.contains(fault::interrupt_deadline_early)) {
    config.interrupt_timeout_ms = config.interrupt_timeout_ms / 10 * 9;  // cannot overflow
  }
  return config;
}

}  // namespace toolwire::reference_server::detail
