// The arrivals queue: producers on I/O threads, one consumer on the harness thread.
#include "arrivals.hpp"

#include <algorithm>

#include "stand_in_routes.hpp"

namespace toolwire::conformance::detail {

void arrivals::push(arrival item) {
  {
    std::lock_guard lock(mutex_);
    if (auto* model = std::get_if<model_arrival>(&item)) {
      auto texts = user_texts(model->body);
      if (!count_model(texts)) unowned_models_.push_back(std::move(texts));
    }
    if (auto* event = std::get_if<stream_arrival>(&item)) {
      if (auto* e = std::get_if<reference_server::session_event>(&event->item)) {
        ++session_events_[e->session_id];
        if (made_by_an_answer(*e)) {
          ++answer_events_[e->session_id];
          if (!failed_at_application(*e)) ++telling_events_[e->session_id];
        }
        auto& latest = latest_seq_[event->stream_id];
        latest = std::max(latest, e->seq);
        for (const char* key : {"client_id", "call_id"}) {
          const auto id = e->data.is_object() ? e->data.find(key) : e->data.end();
          if (id == e->data.end() || !id->is_string()) continue;
          awaited_event named{e->session_id, e->type, key, id->get<std::string>()};
          events_awaited_.erase(named);
          events_arrived_.insert(std::move(named));
        }
        if (auto owed = open_steps_.on_event(*e); owed && !models_given_up_) {
          auto& awaited = models_awaited_[turn_owner(e->session_id)];
          awaited = std::max(awaited, *owed);
        }
      }
    }
    if (auto* trouble = std::get_if<transport_arrival>(&item); trouble && trouble->ended) {
      followed_.erase(trouble->stream_id);
    }
    queue_.push_back(std::move(item));
    ++pushed_;
    last_change_ = clock_type::now();
    arrived_at_.push_back(last_change_);
  }
  changed_.notify_all();
}

void arrivals::note_activity() {
  std::lock_guard lock(mutex_);
  last_change_ = clock_type::now();
}

const step_owner* arrivals::latest_named(const std::vector<std::string>& texts) const {
  // The latest user message started the turn or task the step belongs to.
  for (auto text = texts.rbegin(); text != texts.rend(); ++text) {
    if (auto owner = owner_of_text_.find(*text); owner != owner_of_text_.end())
      return &owner->second;
  }
  return nullptr;
}

bool arrivals::count_model(const std::vector<std::string>& texts) {
  const auto* owner = latest_named(texts);
  if (owner == nullptr) return false;
  ++models_of_[owner_key(*owner)];
  return true;
}

std::optional<step_owner> arrivals::owner_by_text(const std::vector<std::string>& texts) {
  std::lock_guard lock(mutex_);
  const auto* owner = latest_named(texts);
  return owner == nullptr ? std::nullopt : std::optional<step_owner>(*owner);
}

void arrivals::name_owner(const std::string& text, const step_owner& owner) {
  {
    std::lock_guard lock(mutex_);
    owner_of_text_[text] = owner;
    std::erase_if(unowned_models_, [&](const auto& texts) { return count_model(texts); });
  }
  changed_.notify_all();
}

std::uint64_t arrivals::models_of(const std::string& owner) {
  std::lock_guard lock(mutex_);
  return models_of_[owner];
}

void arrivals::await_models(const std::string& owner, std::uint64_t total) {
  std::lock_guard lock(mutex_);
  if (models_given_up_) return;
  auto& awaited = models_awaited_[owner];
  awaited = std::max(awaited, total);
}

bool arrivals::models_missing() const {
  return std::any_of(models_awaited_.begin(), models_awaited_.end(), [&](const auto& awaited) {
    const auto seen = models_of_.find(awaited.first);
    return (seen == models_of_.end() ? 0 : seen->second) + unowned_models_.size() < awaited.second;
  });
}

void arrivals::await_turn_goes_on(const std::string& session) {
  std::lock_guard lock(mutex_);
  if (models_given_up_) return;
  turn_goes_on_ = turn_going_on{session, models_of_[turn_owner(session)], telling_events_[session]};
}

void arrivals::await_step_settled(const std::string& session, std::size_t calls) {
  std::lock_guard lock(mutex_);
  open_steps_.answered(session, calls, models_of_[turn_owner(session)]);
}

void arrivals::turn_answered(const std::string& session) {
  std::lock_guard lock(mutex_);
  if (turn_answers_given_up_) return;
  turn_answers_awaited_[session] = {models_of_[turn_owner(session)], session_events_[session],
                                    answer_events_[session]};
}

bool arrivals::await_turn_answers_applied(std::chrono::milliseconds bound) {
  std::unique_lock lock(mutex_);
  // Why by what was taken: an answer whose events arrived before this request (a loaded
  // harness is slower than the target) still needs them handed over (the CI run that
  // found held-answer-then-ack.yaml failing once), and one whose events were handed over
  // at an idle moment needs nothing (explore seed 41).
  std::erase_if(turn_answers_awaited_, [&](const auto& awaited) {
    return session_events_taken_[awaited.first] > awaited.second.events;
  });
  if (turn_answers_awaited_.empty()) return false;
  const auto applied = [&] {
    return std::all_of(turn_answers_awaited_.begin(), turn_answers_awaited_.end(),
                       [&](const auto& awaited) {
                         return models_of_[turn_owner(awaited.first)] + unowned_models_.size() >
                                    awaited.second.models ||
                                answer_events_[awaited.first] > awaited.second.answer_events;
                       });
  };
  if (!changed_.wait_for(lock, bound, applied)) turn_answers_given_up_ = true;
  const bool events_to_hand_over = std::any_of(
      turn_answers_awaited_.begin(), turn_answers_awaited_.end(),
      [&](const auto& awaited) { return session_events_[awaited.first] > awaited.second.events; });
  turn_answers_awaited_.clear();
  return events_to_hand_over;
}

void arrivals::note_taken(const arrival& item) {
  const auto* event = std::get_if<stream_arrival>(&item);
  if (event == nullptr) return;
  if (const auto* e = std::get_if<reference_server::session_event>(&event->item))
    ++session_events_taken_[e->session_id];
}

std::uint64_t arrivals::latest_seq_of(const std::string& session) {
  std::lock_guard lock(mutex_);
  return latest_of(session);
}

void arrivals::await_event(awaited_event event) {
  std::lock_guard lock(mutex_);
  if (implied_events_given_up_ || events_arrived_.contains(event)) return;
  events_awaited_.insert(std::move(event));
}

void arrivals::follow_stream(std::uint64_t stream_id, const std::string& session) {
  std::lock_guard lock(mutex_);
  followed_[stream_id] = {session, latest_of(session)};
}

void arrivals::forget_stream(std::uint64_t stream_id) {
  {
    std::lock_guard lock(mutex_);
    followed_.erase(stream_id);
  }
  changed_.notify_all();
}

std::uint64_t arrivals::latest_of(const std::string& session) const {
  std::uint64_t latest = 0;
  for (const auto& [id, stream] : followed_) {
    if (stream.session != session) continue;
    if (auto seen = latest_seq_.find(id); seen != latest_seq_.end())
      latest = std::max(latest, seen->second);
  }
  return latest;
}

bool arrivals::turn_not_gone_on() {
  if (!turn_goes_on_) return false;
  if (models_of_[turn_owner(turn_goes_on_->session)] + unowned_models_.size() >
          turn_goes_on_->models ||
      telling_events_[turn_goes_on_->session] > turn_goes_on_->events) {
    turn_goes_on_.reset();
    return false;
  }
  return true;
}

bool arrivals::a_stream_lags() const {
  for (const auto& [id, stream] : followed_) {
    const auto seen = latest_seq_.find(id);
    const std::uint64_t delivered =
        std::max(stream.from_seq, seen == latest_seq_.end() ? 0 : seen->second);
    if (latest_of(stream.session) > delivered) return true;
  }
  return false;
}

bool arrivals::an_implied_event_is_missing() const {
  // Why no structured binding: clang 14 does not let a lambda capture one.
  for (const auto& awaited : events_awaited_) {
    const bool followed = std::any_of(followed_.begin(), followed_.end(), [&](const auto& stream) {
      return stream.second.session == awaited.session;
    });
    if (followed) return true;
  }
  return false;
}

void arrivals::stop_awaiting_streams() {
  for (auto& [id, stream] : followed_)
    stream.from_seq = latest_of(stream.session);
}

void arrivals::wait_quiet(std::chrono::milliseconds settle, std::chrono::milliseconds bound) {
  std::unique_lock lock(mutex_);
  wait_quiet(lock, settle, bound);
}

void arrivals::wait_quiet(std::unique_lock<std::mutex>& lock, std::chrono::milliseconds settle,
                          std::chrono::milliseconds bound) {
  const auto give_up = clock_type::now() + bound;
  for (;;) {
    const auto now = clock_type::now();
    if (now >= give_up) {
      // What was awaited did not come in time: stop awaiting it, the checks will tell.
      if (models_missing() || turn_not_gone_on()) models_given_up_ = true;
      models_awaited_.clear();
      turn_goes_on_.reset();
      if (an_implied_event_is_missing()) implied_events_given_up_ = true;
      events_awaited_.clear();
      stop_awaiting_streams();
      break;
    }
    const bool owed =
        models_missing() || turn_not_gone_on() || a_stream_lags() || an_implied_event_is_missing();
    const auto quiet_at = last_change_ + settle;
    if (!owed && now >= quiet_at) break;
    changed_.wait_until(lock, owed ? give_up : std::min(quiet_at, give_up));
  }
}

std::optional<arrivals::clock_type::time_point> arrivals::latest_before(
    clock_type::time_point before) {
  std::lock_guard lock(mutex_);
  std::optional<clock_type::time_point> latest;
  for (const auto at : arrived_at_) {
    if (at < before) latest = at;
  }
  return latest;
}

std::vector<arrival> arrivals::take_arrived_by(clock_type::time_point by) {
  std::lock_guard lock(mutex_);
  std::vector<arrival> taken;
  while (!queue_.empty() && arrived_at_.front() <= by) {
    note_taken(queue_.front());
    taken.push_back(std::move(queue_.front()));
    queue_.pop_front();
    arrived_at_.pop_front();
  }
  return taken;
}

std::uint64_t arrivals::pushed() {
  std::lock_guard lock(mutex_);
  return pushed_;
}

bool arrivals::wait_for_push(std::uint64_t since, std::chrono::microseconds bound) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, bound, [&] { return pushed_ != since; });
}

