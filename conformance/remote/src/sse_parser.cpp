// Server-Sent Events, sans-I/O: line splitting, fields, blocks, and their meaning (SES-3).
#include "toolwire/conformance/sse_parser.hpp"

#include <charconv>

#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/protocol/events.hpp"

namespace toolwire::conformance {

namespace {

std::optional<std::uint64_t> unsigned_of(std::string_view text) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

//! Escaped: a malformed block becomes evidence, which must stay UTF-8.
std::string excerpt(const std::string& text) {
  return safe_excerpt(text, 80);
}

}  // namespace

std::optional<std::string> sse_parser::feed(std::string_view bytes, std::vector<sse_block>& out) {
  for (const char c : bytes) {
    // Why: CRLF is one line end, so an LF right after a CR ends nothing new.
    if (c == '\n' && after_cr_) {
      after_cr_ = false;
      continue;
    }
    after_cr_ = c == '\r';
    if (c == '\n' || c == '\r') {
      on_line(line_, out);
      line_.clear();
      if (block_too_long_) {
        return "an SSE block whose data is longer than " + std::to_string(max_block_) + " bytes";
      }
      continue;
    }
    if (line_.size() >= max_line_) {
      return "an SSE line longer than " + std::to_string(max_line_) + " bytes";
    }
    line_ += c;
  }
  return std::nullopt;
}

void sse_parser::on_line(std::string_view line, std::vector<sse_block>& out) {
  if (line.empty()) {
    if (in_block_) out.push_back(std::move(block_));
    block_ = {};
    in_block_ = false;
    return;
  }
  if (line.front() == ':') return;  // a comment, e.g. the keep-alive of SES-3
  const auto colon = line.find(':');
  const std::string_view name = line.substr(0, colon);
  std::string_view value =
      colon == std::string_view::npos ? std::string_view{} : line.substr(colon + 1);
  if (value.starts_with(" ")) value.remove_prefix(1);
  if (name == "id") {
    block_.id = std::string(value);
  } else if (name == "event") {
    block_.event = std::string(value);
  } else if (name == "data") {
    if (block_.data.size() + value.size() + 1 > max_block_) {
      block_too_long_ = true;
      return;
    }
    if (block_.has_data) block_.data += '\n';
    block_.data += value;
    block_.has_data = true;
  } else {
    return;  // `retry` and unknown fields change nothing here
  }
  in_block_ = true;
}

stream_item read_block(const sse_block& block, const std::string& session_id) {
  auto parsed = parse_outside_json(block.data);
  if (auto* why = std::get_if<std::string>(&parsed);
      why && block.has_data && (first_invalid_utf8(block.data) || nested_deeper_than(block.data))) {
    return (block.event.empty() ? std::string("an event") : block.event + " event") +
           ": the data is " + *why + ": " + excerpt(block.data);
  }
  const json data = std::holds_alternative<json>(parsed) ? std::get<json>(parsed) : json();
  if (protocol::parse_event_type(block.event) == protocol::event_type::stream_gap) {
    if (!data.is_object() || !data.contains("oldest_seq") ||
        !data["oldest_seq"].is_number_unsigned()) {
      return "a stream_gap whose data has no non-negative oldest_seq: " + excerpt(block.data);
    }
    return stream_gap{data["oldest_seq"].get<std::uint64_t>()};
  }
  if (block.event.empty()) return "an event without an `event:` line: " + excerpt(block.data);
  if (first_invalid_utf8(block.event))
    return "an event type that is not UTF-8: " + excerpt(block.event);
  const auto seq = block.id ? unsigned_of(*block.id) : std::nullopt;
  if (!seq) {
    return block.event +
           " event: the id is not a non-negative integer: " + excerpt(block.id.value_or("(none)"));
  }
  if (!data.is_object()) {
    return block.event + " event: the data is not a JSON object: " + excerpt(block.data);
  }
  return reference_server::session_event{session_id, *seq, block.event, data, 0};
}

}  // namespace toolwire::conformance
