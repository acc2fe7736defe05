// All or nothing: what a command changed in the core's state, so that a command which
// fails half-way (a move the life-cycle tables refuse, i.e. a core bug) can be undone
// and publish none of its half.
//
// Why a journal and not a copy of the state: one session may hold 10,000 clients and a
// task its whole conversation; copying them before every command would cost more than
// the command. The journal notes only what a command reaches for writing, at the places
// the type system makes unavoidable: the containers below hand out a mutable record only
// after noting how to put it back. The session table notes a session's own fields the
// same way (core_state.hpp), and the timer table notes in schedule/cancel (core.cpp).
//
// A note is an undo action; `rollback` runs them newest first, so a record written twice
// ends as it was before the first write, and a record created and then changed is first
// changed back and then removed.
#pragma once

#include <array>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <memory_resource>
#include <new>
#include <utility>
#include <vector>

namespace toolwire::reference_server::detail {

//! The undo actions of the command in progress. Outside a command nothing is noted.
//!
//! Why not a vector of std::function: nearly every command notes a few actions, each too
//! large for std::function's inline room, so each note was an allocation and a free (five
//! in a ping). The actions live in an arena that the next command reuses from its start.
class undo_log {
 public:
  undo_log() = default;
  undo_log(const undo_log&) = delete;
  undo_log& operator=(const undo_log&) = delete;
  ~undo_log() { forget(); }

  bool recording() const { return recording_; }
  template <typename Undo>
  void note(Undo undo) {
    if (!recording_) return;
    void* place = arena_.allocate(sizeof(action_of<Undo>), alignof(action_of<Undo>));
    undo_.push_back(nullptr);  // may throw; nothing is made yet
    try {
      undo_.back() = new (place) action_of<Undo>(std::move(undo));
    } catch (...) {
      undo_.pop_back();
      throw;
    }
  }
  void begin() {
    forget();
    recording_ = true;
  }
  void commit() {
    recording_ = false;
    forget();
  }
  //! Undoes every noted change, newest first.
  void rollback() {
    recording_ = false;
    for (auto undo = undo_.rbegin(); undo != undo_.rend(); ++undo)
      (*undo)->undo();
    forget();
  }

 private:
  struct action {
    virtual ~action() = default;
    virtual void undo() = 0;
  };
  template <typename Undo>
  struct action_of final : action {
    explicit action_of(Undo&& act) : act(std::move(act)) {}
    void undo() override { act(); }
    Undo act;
  };

  //! Ends the noted actions and hands their room back to the arena.
  void forget() {
    for (action* noted : undo_)
      noted->~action();
    undo_.clear();
    arena_.release();
  }

  bool recording_ = false;
  std::vector<action*> undo_;
  //! Room for a command's notes: a ping's take a few hundred bytes; a larger command
  //! spills into blocks from the heap, which `forget` returns.
  std::array<std::byte, 4096> first_block_;
  std::pmr::monotonic_buffer_resource arena_{first_block_.data(), first_block_.size()};
};

//! A std::map whose every write path first notes how to undo it: a mutable `find` or
//! `at` notes the entry as it is (or its absence), `emplace`, `erase` and `extract` the
//! same. Reading goes through the const overloads and notes nothing; there is no
//! mutable iteration (find the entry to change instead).
template <typename Key, typename Value>
class journaled_map {
 public:
  using map_type = std::map<Key, Value>;
  using iterator = typename map_type::iterator;
  using const_iterator = typename map_type::const_iterator;
  using node_type = typename map_type::node_type;

  //! Attaches the log the map notes into; a map without one notes nothing.
  void attach(undo_log* log) { log_ = log; }

  const_iterator begin() const { return map_.begin(); }
  const_iterator end() const { return map_.end(); }
  const_iterator find(const Key& key) const { return map_.find(key); }
  const Value& at(const Key& key) const { return map_.at(key); }
  std::size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }
  std::size_t count(const Key& key) const { return map_.count(key); }

  iterator find(const Key& key) {
    note(key);
    return map_.find(key);
  }
  Value& at(const Key& key) {
    note(key);
    return map_.at(key);
  }
  template <typename... Args>
  std::pair<iterator, bool> emplace(const Key& key, Args&&... args) {
    note(key);
    return map_.emplace(key, std::forward<Args>(args)...);
  }
  iterator erase(iterator at) {
    note(at->first);
    return map_.erase(at);
  }
  std::size_t erase(const Key& key) {
    note(key);
    return map_.erase(key);
  }
  node_type extract(const Key& key) {
    note(key);
    return map_.extract(key);
  }
  //! Sets one member of an entry, if there is one, noting that member alone. Why: a task
  //! is touched at every poll (its idle time), and a copy of the whole task (its
  //! conversation, its output) for one number was most of what the journal cost.
  template <typename MemberPointer, typename Member>
  void set_member(const Key& key, MemberPointer member, Member value) {
    auto found = map_.find(key);
    if (found == map_.end()) return;
    if (log_ != nullptr && log_->recording()) {
      log_->note(
          [this, key, member, before = found->second.*member] { map_.at(key).*member = before; });
    }
    found->second.*member = std::move(value);
  }

 private:
  void note(const Key& key) {
    if (log_ == nullptr || !log_->recording()) return;
    auto found = map_.find(key);
    if (found == map_.end()) {
      log_->note([this, key] { map_.erase(key); });
    } else {
      log_->note([this, key, before = found->second] { map_.insert_or_assign(key, before); });
    }
  }

  map_type map_;
  undo_log* log_ = nullptr;
};

//! A session's retained events: appended at the back, dropped at the front (SES-3's
//! retention), each change noted.
template <typename Event>
class journaled_log {
 public:
  using const_iterator = typename std::deque<Event>::const_iterator;

  void attach(undo_log* log) { log_ = log; }

  const_iterator begin() const { return events_.begin(); }
  const_iterator end() const { return events_.end(); }
  const Event& front() const { return events_.front(); }
  const Event& back() const { return events_.back(); }
  std::size_t size() const { return events_.size(); }
  bool empty() const { return events_.empty(); }

  void push_back(Event event) {
    if (log_ != nullptr && log_->recording()) log_->note([this] { events_.pop_back(); });
    events_.push_back(std::move(event));
  }
  void pop_front() {
    if (log_ != nullptr && log_->recording()) {
      log_->note([this, dropped = events_.front()] { events_.push_front(dropped); });
    }
    events_.pop_front();
  }

 private:
  std::deque<Event> events_;
  undo_log* log_ = nullptr;
};

}  // namespace toolwire::reference_server::detail