void arrivals::wait_for_item(clock_type::time_point deadline) {
  std::unique_lock lock(mutex_);
  changed_.wait_until(lock, deadline, [&] { return !queue_.empty(); });
}

bool arrivals::model_queued(const std::function<bool(const json&)>& body_matches) {
  // Why copies, matched outside the lock: a matcher may ask this queue (owner_by_text).
  std::vector<json> bodies;
  {
    std::lock_guard lock(mutex_);
    for (const auto& item : queue_) {
      if (const auto* model = std::get_if<model_arrival>(&item)) bodies.push_back(model->body);
    }
  }
  return std::any_of(bodies.begin(), bodies.end(), body_matches);
}

std::vector<arrival> arrivals::take_events() {
  std::lock_guard lock(mutex_);
  std::vector<arrival> taken;
  std::deque<arrival> kept;
  std::deque<clock_type::time_point> kept_at;
  for (std::size_t i = 0; i < queue_.size(); ++i) {
    if (std::holds_alternative<model_arrival>(queue_[i])) {
      kept.push_back(std::move(queue_[i]));
      kept_at.push_back(arrived_at_[i]);
    } else {
      note_taken(queue_[i]);
      taken.push_back(std::move(queue_[i]));
    }
  }
  queue_ = std::move(kept);
  arrived_at_ = std::move(kept_at);
  return taken;
}

std::vector<arrival> arrivals::take_all() {
  std::lock_guard lock(mutex_);
  for (const auto& item : queue_)
    note_taken(item);
  std::vector<arrival> taken(std::make_move_iterator(queue_.begin()),
                             std::make_move_iterator(queue_.end()));
  queue_.clear();
  arrived_at_.clear();
  return taken;
}

}  // namespace toolwire::conformance::detail
