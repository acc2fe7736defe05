// Percent-encoding (RFC 3986) of what goes into a URL: a query's keys and values, a page's
// fragment parameters. One spelling for the HTTP harness and the browser tabs.
#pragma once

#include <string>
#include <string_view>

namespace toolwire::protocol {

//! `text` with every byte but the unreserved ones (A-Z a-z 0-9 - _ . ~) as %XX.
std::string percent_encode(std::string_view text);

}  // namespace toolwire::protocol
