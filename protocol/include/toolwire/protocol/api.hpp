// A transport-neutral request and response: what the HTTP front end, the in-process
// target and the conformance suite exchange with the reference server's router.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace toolwire::protocol {

struct api_request {
  std::string method;  // "GET", "POST", "PUT", "DELETE"
  std::string path;    // without the query, e.g. "/v1/sessions/s1/clients"
  std::map<std::string, std::string> query;
  std::optional<std::string> credential;     // from `Authorization: Bearer` (C-5)
  std::optional<std::string> last_event_id;  // the `Last-Event-ID` header, verbatim
  std::string body;                          // raw body text; empty when none
  //! The CORS header fields a browser sends (`Origin`, `Access-Control-Request-Method`,
  //! `Access-Control-Request-Headers`), by lowercase name; the rest are not read.
  std::map<std::string, std::string> cors = {};
};

//! What an events route asks the transport to do (SES-3): stream this session's events
//! with a sequence number above `after_seq`, as the core retains them.
struct stream_directive {
  std::string session_id;
  std::uint64_t after_seq = 0;
  //! The CORS header fields the stream's answer carries (api_response::cors, CORS-2).
  std::map<std::string, std::string> cors = {};
};

struct api_response {
  int status = 200;
  nlohmann::json body;                     // null for 204
  std::optional<stream_directive> stream;  // set on a successful events request
  std::string allow;                       // for 405: the methods the path accepts
  //! The CORS header fields of the answer (`Access-Control-Allow-*`, `Vary`), by lowercase
  //! name: what a browser reads to decide whether a page may see it (CORS-1..3).
  std::map<std::string, std::string> cors = {};
};

//! Why no HTTP answer came: the target could not be reached or did not answer in time
//! (refused, reset, closed, timed out: it may have gone away, which says nothing about
//! SPEC), or it answered something that is not an HTTP answer the suite can read.
enum class transport_cause { unreachable, unreadable };

//! `{"error": {"type": "transport", "message": <message>}}` with status 0: what a request
//! answers when no HTTP answer came (refused, timed out, malformed, closed). An
//! unreachable cause adds `"unreachable": true` to the error. Here, beside the response
//! type, because the harness sends it and every judge of a run reads it.
api_response transport_failure(std::string message,
                               transport_cause cause = transport_cause::unreadable);

//! True for a transport_failure answer.
bool is_transport_failure(const api_response& response);

//! True for a transport_failure answer of the unreachable cause, given as a response
//! record's body (trace records keep the body).
bool says_unreachable(const nlohmann::json& body);

}  // namespace toolwire::protocol
