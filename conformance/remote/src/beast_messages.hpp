// Building the Beast request for an api_request: shared by the client and the event
// stream reader, so both speak to the target the same way (C-1, C-5, SES-3).
#pragma once

#include <map>
#include <string>

#include <boost/beast/http/fields.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "toolwire/conformance/target_profile.hpp"
#include "toolwire/protocol/api.hpp"

namespace toolwire::conformance::detail {

namespace http = boost::beast::http;

using beast_request = http::request<http::string_body>;

//! The request as it goes on the wire to `server`; keep-alive unless told otherwise.
beast_request to_beast(const protocol::api_request& request, const host_port& server);

//! The CORS fields of an answer (`Access-Control-*`, `Vary`), by lowercase name: what a
//! browser decides by (CORS-1..3), kept in api_response::cors.
std::map<std::string, std::string> cors_fields(const http::fields& header);

}  // namespace toolwire::conformance::detail
