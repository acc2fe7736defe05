// A small synchronous HTTP and SSE client for loopback tests; every read has a deadline.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <nlohmann/json.hpp>

namespace toolwire::test {

using json = nlohmann::json;
using tcp = boost::asio::ip::tcp;
using namespace std::chrono_literals;

//! How long a test waits for anything before it gives up (and fails, never hangs).
inline constexpr std::chrono::milliseconds default_deadline = 5s;

struct http_reply {
  int status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;

  //! The body as JSON; a discarded value when it is not JSON.
  json json_body() const;
  //! The `error.type` of a C-2 error body, or "" when there is none.
  std::string error_type() const;
};

using header_list = std::vector<std::pair<std::string, std::string>>;

//! One request on a fresh connection. `bearer` becomes `Authorization: Bearer <bearer>`.
//! Throws std::runtime_error when the server does not answer within `deadline`.
http_reply request(const tcp::endpoint& server, std::string_view method, std::string_view target,
                   std::string body = {}, std::optional<std::string> bearer = {},
                   const header_list& headers = {},
                   std::chrono::milliseconds deadline = default_deadline);

//! As `request`, with a JSON body.
http_reply request_json(const tcp::endpoint& server, std::string_view method,
                        std::string_view target, const json& body,
                        std::optional<std::string> bearer = {});

//! Sends `bytes` verbatim and reads one response (for malformed requests).
http_reply raw_request(const tcp::endpoint& server, const std::string& bytes,
                       std::chrono::milliseconds deadline = default_deadline);

//! What a raw exchange saw: the responses in order, and whether the server closed.
struct raw_outcome {
  std::vector<http_reply> replies;
  bool closed = false;  // the server ended the connection (EOF or reset) within the deadline
};

//! Sends `bytes` verbatim (then half-closes when `half_close`), and reads responses until
//! `max_replies` have come and the server closed, or `deadline` passed. A reply that does
//! not parse as HTTP ends the reading.
raw_outcome raw_exchange(const tcp::endpoint& server, const std::string& bytes,
                         std::size_t max_replies, bool half_close = false,
                         std::chrono::milliseconds deadline = default_deadline);

//! Sends `bytes`, then resets the connection (SO_LINGER 0): a client that vanishes
//! mid-request.
void send_and_reset(const tcp::endpoint& server, const std::string& bytes);

//! One block of an SSE stream: an event, or a comment line such as `: keep-alive`.
struct sse_event {
  bool is_comment = false;
  std::string comment;  // the text after ':' for a comment
  std::optional<std::uint64_t> id;
  std::string type;      // the `event:` field
  std::string raw_data;  // the `data:` lines joined by '\n'
  json data;             // raw_data parsed; discarded when it is not JSON
};

//! A `GET .../events` stream read block by block.
class sse_stream {
 public:
  //! Connects, sends the request and reads the response header within `deadline`. A non-200
  //! answer is read in full (see `reply`).
  sse_stream(const tcp::endpoint& server, std::string target, std::optional<std::string> bearer,
             std::optional<std::string> last_event_id = {},
             std::chrono::milliseconds deadline = default_deadline);
  ~sse_stream();
  sse_stream(const sse_stream&) = delete;
  sse_stream& operator=(const sse_stream&) = delete;

  //! Status, headers and (for a non-200 answer) the body.
  const http_reply& reply() const { return reply_; }

  //! The next block, or nullopt when none arrives within `within` or the stream ended.
  //! A timeout leaves the stream usable.
  std::optional<sse_event> next(std::chrono::milliseconds within = default_deadline);

  //! The next event, skipping comments.
  std::optional<sse_event> next_event(std::chrono::milliseconds within = default_deadline);

  //! Events up to and including the first of type `type`, skipping comments. Throws
  //! std::runtime_error when it does not come within `within`.
  std::vector<sse_event> until(std::string_view type,
                               std::chrono::milliseconds within = default_deadline);

  //! True once the server closed the stream.
  bool ended() const { return ended_; }

 private:
  std::optional<sse_event> take_block();
  //! Reads more bytes into `text_`; false on timeout or end of stream.
  bool read_more(std::chrono::steady_clock::time_point deadline);

  boost::asio::io_context ioc_;
  tcp::socket socket_;
  boost::beast::flat_buffer buffer_;
  http_reply reply_;
  std::string text_;
  bool ended_ = false;
};

}  // namespace toolwire::test
