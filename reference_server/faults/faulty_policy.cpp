// Which policy a core gets: the clean one, unless faults are planted.
#include "faulty_policy.hpp"

#include <algorithm>

namespace toolwire::reference_server::detail {

std::shared_ptr<const rule_policy> policy_for(const fault_set& faults) {
  if (faults.empty()) return clean_policy();
  return std::make_shared<const faulty_policy>(faults);
}

std::optional<api_error> unknown_field_refused(const json& body,
                                               std::initializer_list<std::string_view> known) {
  if (!body.is_object()) return std::nullopt;
  for (const auto& [key, value] : body.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return protocol::invalid_request(key + ": unknown field");
    }
  }
  return std::nullopt;
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace toolwire::reference_server::detail

namespace toolwire::reference_server {

// Why here, not in core.cpp: the one accessor of the planted faults lives with them; the
// wire faults and the HTTP front end ask it.
bool core::has_fault(fault f) const {
  return state_->config.faults.count(f) != 0;
}

}  // namespace toolwire::reference_server
