// Wire names of the call and task statuses.
#include "lifecycle.hpp"

namespace toolwire::reference::detail {

std::string_view to_string(call_status s) {
  switch (s) {
    case call_status::dispatched:
      return "dispatched";
    case call_status::acked:
      return "acked";
    case call_status::completed:
      return "completed";
    case call_status::failed:
      return "failed";
  }
  return "unknown";
}

std::string_view to_string(task_status s) {
  switch (s) {
    case task_status::pending:
      return "pending";
    case task_status::processing:
      return "processing";
    case task_status::interrupted:
      return "interrupted";
    case task_status::completed:
      return "completed";
    case task_status::failed:
      return "failed";
  }
  return "unknown";
}

}  // namespace toolwire::reference::detail
