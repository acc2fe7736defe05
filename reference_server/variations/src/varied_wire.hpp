// The wire-level variations: a wire_policy that presents the core as a set of variations
// says, around the router and the event streams. The core never sees it.
#pragma once

#include <map>
#include <string>

#include "toolwire/reference_server/variations/variations.hpp"
#include "toolwire/reference_server/web/wire_policy.hpp"

namespace toolwire::reference_server::variations::detail {

//! uuid_ids: outgoing ids in another form, incoming ones mapped back. A variant id is a
//! hash of the reference id, so it does not depend on which seam sees an id first.
class id_map {
 public:
  //! Rewrites the reference ids `value` holds (at id keys, outside client payloads).
  void to_variant(json& value);
  //! Maps the variant ids of a request's path segments and body back.
  void to_reference(protocol::api_request& request) const;

 private:
  std::string variant_of(const std::string& reference_id);
  std::map<std::string, std::string> reference_of_;  // variant -> reference id
};

class varied_wire final : public web::wire_policy {
 public:
  explicit varied_wire(variation_set set) : set_(std::move(set)) {}

  void inbound(protocol::api_request& request) override;
  void outbound(const protocol::api_request& request, protocol::api_response& response) override;
  void message(web::http_response& message) override;
  event_window events(const core& log, const std::string& session_id, std::uint64_t after) override;
  std::string frame(const session_event& event) override;
  std::string preamble() override;
  std::chrono::milliseconds delay(web::slowness where) override;

 private:
  bool has(variation v) const { return set_.contains(v); }

  variation_set set_;
  id_map ids_;
  std::uint64_t responses_ = 0;  // numbers the X-Request-Id of extra_headers
  std::map<web::slowness, std::uint64_t> delays_asked_;  // draws the slow variations' jitter
};

}  // namespace toolwire::reference_server::variations::detail
