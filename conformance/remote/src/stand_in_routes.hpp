// The stand-in's decisions, free of sockets: which run a chat-completions request belongs
// to, or the immediate answer it gets, and the evidence kept about unroutable requests.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/conformance/model_stand_in.hpp"

namespace toolwire::conformance::detail {

//! What to do with one request: hand `body` to `to`, or answer `status` / `answer` now.
struct stand_in_decision {
  model_stand_in::route to;  // empty: answer now
  json body;
  int status = 0;
  std::string answer;
};

//! The texts of a chat-completions body's user messages, in order: a string content, or
//! the text parts of an array content joined.
std::vector<std::string> user_texts(const json& body);

//! The conversation as a run's model script reads it (MODEL-1..3 leave the rest to the
//! implementation): the leading system messages, then the current turn from the user
//! messages that open it (the latest user message and those directly before it) on.
//! Earlier turns sent as history are dropped, so steps count from the latest user
//! message, and a user content of text parts becomes one string. Other keys are kept.
json current_turn(const json& body);

//! `{"error": {"type", "message"}}`, as the stand-in's own error answers.
std::string error_answer(std::string_view type, std::string_view message);

class stand_in_routes {
 public:
  bool add(const std::string& tag, model_stand_in::route to);
  void remove(const std::string& tag);

  //! Decides for a request that was read completely. Thread-safe; the route is a copy,
  //! so the caller calls it after the table's lock is released.
  stand_in_decision decide(std::string_view method, std::string_view target,
                           const std::string& body);

  std::vector<json> evidence() const;

 private:
  stand_in_decision refuse(int status, std::string_view type, const std::string& reason,
                           std::string_view method, std::string_view target,
                           const std::string& body);

  mutable std::mutex mutex_;
  std::map<std::string, model_stand_in::route> routes_;
  std::vector<json> evidence_;
};

}  // namespace toolwire::conformance::detail
