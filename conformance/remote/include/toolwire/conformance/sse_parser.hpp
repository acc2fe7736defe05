// Server-Sent Events, sans-I/O: bytes in, blocks out (SES-3), and a block read as a
// session event. The event stream reader feeds it; tests feed it directly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "toolwire/reference_server/core.hpp"

namespace toolwire::conformance {

using protocol::json;

//! One dispatched SSE block: the fields of the lines before a blank line.
struct sse_block {
  std::optional<std::string> id;
  std::string event;  // "" when the block had no `event:` line
  std::string data;   // the `data:` lines joined by '\n'
  bool has_data = false;

  friend bool operator==(const sse_block&, const sse_block&) = default;
};

//! Splits a byte stream into blocks as the SSE format says: lines end in LF, CRLF or CR;
//! `field: value` (one space after the colon dropped); a line starting with ':' is a
//! comment and ignored; a blank line ends a block; unknown fields are ignored.
class sse_parser {
 public:
  //! `max_line`: longer lines are an error, so a stream without newlines cannot grow
  //! the buffer without end; `max_block`: the same for a block's data lines together.
  explicit sse_parser(std::size_t max_line = std::size_t{1} << 20,
                      std::size_t max_block = std::size_t{8} << 20)
      : max_line_(max_line), max_block_(max_block) {}

  //! Consumes `bytes`, appending every block they complete to `out`. Returns an error
  //! text when a line or a block exceeds its bound; the parser is then spent.
  std::optional<std::string> feed(std::string_view bytes, std::vector<sse_block>& out);

  //! Whether a line or block has begun and not ended: its rest is still on the way.
  bool mid_block() const { return in_block_ || !line_.empty(); }

 private:
  void on_line(std::string_view line, std::vector<sse_block>& out);

  std::size_t max_line_;
  std::size_t max_block_;
  bool block_too_long_ = false;
  std::string line_;
  sse_block block_;
  bool in_block_ = false;
  bool after_cr_ = false;
};

//! `stream_gap {oldest_seq}` (SES-3).
struct stream_gap {
  std::uint64_t oldest_seq = 0;
};

//! What a block means on a session's stream: an event, a gap, or why it is malformed.
using stream_item = std::variant<reference_server::session_event, stream_gap, std::string>;

//! Reads a block of `session_id`'s stream: `id` a non-negative integer, `event` a type,
//! `data` a JSON object; a `stream_gap` needs no id. Anything else is malformed.
stream_item read_block(const sse_block& block, const std::string& session_id);

}  // namespace toolwire::conformance
