// Strict reading of an answer's framing (RFC 9112 6.1, 6.3): shared by the client and the
// event stream reader, so a target that frames its answers ambiguously is caught either way.
#pragma once

#include <cctype>
#include <optional>
#include <string>

#include <boost/beast/http/message.hpp>

namespace toolwire::conformance::detail {

//! Why an answer's header frames its body ambiguously, or nullopt: Transfer-Encoding
//! whose final coding is not chunked, or Transfer-Encoding together with Content-Length;
//! also a coding before chunked (e.g. gzip), which the suite cannot decode.
template <typename Fields>
std::optional<std::string> framing_problem(const boost::beast::http::response_header<Fields>& h) {
  namespace http = boost::beast::http;
  const auto te = h.find(http::field::transfer_encoding);
  if (te == h.end()) return std::nullopt;
  if (h.find(http::field::content_length) != h.end()) {
    return "Transfer-Encoding together with Content-Length (RFC 9112 6.3)";
  }
  // Why appends rather than `"," + std::string(...)`: g++ 12 at -O3 reports a false
  // -Wrestrict inside an inlined operator+ on a temporary (GCC PR 105329).
  std::string codings;
  const auto [from, to] = h.equal_range(http::field::transfer_encoding);
  for (auto it = from; it != to; ++it) {
    if (!codings.empty()) codings += ',';
    codings.append(it->value().data(), it->value().size());
  }
  std::string last = codings.substr(codings.find_last_of(',') + 1);
  const auto first = last.find_first_not_of(" \t");
  const auto end = last.find_last_not_of(" \t");
  last = first == std::string::npos ? "" : last.substr(first, end - first + 1);
  for (auto& c : last)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (last != "chunked") {
    return "Transfer-Encoding whose final coding is not chunked (RFC 9112 6.3)";
  }
  if (codings.find(',') != std::string::npos) {
    std::string problem = "Transfer-Encoding '";
    problem.append(codings).append("': the suite decodes no coding but chunked");
    return problem;
  }
  return std::nullopt;
}

}  // namespace toolwire::conformance::detail
