// How the front end presents the core on the wire where SPEC leaves the choice free.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "toolwire/protocol/api.hpp"
#include "toolwire/reference_server/core.hpp"
#include "toolwire/reference_server/web/api_translation.hpp"

namespace toolwire::reference_server::web {

//! Where a server can be slow without breaking SPEC, which bounds only deadlines.
enum class slowness {
  response,    // a request waits this long before the server handles it
  events,      // new events wait this long before a stream writes them
  timer,       // a deadline's timer fires this long after the deadline (real clock only)
  model_call,  // a model step's request leaves this long after its cause
};

//! The front end's seams for what SPEC leaves to an implementation: the form of ids, extra
//! fields, free texts, headers and framing, the order of events SPEC leaves unordered, and
//! how slow it is where SPEC sets no bound (`delay`). The
//! server calls it around the router and the event streams; the core never sees it. This
//! base class is the reference's own presentation: it changes nothing, and every method
//! may be overridden alone (reference_server/variations/ holds the other presentations).
//! Every call comes from the io_context's one thread.
class wire_policy {
 public:
  virtual ~wire_policy() = default;

  //! A request as it arrived, before the router sees it.
  virtual void inbound(protocol::api_request& request);

  //! The router's answer to `request` (as the router saw it), before it becomes HTTP.
  virtual void outbound(const protocol::api_request& request, protocol::api_response& response);

  //! An answer's HTTP message just before it is written. Its `keep_alive()` then decides
  //! whether the connection stays open.
  virtual void message(http_response& message);

  //! The events a stream of `session_id` sends next: those retained after seq `after`.
  virtual event_window events(const core& log, const std::string& session_id, std::uint64_t after);

  //! One event as an SSE frame (SES-3): `id: <seq>`, `event: <type>`, `data: <json>`.
  virtual std::string frame(const session_event& event);

  //! What a stream writes right after its response header; nothing by default.
  virtual std::string preamble();

  //! How long the server takes at `where`, asked once per request, batch of events,
  //! armed deadline or model step; zero by default.
  virtual std::chrono::milliseconds delay(slowness where);
};

}  // namespace toolwire::reference_server::web
