// A test harness around the pure reference core: requests go through the router (as
// over HTTP, minus the socket), time is a virtual clock, and model steps are answered
// by the test. Nothing here sleeps or reads the wall clock.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "toolwire/protocol/api.hpp"
#include "toolwire/protocol/types.hpp"
#include "toolwire/reference_server/core.hpp"
#include "toolwire/reference_server/router.hpp"
#include "toolwire/reference_server/virtual_clock.hpp"

namespace toolwire::testing {

using protocol::json;
using protocol::time_ms;

inline constexpr const char* admin_key = "admin-key";    // session.manage
inline constexpr const char* reader_key = "reader-key";  // no scopes
inline constexpr time_ms start_time = 1'700'000'000'000;
//! The origin default_config lets browser pages call from (CORS-1..3).
inline constexpr const char* page_origin = "http://app.toolwire.test";

reference_server::core_config default_config(reference_server::fault_set faults = {});

class core_harness {
 public:
  explicit core_harness(reference_server::core_config config = default_config());

  //! Sends a request through the router as `credential` (admin key by default),
  //! then collects the core's outputs.
  protocol::api_response request(const std::string& method, const std::string& path,
                                 const json& body = json(),
                                 std::optional<std::string> credential = admin_key,
                                 std::optional<std::string> last_event_id = std::nullopt);
  //! Sends `r` as it is (e.g. with CORS fields), then collects the core's outputs.
  protocol::api_response send(const protocol::api_request& r);
  //! Same with a raw body text (for malformed JSON).
  protocol::api_response request_raw(const std::string& method, const std::string& path,
                                     std::string body,
                                     std::optional<std::string> credential = admin_key);

  // -- shortcuts (each REQUIREs the expected success status) ---------------------------
  //! Creates a session; returns its id (token in `token_of`).
  std::string create_session();
  const std::string& token_of(const std::string& sid) const;
  //! Registers a client; returns the 201 body.
  json register_client(const std::string& sid, const std::string& name, const json& lifetime,
                       const json& tools = json::array());
  static json ttl(std::int64_t seconds);
  static json never();
  //! A tool declaration `{"name", "description", "parameters": {"type": "object"}}`.
  static json tool(const std::string& name, const std::string& description = "a tool");
  std::string clients_path(const std::string& sid) const;
  std::string client_path(const std::string& sid, const std::string& cid) const;
  std::string call_path(const std::string& sid, const std::string& cid,
                        const std::string& call_id) const;

  // -- time ----------------------------------------------------------------------------
  time_ms now() const { return clock_.now(); }
  //! Moves the virtual clock, firing due timers at their own instants (CLOCK-2).
  void advance(time_ms ms);

  // -- model steps ---------------------------------------------------------------------
  bool has_model_step() const { return !steps_.empty(); }
  //! The oldest unanswered model step (REQUIREs one).
  reference_server::model_step_request next_model_step();
  void answer(std::uint64_t step_id, const protocol::model_answer& answer);
  void answer_text(std::uint64_t step_id, const std::string& text);
  //! Answers with tool calls named as the model sees them, e.g. {"web__read", {"x": 1}}.
  void answer_calls(std::uint64_t step_id, const std::vector<std::pair<std::string, json>>& calls);
  void fail_model(std::uint64_t step_id, const std::string& why);
  //! Names of the tools offered in a model step request (MODEL-1).
  static std::vector<std::string> offered_names(const reference_server::model_step_request& step);
  //! The tool messages of a model step request, in order (role "tool").
  static std::vector<json> tool_messages(const reference_server::model_step_request& step);

  // -- events --------------------------------------------------------------------------
  const std::vector<reference_server::session_event>& events() const { return events_; }
  std::vector<reference_server::session_event> events_of(const std::string& sid,
                                                         const std::string& type = "") const;
  //! The first event of `type` in `sid` whose data contains every field of `match`.
  std::optional<reference_server::session_event> find_event(
      const std::string& sid, const std::string& type, const json& match = json::object()) const;
  //! The sessions the core forgot so far (core_config::idle_expiry_ms), in order.
  const std::vector<std::string>& forgotten_sessions() const { return forgotten_; }
  //! The core's failures where no request waited (core_outputs::internal_errors), in order.
  const std::vector<std::string>& internal_errors() const { return internal_errors_; }
  //! Every call id dispatched so far in `sid`, in order.
  std::vector<std::string> dispatched_calls(const std::string& sid) const;

  reference_server::core& core() { return core_; }

 private:
  void collect();

  reference_server::core core_;
  reference_server::virtual_clock clock_{start_time};
  reference_server::router router_{core_, clock_};
  std::vector<reference_server::session_event> events_;
  std::deque<reference_server::model_step_request> steps_;
  std::vector<std::string> forgotten_;
  std::vector<std::string> internal_errors_;
  std::map<std::string, std::string> tokens_;
  std::uint64_t model_call_counter_ = 0;
};

}  // namespace toolwire::testing
