// Socket-free translation between Beast messages and the router's api_request/api_response.
#include "toolwire/reference_server/web/api_translation.hpp"

#include <cstring>
#include <optional>
#include <utility>

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/field.hpp>

#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::reference_server::web {
namespace {

constexpr std::string_view server_name = "toolwire-reference";

std::optional<int> hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return std::nullopt;
}

std::string decode_component(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out += ' ';
      continue;
    }
    if (c == '%' && i + 2 < text.size()) {
      auto high = hex_value(text[i + 1]);
      auto low = hex_value(text[i + 2]);
      if (high && low) {
        out += static_cast<char>(*high * 16 + *low);
        i += 2;
        continue;
      }
    }
    out += c;
  }
  return out;
}

}  // namespace

std::string_view path_of(std::string_view target) {
  for (const std::string_view scheme :
       {std::string_view("http://"), std::string_view("https://")}) {
    if (target.size() >= scheme.size() &&
        boost::beast::iequals(target.substr(0, scheme.size()), scheme)) {
      // absolute-form: drop the scheme and the authority; an empty path is "/".
      const std::string_view rest = target.substr(scheme.size());
      const auto slash = rest.find_first_of("/?");
      if (slash == std::string_view::npos || rest[slash] == '?') return "/";
      target = rest.substr(slash);
      break;
    }
  }
  return target.substr(0, target.find('?'));
}

std::map<std::string, std::string> parse_query(std::string_view query) {
  std::map<std::string, std::string> result;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    std::string key = decode_component(pair.substr(0, eq));
    std::string value =
        eq == std::string_view::npos ? std::string{} : decode_component(pair.substr(eq + 1));
    result.emplace(std::move(key), std::move(value));
  }
  return result;
}

std::optional<std::string> bearer_credential(std::string_view authorization) {
  constexpr std::string_view scheme = "bearer";
  if (authorization.size() <= scheme.size() ||
      !boost::beast::iequals(authorization.substr(0, scheme.size()), scheme) ||
      authorization[scheme.size()] != ' ') {
    return std::nullopt;
  }
  std::string_view credential = authorization.substr(scheme.size() + 1);
  while (!credential.empty() && credential.front() == ' ')
    credential.remove_prefix(1);
  while (!credential.empty() && credential.back() == ' ')
    credential.remove_suffix(1);
  return std::string(credential);
}

std::optional<protocol::api_error> header_error(const http::request_header<>& header) {
  using protocol::invalid_request;
  std::size_t transfer_encodings = 0;
  std::string last_coding;
  for (const auto& field : header) {
    if (protocol::first_invalid_utf8(field.name_string()) != std::string_view::npos ||
        protocol::first_invalid_utf8(field.value()) != std::string_view::npos) {
      return invalid_request("header " + protocol::escape_bytes(field.name_string()) +
                             ": not valid UTF-8 (C-1)");
    }
    if (field.name() != http::field::transfer_encoding) continue;
    ++transfer_encodings;
    // The final coding is the last element of the last Transfer-Encoding line.
    std::string_view value = field.value();
    const auto comma = value.rfind(',');
    if (comma != std::string_view::npos) value = value.substr(comma + 1);
    const auto first = value.find_first_not_of(" \t");
    const auto last = value.find_last_not_of(" \t");
    last_coding = first == std::string_view::npos
                      ? std::string()
                      : std::string(value.substr(first, last - first + 1));
  }
  if (transfer_encodings > 0) {
    if (header.count(http::field::content_length) > 0) {
      return invalid_request(
          "Content-Length together with Transfer-Encoding is refused (RFC 9112 section 6.3)");
    }
    if (header.version() < 11) {
      return invalid_request("Transfer-Encoding in an HTTP/1.0 request is refused");
    }
    if (!boost::beast::iequals(last_coding, "chunked")) {
      return invalid_request("the final Transfer-Encoding must be chunked (RFC 9112 section 6.3)");
    }
  }
  if (header.version() >= 11 && header.count(http::field::host) != 1) {
    return invalid_request(header.count(http::field::host) == 0
                               ? "an HTTP/1.1 request needs a Host header (RFC 9112 section 3.2)"
                               : "more than one Host header (RFC 9112 section 3.2)");
  }
  const std::string_view target = header.target();
  if (protocol::first_invalid_utf8(target) != std::string_view::npos) {
    return invalid_request("request target: not valid UTF-8 (C-1)");
  }
  if (const auto question = target.find('?'); question != std::string_view::npos) {
    for (const auto& [key, value] : parse_query(target.substr(question + 1))) {
      if (protocol::first_invalid_utf8(key) != std::string_view::npos ||
          protocol::first_invalid_utf8(value) != std::string_view::npos) {
        return invalid_request("query: a decoded parameter is not valid UTF-8 (C-1)");
      }
    }
  }
  return std::nullopt;
}

