// Which policy a core gets: the clean one, unless faults are planted.
#include "faulty_policy.hpp"

namespace toolwire::reference::detail {

std::shared_ptr<const rule_policy> policy_for(const fault_set& faults) {
  if (faults.empty()) return clean_policy();
  return std::make_shared<const faulty_policy>(faults);
}

}  // namespace toolwire::reference::detail
