// The stand-in's routing table and its evidence of requests that belonged to no run.
#include "stand_in_routes.hpp"

#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::conformance::detail {

namespace {

// Why a bound: a target looping on a misrouted request must not grow the evidence forever.
constexpr std::size_t max_evidence = 1000;

bool chat_path(std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  return path == "/v1/chat/completions" || path == "/chat/completions";
}

//! A short, printable excerpt: the evidence ends up in JSON reports, which need UTF-8.
std::string excerpt(const std::string& text) {
  std::string out = text.size() > 200 ? text.substr(0, 197) + "..." : text;
  try {
    (void)json(out).dump();
  } catch (const json::type_error&) {
    for (auto& c : out) {
      if (static_cast<unsigned char>(c) >= 0x80) c = '?';
    }
  }
  return out;
}

}  // namespace

namespace {

std::string text_of(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (!content.is_array()) return text;
  for (const auto& part : content) {
    if (protocol::string_at(part, "type") == "text") text += protocol::string_at(part, "text");
  }
  return text;
}

std::string role_of(const json& message) {
  return protocol::string_at(message, "role");
}

}  // namespace

std::vector<std::string> user_texts(const json& body) {
  std::vector<std::string> texts;
  if (!body.is_object() || !body.contains("messages") || !body["messages"].is_array()) return texts;
  for (const auto& message : body["messages"]) {
    if (role_of(message) == "user") texts.push_back(text_of(message.value("content", json())));
  }
  return texts;
}

json current_turn(const json& body) {
  if (!body.is_object() || !body.contains("messages") || !body["messages"].is_array()) return body;
  const json& messages = body["messages"];
  // The opening block: the latest user message and the user messages just before it.
  std::size_t open = messages.size();
  for (std::size_t i = messages.size(); i-- > 0;) {
    const std::string role = role_of(messages[i]);
    if (role == "user") {
      open = i;
    } else if (open != messages.size() && role != "system") {
      break;
    }
  }
  if (open == messages.size()) return body;  // no user message: nothing to route by
  json turn = json::array();
  for (std::size_t i = 0; i < open && role_of(messages[i]) == "system"; ++i)
    turn.push_back(messages[i]);  // the leading system prompt stays
  for (std::size_t i = open; i < messages.size(); ++i) {
    json message = messages[i];
    if (role_of(message) == "user" && message.value("content", json()).is_array()) {
      message["content"] = text_of(message["content"]);
    }
    turn.push_back(std::move(message));
  }
  json out = body;
  out["messages"] = std::move(turn);
  return out;
}

std::string error_answer(std::string_view type, std::string_view message) {
  return json{{"error", {{"type", type}, {"message", message}}}}.dump();
}

bool stand_in_routes::add(const std::string& tag, model_stand_in::route to) {
  std::lock_guard lock(mutex_);
  return routes_.emplace(tag, std::move(to)).second;
}

void stand_in_routes::remove(const std::string& tag) {
  std::lock_guard lock(mutex_);
  routes_.erase(tag);
}

stand_in_decision stand_in_routes::decide(std::string_view method, std::string_view target,
                                          const std::string& body) {
  if (!chat_path(target)) {
    return refuse(404, "not_found", "not a chat-completions path", method, target, body);
  }
  if (method != "POST") {
    return refuse(405, "method_not_allowed", "chat completions are POSTed", method, target, body);
  }
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return refuse(400, "invalid_request", "malformed JSON", method, target, body);
  }
  json turn = current_turn(parsed);
  const auto texts = user_texts(turn);
  std::lock_guard lock(mutex_);
  const std::string* best = nullptr;
  // The latest user message that carries a run's tag decides; within it the longest tag.
  for (auto text = texts.rbegin(); text != texts.rend() && best == nullptr; ++text) {
    for (const auto& [tag, to] : routes_) {
      if (text->find(tag) != std::string::npos && (best == nullptr || tag.size() > best->size())) {
        best = &tag;
      }
    }
  }
  if (best != nullptr) return {routes_.at(*best), std::move(turn), 0, {}};
  // Why refuse inline: the lock is held, and refuse takes it too.
  stand_in_decision decision{{},
                             {},
                             404,
                             error_answer("not_found",
                                          "no run of this suite is waiting for a "
                                          "model request with these user messages "
                                          "(MODEL-3)")};
  if (evidence_.size() < max_evidence) {
    evidence_.push_back({{"reason", "no run's tag in the current turn's user messages"},
                         {"method", method},
                         {"target", target},
                         {"excerpt", excerpt(texts.empty() ? "" : texts.back())}});
  }
  return decision;
}

stand_in_decision stand_in_routes::refuse(int status, std::string_view type,
                                          const std::string& reason, std::string_view method,
                                          std::string_view target, const std::string& body) {
  std::lock_guard lock(mutex_);
  if (evidence_.size() < max_evidence) {
    evidence_.push_back(
        {{"reason", reason}, {"method", method}, {"target", target}, {"excerpt", excerpt(body)}});
  }
  return {{}, {}, status, error_answer(type, reason)};
}

std::vector<json> stand_in_routes::evidence() const {
  std::lock_guard lock(mutex_);
  return evidence_;
}

}  // namespace toolwire::conformance::detail
