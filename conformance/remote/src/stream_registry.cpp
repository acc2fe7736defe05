// The stream registry: opening and closing event streams, and handing over what they read.
#include "stream_registry.hpp"

#include <caf/all.hpp>

#include "event_stream.hpp"
#include "recorder.hpp"
#include "toolwire/actors/messages.hpp"
#include "toolwire/conformance/http_client.hpp"
#include "toolwire/protocol/routes.hpp"
#include "transport.hpp"

namespace toolwire::conformance::detail {

stream_registry::stream_registry(transport& link, arrivals& inbox, const recorder& trace)
    : link_(link), inbox_(inbox), trace_(trace) {}

protocol::api_response stream_registry::open(const protocol::api_request& request,
                                             const std::string& session_id, caf::actor subscriber,
                                             bool monitor) {
  const std::uint64_t id = next_id_++;
  auto opened = link_.open_stream(request, id, session_id);
  if (opened.response.status == 200 && opened.response.stream) {
    streams_[id] = {std::move(subscriber), monitor, session_id, std::move(opened.stream)};
    inbox_.follow_stream(id, session_id);
  }
  return opened.response;
}

void stream_registry::monitor(const std::string& session_id) {
  if (!trace_.recording()) return;
  // Last-Event-ID 0: every retained event, so none from before the stream opened is missed.
  const protocol::api_request request{
      "GET",
      protocol::route_path(protocol::route_id::open_events, {session_id}),
      {},
      link_.profile().api_key,
      std::string("0"),
      "",
      {}};
  const auto opened = open(request, session_id, caf::actor{}, /*monitor=*/true);
  if (opened.status != 200) {
    trace_.record("transport_error",
                  {{"session", session_id},
                   {"what", "cannot follow the session's events: " + describe_answer(opened)}});
  }
}

void stream_registry::close(const caf::actor& subscriber, const std::string& session_id) {
  std::erase_if(streams_, [&](const auto& entry) {
    const auto& s = entry.second;
    const bool match = !s.monitor && s.subscriber == subscriber && s.session_id == session_id;
    if (match) {
      s.stream->close();
      inbox_.forget_stream(entry.first);
    }
    return match;
  });
}

void stream_registry::close_all() {
  for (auto& [id, s] : streams_)
    s.stream->close();
  streams_.clear();
}

bool stream_registry::unread(std::chrono::milliseconds bound) const {
  std::vector<std::shared_ptr<event_stream>> open;
  for (const auto& [id, s] : streams_)
    open.push_back(s.stream);
  return link_.unread(open, bound);
}

void stream_registry::deliver(stream_arrival& item) {
  auto it = streams_.find(item.stream_id);
  if (it == streams_.end()) return;  // closed meanwhile: a closed stream delivers nothing
  if (it->second.monitor) return deliver_to_monitor(it->second, item);
  deliver_to_subscriber(it->second, item);
}

void stream_registry::deliver_to_subscriber(const open_stream& entry, stream_arrival& item) {
  if (auto* event = std::get_if<reference_server::session_event>(&item.item)) {
    caf::anon_send(entry.subscriber, actors::event_atom::value, std::move(*event));
    return;
  }
  const auto oldest = std::get<stream_gap>(item.item).oldest_seq;
  caf::anon_send(entry.subscriber, actors::stream_gap_atom::value, entry.session_id, oldest);
}

void stream_registry::deliver_to_monitor(const open_stream& entry, const stream_arrival& item) {
  if (const auto* event = std::get_if<reference_server::session_event>(&item.item)) {
    trace_.record("event", {{"session", event->session_id},
                            {"seq", event->seq},
                            {"type", event->type},
                            {"data", event->data}});
    monitored_seq_[event->session_id] = event->seq;
    return;
  }
  const auto oldest = std::get<stream_gap>(item.item).oldest_seq;
  trace_.record(
      "transport_error",
      {{"session", entry.session_id},
       {"what", "the run's own stream of the session started with a stream_gap (oldest_seq " +
                    std::to_string(oldest) + "): earlier events are missing from the trace"}});
}

void stream_registry::record_after_end(const stream_arrival& item, actors::time_ms at) const {
  const auto it = streams_.find(item.stream_id);
  const auto* event = std::get_if<reference_server::session_event>(&item.item);
  if (it == streams_.end() || !it->second.monitor || event == nullptr) return;
  trace_.record_at(at, "event_after_end",
                   {{"session", event->session_id},
                    {"seq", event->seq},
                    {"type", event->type},
                    {"data", event->data}});
}

void stream_registry::deliver(const transport_arrival& item) {
  json data = {{"what", item.what}};
  if (auto it = streams_.find(item.stream_id); it != streams_.end()) {
    data["session"] = it->second.session_id;
    data["stream"] = it->second.monitor ? "run" : "subscriber";
    if (item.ended) streams_.erase(it);
  }
  trace_.record("transport_error", std::move(data));
}

std::uint64_t stream_registry::recorded_seq(const std::string& session_id) const {
  const auto seq = monitored_seq_.find(session_id);
  return seq == monitored_seq_.end() ? 0 : seq->second;
}

}  // namespace toolwire::conformance::detail
