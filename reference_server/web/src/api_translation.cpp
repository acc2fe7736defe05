// Socket-free translation between Beast messages and the router's api_request/api_response.
#include "toolwire/reference_server/web/api_translation.hpp"

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
  if (auto it = request.find(http::field::authorization); it != request.end()) {
    out.credential = bearer_credential(it->value());
  }
  if (auto it = request.find("Last-Event-ID"); it != request.end()) {
    out.last_event_id = std::string(it->value());
  }
  for (const std::string_view name :
       {"origin", "access-control-request-method", "access-control-request-headers"}) {
    if (auto it = request.find(name); it != request.end())
      out.cors[std::string(name)] = it->value();
  }
  out.body = request.body();
  return out;
}

http_response to_http_response(const protocol::api_response& response, unsigned version,
                               bool keep_alive) {
  http_response out{static_cast<http::status>(response.status), version};
  out.set(http::field::server, server_name);
  if (!response.allow.empty()) out.set(http::field::allow, response.allow);
  for (const auto& [name, value] : response.cors)
    out.set(name, value);
  out.keep_alive(keep_alive);
  if (response.status != 204 && !response.body.is_null()) {
    out.set(http::field::content_type, "application/json");
    out.body() = protocol::safe_dump(response.body);
  }
  out.prepare_payload();
  return out;
}

std::optional<std::string> wire_bytes(const http_response& message) {
  if (message.chunked()) return std::nullopt;
  const unsigned version = message.version();
  const std::string_view reason = message.reason();
  std::size_t size = 20 + reason.size() + message.body().size();
  for (const auto& field : message)
    size += field.name_string().size() + field.value().size() + 4;
  std::string out;
  out.reserve(size);
  out += "HTTP/";
  out += static_cast<char>('0' + version / 10);
  out += '.';
  out += static_cast<char>('0' + version % 10);
  out += ' ';
  out += std::to_string(message.result_int());
  out += ' ';
  out += reason;
  out += "\r\n";
  for (const auto& field : message) {
    out += field.name_string();
    out += ": ";
    out += field.value();
    out += "\r\n";
  }
  out += "\r\n";
  out += message.body();
  return out;
}

http_response error_response(protocol::error_code code, std::string message, unsigned version) {
  protocol::api_response response;
  response.status = protocol::http_status(code);
  response.body = protocol::to_json(protocol::api_error{code, std::move(message)});
  return to_http_response(response, version, /*keep_alive=*/false);
}

}  // namespace toolwire::reference_server::web
