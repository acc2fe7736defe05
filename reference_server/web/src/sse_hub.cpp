// The event streams open per session: tells them when the core has new events.
#include "toolwire/reference_server/web/sse_hub.hpp"

#include <algorithm>

#include "toolwire/reference_server/web/sse_session.hpp"

namespace toolwire::reference_server::web {

void sse_hub::join(const std::shared_ptr<sse_session>& stream) {
  prune(stream->session_id());
  streams_[stream->session_id()].push_back(stream);
}

void sse_hub::notify(const std::string& session_id) {
  auto it = streams_.find(session_id);
  if (it == streams_.end()) return;
  std::vector<std::shared_ptr<sse_session>> live;
  for (const auto& weak : it->second) {
    if (auto stream = weak.lock()) live.push_back(std::move(stream));
  }
  for (const auto& stream : live)
    stream->notify();
  prune(session_id);
}

void sse_hub::close_all() {
  auto streams = std::move(streams_);
  streams_.clear();
  for (auto& [session_id, list] : streams) {
    for (const auto& weak : list) {
      if (auto stream = weak.lock()) stream->close();
    }
  }
}

void sse_hub::close_session(const std::string& session_id) {
  auto it = streams_.find(session_id);
  if (it == streams_.end()) return;
  const auto list = std::move(it->second);
  streams_.erase(it);
  for (const auto& weak : list) {
    if (auto stream = weak.lock()) stream->close();
  }
}

std::size_t sse_hub::count(const std::string& session_id) {
  prune(session_id);
  auto it = streams_.find(session_id);
  return it == streams_.end() ? 0 : it->second.size();
}

std::size_t sse_hub::count_all() {
  std::size_t total = 0;
  for (auto it = streams_.begin(); it != streams_.end();) {
    const std::string session_id = (it++)->first;  // prune may erase the entry
    total += count(session_id);
  }
  return total;
}

void sse_hub::prune(const std::string& session_id) {
  auto it = streams_.find(session_id);
  if (it == streams_.end()) return;
  std::erase_if(it->second, [](const auto& weak) {
    auto stream = weak.lock();
    return !stream || stream->closed();
  });
  if (it->second.empty()) streams_.erase(it);
}

}  // namespace toolwire::reference_server::web
