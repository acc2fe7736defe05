// The model endpoint's address: `http://host[:port][/base/path]`, parsed once at start-up.
#include "toolwire/reference_server/web/http_url.hpp"

#include <algorithm>
#include <charconv>

namespace toolwire::reference_server::web {
namespace {

protocol::api_error url_error(std::string_view text, std::string_view what) {
  return protocol::invalid_request("model URL \"" + std::string(text) + "\": " + std::string(what));
}

bool valid_port(std::string_view port) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  return ec == std::errc{} && end == port.data() + port.size() && value >= 1 && value <= 65535;
}

}  // namespace

std::string http_url::authority() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + port;
}

std::string http_url::chat_completions_target() const {
  return base_path + "/chat/completions";
}

protocol::outcome<http_url> parse_http_url(std::string_view text) {
  constexpr std::string_view scheme = "http://";
  if (text.starts_with("https://")) {
    return url_error(text, "https is not supported; only http:// model URLs are");
  }
  if (!text.starts_with(scheme)) return url_error(text, "only http:// model URLs are supported");
  std::string_view rest = text.substr(scheme.size());
  if (rest.find_first_of("?#") != std::string_view::npos) {
    return url_error(text, "a query or fragment is not allowed");
  }
  const auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);
  if (authority.find('@') != std::string_view::npos) {
    return url_error(text, "user info is not allowed; pass the key with --model-api-key");
  }
  http_url url;
  std::string_view port;
  if (authority.starts_with("[")) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return url_error(text, "unterminated IPv6 literal");
    url.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(":"))
      return url_error(text, "bad text after the host");
    if (!after.empty()) port = after.substr(1);
  } else {
    const auto colon = authority.find(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (url.host.empty()) return url_error(text, "missing host");
  if (!port.empty() || authority.ends_with(":")) {
    if (!valid_port(port)) return url_error(text, "the port must be a number from 1 to 65535");
    url.port = std::string(port);
  }
  while (path.ends_with("/"))
    path.remove_suffix(1);
  url.base_path = std::string(path);
  return url;
}

}  // namespace toolwire::reference_server::web
