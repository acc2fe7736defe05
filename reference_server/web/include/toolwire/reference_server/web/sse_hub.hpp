// The event streams open per session: tells them when the core has new events.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace toolwire::reference_server::web {

class sse_session;

//! The "shared state" of Beast's chat-multi example, for SSE fan-out. Holds streams
//! weakly: a stream lives as long as its own pending operations, and the hub never keeps
//! a dead one alive. Every call comes from the io_context's one thread, hence no lock.
class sse_hub {
 public:
  void join(const std::shared_ptr<sse_session>& stream);

  //! Tells every live stream of `session_id` that new events are retained. Works on a
  //! copy of the list, because a stream may end while it is being told.
  void notify(const std::string& session_id);

  //! Closes every stream (server shutdown).
  void close_all();

  //! Closes the streams of one session (it was forgotten: no event will come).
  void close_session(const std::string& session_id);

  //! Live streams of a session, for tests and logs.
  std::size_t count(const std::string& session_id);

  //! Live streams of every session (they count against the connection cap).
  std::size_t count_all();

 private:
  void prune(const std::string& session_id);

  std::map<std::string, std::vector<std::weak_ptr<sse_session>>> streams_;
};

}  // namespace toolwire::reference_server::web
