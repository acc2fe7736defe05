// The suite's synchronous HTTP client for a remote target: api_request in, api_response
// out, on one keep-alive connection, every exchange under one deadline. A failure of the
// transport is an answer too (status 0), never an exception and never a hang.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "toolwire/conformance/target_profile.hpp"
#include "toolwire/protocol/api.hpp"

namespace toolwire::conformance {

// The transport failure answer is protocol/'s (api.hpp): every judge of a run reads it.
using protocol::is_transport_failure;
using protocol::says_unreachable;
using protocol::transport_cause;
using protocol::transport_failure;

//! An answer in one line for a message: the transport failure's text, or
//! "HTTP <status> <body>".
std::string describe_answer(const protocol::api_response& response);

//! The request target: the path, and the query percent-encoded.
std::string request_target(const protocol::api_request& request);

//! Reads an HTTP answer's body as an api_response body: null when empty, the JSON value
//! when it parses, else the text as a JSON string (invalid UTF-8 escaped as `\xHH`).
json response_body(const std::string& text);

//! Why a body cannot be taken as an answer (invalid UTF-8, JSON nested deeper than
//! max_json_depth), in words that quote no raw byte; nullopt when it can.
std::optional<std::string> unreadable_body(const std::string& text);

class http_client {
 public:
  //! Connects lazily, on the first request.
  http_client(host_port server, std::chrono::milliseconds timeout);
  ~http_client();
  http_client(const http_client&) = delete;
  http_client& operator=(const http_client&) = delete;

  //! Sends `request` and reads its answer within `timeout` (resolution, connection,
  //! writing and reading together). Strict HTTP/1.1 (RFC 9112): Transfer-Encoding whose
  //! final coding is not chunked, or with Content-Length, a body over max_body_bytes,
  //! invalid UTF-8 or JSON nested deeper than max_json_depth are transport failures. Maps the
  //! credential to `Authorization: Bearer`, `last_event_id` to `Last-Event-ID` and a non-empty body
  //! to an application/json body. A keep-alive connection the target closed meanwhile is reopened
  //! once. Not for event streams (see remote_host). Blocks the calling thread.
  protocol::api_response send(const protocol::api_request& request);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace toolwire::conformance
