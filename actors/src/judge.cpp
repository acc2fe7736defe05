// The one judgement of a run (judge.hpp).
#include "toolwire/actors/judge.hpp"

#include "toolwire/protocol/api.hpp"
#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::actors {

run_judgement judge(const scenarios::scenario& plan, const trace& run) {
  run_judgement judged;
  judged.expectations = check_expectations(plan, run);
  judged.violations = check_invariants(run);
  for (const auto& r : run.records()) {
    if (r.kind == "transport_error") judged.transport_errors.push_back(r.data);
    if (r.kind == "browser_error" && judged.harness_failure.empty()) {
      judged.harness_failure = "step " + std::to_string(r.data.value("step", std::size_t{0}) + 1) +
                               ", the browser driver: " + protocol::string_at(r.data, "message");
    }
  }
  judged.unanswered = first_unanswered(run);
  return judged;
}

std::string first_unanswered(const trace& run) {
  for (const auto& r : run.records()) {
    const auto where = [&] {
      return protocol::string_at(r.data, "method") + " " + protocol::string_at(r.data, "path") +
             " at " + std::to_string(r.at) + " ms: ";
    };
    // A request still waiting when the run ended (its target actor stopped first): the
    // target took longer than the whole run to answer.
    if (r.kind == "request_error") {
      return where() + "no answer before the run ended (" + protocol::string_at(r.data, "error") +
             ")";
    }
    if (r.kind != "response") continue;
    const protocol::json& body = protocol::member_at(r.data, "body");
    // SPEC answers no request with 503: a target saying it is unavailable (at a capacity
    // limit, overloaded, restarting) has not answered the request, and what a run saw after
    // that says nothing about SPEC either (explore against a `toolwire serve` that had kept
    // its 10,000 sessions: "POST /v1/sessions showed 503", reported as a divergence).
    if (r.data.value("status", -1) == 503) {
      const std::string message =
          protocol::string_at(protocol::member_at(body, "error"), "message");
      return where() + "answered 503, unavailable" + (message.empty() ? "" : ": " + message);
    }
    if (r.data.value("status", -1) != 0) continue;
    if (!protocol::says_unreachable(body)) continue;
    return where() + protocol::string_at(protocol::member_at(body, "error"), "message");
  }
  return "";
}

}  // namespace toolwire::actors
