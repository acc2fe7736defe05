// Socket-free translation between Beast messages and the router's api_request/api_response.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "toolwire/protocol/api.hpp"
#include "toolwire/protocol/error.hpp"

namespace toolwire::reference_server::web {

namespace http = boost::beast::http;

using http_request = http::request<http::string_body>;
using http_response = http::response<http::string_body>;

//! The path of a request target, without its query (what the log may show: the query can
//! hold an `access_token`, AUTH-5). An absolute-form target (`http://host/v1/...`, RFC 9112
//! section 3.2.2) gives its path too.
std::string_view path_of(std::string_view target);

//! Decodes a query string `a=b&c=d`: `%XX` escapes and `+` as a space, as HTML forms and
//! URLSearchParams encode it. A key given twice keeps its first value; a malformed escape
//! is kept verbatim.
std::map<std::string, std::string> parse_query(std::string_view query);

//! The bearer credential of an `Authorization` header value (C-5), or nullopt when the
//! header is absent or names another scheme.
std::optional<std::string> bearer_credential(std::string_view authorization);

//! What RFC 9112 and C-1 forbid in a request header, checked before any body is read:
//! a Transfer-Encoding whose final coding is not `chunked` (section 6.1, request
//! smuggling), Content-Length together with Transfer-Encoding (section 6.3), an HTTP/1.1
//! request without exactly one Host (section 3.2), and a target, header or decoded query
//! that is not UTF-8. Each is 400 and the connection closes; messages never quote the
//! offending bytes.
std::optional<protocol::api_error> header_error(const http::request_header<>& header);

//! Copies what the router needs out of a Beast request. Makes no protocol decision.
protocol::api_request to_api_request(const http_request& request);

//! A JSON response for the router's answer; a 204 or a null body has no body.
http_response to_http_response(const protocol::api_response& response, unsigned version,
                               bool keep_alive);

//! Writes into `out` (replacing what it held, keeping its room) the bytes of `message` on
//! the wire, as Beast's serializer writes a message with a Content-Length: the start line,
//! each field in its order, the body. False, and `out` untouched, for a chunked message,
//! which Beast writes. Why by hand: Beast's serializer is generic over bodies and buffer
//! sequences, and writing a ping's answer through it cost a fifth of the ping's
//! instructions (callgrind, docs/benchmarks.md).
bool wire_bytes(const http_response& message, std::string& out);

//! The front end's own error answers (413 over the body limit, 400 for malformed HTTP):
//! `{"error": {"type", "message"}}` (C-2). Always closes the connection.
http_response error_response(protocol::error_code code, std::string message, unsigned version);

}  // namespace toolwire::reference_server::web
