// The reference's own presentation on the wire: every seam passes through unchanged.
#include "toolwire/reference_server/web/wire_policy.hpp"

namespace toolwire::reference_server::web {

void wire_policy::inbound(protocol::api_request& /*request*/) {}

void wire_policy::outbound(const protocol::api_request& /*request*/,
                           protocol::api_response& /*response*/) {}

void wire_policy::message(http_response& /*message*/) {}

event_window wire_policy::events(const core& log, const std::string& session_id,
                                 std::uint64_t after) {
  return log.events_after(session_id, after);
}

std::string wire_policy::frame(const session_event& event) {
  // Why replace: a frame must go out even if a model handed us invalid UTF-8.
  return "id: " + std::to_string(event.seq) + "\nevent: " + event.type +
         "\ndata: " + event.data.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
}

std::string wire_policy::preamble() {
  return {};
}

std::chrono::milliseconds wire_policy::delay(slowness /*where*/) {
  return std::chrono::milliseconds(0);
}

}  // namespace toolwire::reference_server::web
