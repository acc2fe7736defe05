// The model endpoint's address: `http://host[:port][/base/path]`, parsed once at start-up.
#pragma once

#include <string>
#include <string_view>

#include "toolwire/protocol/outcome.hpp"

namespace toolwire::reference_server::web {

//! A parsed `http://` URL. `host` has no brackets (an IPv6 literal is stored bare).
struct http_url {
  std::string host;
  std::string port = "80";
  std::string base_path;  // without a trailing slash; "" for the root

  //! `host:port` as the Host header wants it (an IPv6 literal in brackets).
  std::string authority() const;
  //! The chat-completions target under the base path (SPEC 8):
  //! "/v1" gives "/v1/chat/completions".
  std::string chat_completions_target() const;
};

//! Parses `http://host[:port][/path]`. Only plain http is supported (the error says so for
//! https); user info, a query or a fragment are rejected, because a credential must come
//! through `--model-api-key` and never sit in a URL that is logged.
protocol::outcome<http_url> parse_http_url(std::string_view text);

}  // namespace toolwire::reference_server::web