protocol::api_request to_api_request(const http_request& request) {
  protocol::api_request out;
  out.method = std::string(request.method_string());
  const std::string_view target = request.target();
  out.path = std::string(path_of(target));
  if (const auto question = target.find('?'); question != std::string_view::npos) {
    out.query = parse_query(target.substr(question + 1));
  }
  // One pass over the fields, the first of each name counting (as `find` would give). Why
  // not five `find`s: each compares names through the whole field set, and together they
  // cost more than the route match (callgrind, docs/benchmarks.md).
  bool authorization_seen = false;
  for (const auto& field : request) {
    switch (field.name()) {
      case http::field::authorization:
        if (!std::exchange(authorization_seen, true)) {
          out.credential = bearer_credential(field.value());
        }
        break;
      case http::field::origin:
        out.cors.try_emplace("origin", field.value());
        break;
      case http::field::access_control_request_method:
        out.cors.try_emplace("access-control-request-method", field.value());
        break;
      case http::field::access_control_request_headers:
        out.cors.try_emplace("access-control-request-headers", field.value());
        break;
      case http::field::unknown:
        if (!out.last_event_id && boost::beast::iequals(field.name_string(), "Last-Event-ID")) {
          out.last_event_id = std::string(field.value());
        }
        break;
      default:
        break;
    }
  }
  out.body = request.body();
  return out;
}

http_response to_http_response(const protocol::api_response& response, unsigned version,
                               bool keep_alive) {
  http_response out{static_cast<http::status>(response.status), version};
  // `insert`, not `set`: the message is new and each name comes once (the CORS fields are
  // a map's keys, none of them Server or Allow), so there is nothing to look for and
  // replace first (a lookup per field, on every answer).
  out.insert(http::field::server, server_name);
  if (!response.allow.empty()) out.insert(http::field::allow, response.allow);
  for (const auto& [name, value] : response.cors)
    out.insert(name, value);
  out.keep_alive(keep_alive);
  if (response.status != 204 && !response.body.is_null()) {
    out.insert(http::field::content_type, "application/json");
    out.body() = protocol::safe_dump(response.body);
  }
  out.prepare_payload();
  return out;
}

bool wire_bytes(const http_response& message, std::string& out) {
  if (message.chunked()) return false;
  const unsigned version = message.version();
  const unsigned status = message.result_int();
  const std::string_view reason = message.reason();
  const std::string_view body = message.body();
  std::size_t size = 13 + reason.size() + 2 + 2 + body.size();  // "HTTP/1.1 200 " ... CRLF CRLF
  for (const auto& field : message)
    size += field.name_string().size() + 2 + field.value().size() + 2;
  // Sized once and filled by copies: a string appended piece by piece checked its room
  // at each of the twenty-odd pieces of an answer.
  out.resize(size);
  char* at = out.data();
  const auto put = [&at](std::string_view piece) {
    if (piece.empty()) return;  // memcpy wants a pointer even for nothing
    std::memcpy(at, piece.data(), piece.size());
    at += piece.size();
  };
  char start[] = "HTTP/1.1 200 ";  // the version and the status filled in below
  start[5] = static_cast<char>('0' + version / 10);
  start[7] = static_cast<char>('0' + version % 10);
  start[9] = static_cast<char>('0' + status / 100 % 10);
  start[10] = static_cast<char>('0' + status / 10 % 10);
  start[11] = static_cast<char>('0' + status % 10);
  put({start, sizeof start - 1});
  put(reason);
  put("\r\n");
  for (const auto& field : message) {
    put(field.name_string());
    put(": ");
    put(field.value());
    put("\r\n");
  }
  put("\r\n");
  put(body);
  out.resize(static_cast<std::size_t>(at - out.data()));
  return true;
}

http_response error_response(protocol::error_code code, std::string message, unsigned version) {
  protocol::api_response response;
  response.status = protocol::http_status(code);
  response.body = protocol::to_json(protocol::api_error{code, std::move(message)});
  return to_http_response(response, version, /*keep_alive=*/false);
}

}  // namespace toolwire::reference_server::web
