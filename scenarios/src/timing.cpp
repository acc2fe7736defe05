// Time expressions of the scenario language.
#include "timing.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace toolwire::scenarios::detail {

namespace {

thread_local time_context* current = nullptr;

const std::vector<std::string_view>& names() {
  static const std::vector<std::string_view> known = {"ack_timeout", "result_timeout",
                                                      "interrupt_timeout", "ttl", "tol"};
  return known;
}

//! One expression's parts: literal milliseconds, and what the names add up to.
struct reading {
  time_ms literal = 0;
  time_ms named = 0;
  time_ms anchor = 0;      // the labelled steps' times it names
  bool deadline = false;   // names a timeout or a TTL
  bool tolerance = false;  // names tol
};

std::string trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ')
    text.remove_suffix(1);
  return std::string(text);
}

[[noreturn]] void bad(int line, std::string_view text, const std::string& why) {
  fail(line, "bad time '" + std::string(text) + "': " + why +
                 " (write a duration such as 500ms, or e.g. 'ack_timeout - 1ms', "
                 "'ttl(tab) + 1s', '2*tol')");
}

time_ms ttl_of(const time_context& context, const std::string& actor, int line,
               std::string_view text) {
  if (actor.empty()) {
    if (context.ttls.size() == 1) return context.ttls.begin()->second;
    std::string which;
    for (const auto& [name, ttl] : context.ttls)
      which += (which.empty() ? "" : ", ") + name;
    bad(line, text,
        context.ttls.empty() ? "no client has a ttl (give one 'lifetime: {ttl: N}')"
                             : "'ttl' names no client: write ttl(ACTOR), one of " + which);
  }
  auto it = context.ttls.find(actor);
  if (it == context.ttls.end()) {
    std::vector<std::string_view> known;
    for (const auto& [name, ttl] : context.ttls)
      known.push_back(name);
    bad(line, text, unknown("client with a ttl", actor, known));
  }
  return it->second;
}

//! One term's value: a duration, or [N*]name; adds to `r`.
void add_term(const time_context& context, std::string_view term_text, int sign, reading& r,
              int line, std::string_view text) {
  std::string term = trim(term_text);
  if (term.empty()) bad(line, text, "a term is missing");
  std::int64_t factor = 1;
  if (const auto star = term.find('*'); star != std::string::npos) {
    const std::string count = trim(std::string_view(term).substr(0, star));
    const auto [end, error] = std::from_chars(count.data(), count.data() + count.size(), factor);
    if (error != std::errc() || end != count.data() + count.size() || factor < 0) {
      bad(line, text, "'" + count + "' is not a whole number to multiply by");
    }
    term = trim(std::string_view(term).substr(star + 1));
  }
  if (const auto ms = parse_duration(term)) {
    r.literal += sign * factor * *ms;
    return;
  }
  std::string name = term;
  std::string actor;
  if (const auto open = term.find('('); open != std::string::npos) {
    if (term.back() != ')') bad(line, text, "a ')' is missing");
    name = trim(std::string_view(term).substr(0, open));
    actor = trim(std::string_view(term).substr(open + 1, term.size() - open - 2));
    if (name != "ttl") bad(line, text, "only ttl(ACTOR) takes an actor");
    if (actor.empty()) bad(line, text, "ttl() names no client");
  }
  time_ms ms = 0;
  if (name == "ack_timeout") {
    ms = context.target.ack_timeout_ms;
  } else if (name == "result_timeout") {
    ms = context.target.result_timeout_ms;
  } else if (name == "interrupt_timeout") {
    ms = context.target.interrupt_timeout_ms;
  } else if (name == "ttl") {
    ms = ttl_of(context, actor, line, text);
  } else if (name == "tol") {
    ms = context.target.tolerance_ms;
    r.tolerance = true;
  } else if (auto label = context.labels.find(name);
             label != context.labels.end() && actor.empty()) {
    r.anchor += sign * factor * label->second;
    return;
  } else {
    std::vector<std::string_view> known = names();
    for (const auto& [label_name, at] : context.labels)
      known.push_back(label_name);
    bad(line, text, unknown("name", name, known));
  }
  if (name != "tol") r.deadline = true;
  r.named += sign * factor * ms;
}

reading read(const time_context& context, std::string_view text, int line) {
  reading r;
  int sign = 1;
  int depth = 0;
  std::size_t start = 0;
  bool leading = true;  // a sign before the first term is an error: times start positive
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : '\0';
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == '+' || c == '-' || c == '\0')) {
      const auto term = text.substr(start, i - start);
      if (leading && trim(term).empty() && c != '\0') bad(line, text, "it starts with a sign");
      add_term(context, term, sign, r, line, text);
      leading = false;
      sign = c == '-' ? -1 : 1;
      start = i + 1;
    }
  }
  return r;
}

time_ms resolve(std::string_view text, int line) {
  auto& context = current_time();
  const reading r = read(context, text, line);
  time_ms ms = 0;
  if (!r.deadline && !r.tolerance) {
    // A readability gap: it scales with the target's pace (never to 0 when it was not 0,
    // so steps keep their order).
    const double scaled = static_cast<double>(r.literal) * context.pace;
    ms = r.anchor + (r.literal == 0 ? 0
                                    : (r.literal > 0 ? 1 : -1) *
                                          std::max<time_ms>(1, std::llabs(std::llround(scaled))));
  } else {
    context.named_a_deadline = true;
    ms = r.anchor + r.literal + r.named;
    if (r.deadline && !r.tolerance && context.target.real_clock &&
        std::llabs(r.literal) < context.target.tolerance_ms && context.precision_at.empty()) {
      context.precision_at = "line " + std::to_string(line) + ": '" + std::string(text) + "'";
    }
  }
  if (ms < 0) {
    bad(line, text,
        "it is " + std::to_string(ms) + " ms for ack/result/interrupt timeouts of " +
            std::to_string(context.target.ack_timeout_ms) + "/" +
            std::to_string(context.target.result_timeout_ms) + "/" +
            std::to_string(context.target.interrupt_timeout_ms) + " ms");
  }
  return ms;
}

}  // namespace

time_scope::time_scope(time_context& context) : previous_(current) {
  current = &context;
}

time_scope::~time_scope() {
  current = previous_;
}

time_context& current_time() {
  thread_local time_context fallback;
  return current != nullptr ? *current : fallback;
}

time_ms as_time(const value& v) {
  if (!v.node.IsScalar()) wrong_type(v, "a time (500ms, 12s, or e.g. 'ack_timeout - 1ms')");
  const std::string text = scalar_text(v.node);
  if (parse_duration(text)) return resolve(text, v.line);
  if (text.find_first_of("+-*_(") == std::string::npos && text != "ttl" && text != "tol") {
    fail(v.line,
         "bad duration '" + text + "' (write 500ms, 12s, 2m, 1h or an integer of milliseconds)");
  }
  return resolve(text, v.line);
}

time_ms time_of(std::string_view text, int line) {
  return resolve(text, line);
}

}  // namespace toolwire::scenarios::detail
