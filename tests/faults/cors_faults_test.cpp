// The CORS capability (CORS-1..3, docs/cors.md): what the reference answers a browser's
// preflights and cross-origin requests, and each CORS fault breaking its rule.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "faults/fault_contrast.hpp"

using namespace toolwire::testing;
using namespace toolwire::testing::faults;
using toolwire::reference_server::fault;

namespace {

const std::string other_origin = "https://elsewhere.toolwire.invalid";

struct browser_request {
  std::string method = "OPTIONS";
  std::string path;
  std::string origin = page_origin;
  std::optional<std::string> asks_method;   // Access-Control-Request-Method: a preflight
  std::optional<std::string> asks_headers;  // Access-Control-Request-Headers
  std::optional<std::string> credential;
  json body = json();
};

//! What the browser reads of the answer: the status and the CORS fields.
json answer_to(core_harness& h, const browser_request& b) {
  toolwire::protocol::api_request r;
  r.method = b.method;
  r.path = b.path;
  r.credential = b.credential;
  r.body = b.body.is_null() ? "" : b.body.dump();
  r.cors["origin"] = b.origin;
  if (b.asks_method) r.cors["access-control-request-method"] = *b.asks_method;
  if (b.asks_headers) r.cors["access-control-request-headers"] = *b.asks_headers;
  const auto response = h.send(r);
  return {{"status", response.status}, {"cors", response.cors}};
}

browser_request preflight(std::string path, std::string method, std::string origin = page_origin) {
  browser_request b;
  b.path = std::move(path);
  b.origin = std::move(origin);
  b.asks_method = std::move(method);
  b.asks_headers = "authorization, content-type";
  return b;
}

}  // namespace

TEST_CASE("the reference answers CORS preflights and marks answers for allowed origins only",
          "[faults][CORS-1][CORS-2][CORS-3]") {
  core_harness h;
  const auto sid = h.create_session();
  const json allowed_preflight = {
      {"status", 204},
      {"cors",
       {{"access-control-allow-origin", page_origin},
        {"access-control-allow-methods", "POST"},
        {"access-control-allow-headers", "Authorization, Content-Type, Last-Event-ID"},
        {"access-control-max-age", "600"},
        {"vary", "Origin"}}}};
  // CORS-1: no credential, the path's methods, the headers the API reads.
  CHECK(answer_to(h, preflight(h.clients_path(sid), "POST")) == allowed_preflight);
  CHECK(answer_to(h, preflight(h.clients_path(sid) + "/cli_1/tools",
                               "PUT"))["cors"]["access-control-allow-methods"] == "PUT");
  // CORS-3: another origin's preflight is answered, but allows nothing.
  CHECK(answer_to(h, preflight(h.clients_path(sid), "POST", other_origin)) ==
        json{{"status", 204}, {"cors", {{"vary", "Origin"}}}});
  // CORS-2: a success and an error alike carry the allowed origin; CORS-3: never another.
  browser_request create{"POST", "/v1/sessions", page_origin, {}, {}, admin_key, json::object()};
  CHECK(answer_to(h, create) ==
        json{{"status", 201},
             {"cors", {{"access-control-allow-origin", page_origin}, {"vary", "Origin"}}}});
  browser_request refused{"POST", h.clients_path(sid), page_origin, {}, {}, "no-such-key", {}};
  CHECK(answer_to(h, refused) ==
        json{{"status", 401},
             {"cors", {{"access-control-allow-origin", page_origin}, {"vary", "Origin"}}}});
  create.origin = other_origin;
  CHECK(answer_to(h, create) == json{{"status", 201}, {"cors", {{"vary", "Origin"}}}});
  // Without an Origin (not a browser's cross-origin request) nothing is added, and OPTIONS
  // without the capability is a method the path does not take.
  CHECK(h.request("GET", "/v1/sessions/" + sid + "/events").cors.empty());
  core_harness without{[] {
    auto config = default_config();
    config.cors_origins.clear();
    return config;
  }()};
  CHECK(answer_to(without, preflight("/v1/sessions", "POST"))["status"] == 405);
}

TEST_CASE("fault cors_preflight_needs_credential breaks CORS-1", "[faults][CORS-1]") {
  // CORS-1: a preflight from an allowed origin is 2xx without a credential.
  const auto seen =
      run_clean_and_faulty(fault::cors_preflight_needs_credential, [](core_harness& h) {
        const auto sid = h.create_session();
        auto with_key = preflight(h.clients_path(sid), "POST");
        with_key.credential = admin_key;
        return json{{"browser", answer_to(h, preflight(h.clients_path(sid), "POST"))["status"]},
                    {"with_a_key", answer_to(h, with_key)["status"]}};
      });
  CHECK(seen.clean == json{{"browser", 204}, {"with_a_key", 204}});
  CHECK(seen.faulty == json{{"browser", 401}, {"with_a_key", 204}});
}

TEST_CASE("fault cors_authorization_header_not_allowed breaks CORS-1", "[faults][CORS-1]") {
  // CORS-1: the preflight allows the headers the API reads, Authorization first of all.
  const auto seen =
      run_clean_and_faulty(fault::cors_authorization_header_not_allowed, [](core_harness& h) {
        const auto sid = h.create_session();
        return answer_to(
            h, preflight(h.clients_path(sid), "POST"))["cors"]["access-control-allow-headers"];
      });
  CHECK(seen.clean == "Authorization, Content-Type, Last-Event-ID");
  CHECK(seen.faulty == "Content-Type, Last-Event-ID");
}

TEST_CASE("fault cors_errors_not_allowed breaks CORS-2", "[faults][CORS-2]") {
  // CORS-2: every answer to an allowed origin allows it, errors too.
  const auto seen = run_clean_and_faulty(fault::cors_errors_not_allowed, [](core_harness& h) {
    const auto sid = h.create_session();
    browser_request refused{"POST", h.clients_path(sid), page_origin, {}, {}, "no-such-key", {}};
    browser_request events{"GET", "/v1/sessions/" + sid + "/events", page_origin, {}, {}, admin_key,
                           {}};
    return json{{"401", answer_to(h, refused)["cors"].contains("access-control-allow-origin")},
                {"200", answer_to(h, events)["cors"].contains("access-control-allow-origin")}};
  });
  CHECK(seen.clean == json{{"401", true}, {"200", true}});
  CHECK(seen.faulty == json{{"401", false}, {"200", true}});
}

TEST_CASE("fault cors_any_origin_allowed breaks CORS-3", "[faults][CORS-3]") {
  // CORS-3: an origin not allowed is never allowed.
  const auto seen = run_clean_and_faulty(fault::cors_any_origin_allowed, [](core_harness& h) {
    browser_request create{"POST", "/v1/sessions", other_origin, {}, {}, admin_key, json::object()};
    return json{
        {"create", answer_to(h, create)["cors"].value("access-control-allow-origin", "")},
        {"preflight", answer_to(h, preflight("/v1/sessions", "POST", other_origin))["cors"].value(
                          "access-control-allow-origin", "")}};
  });
  CHECK(seen.clean == json{{"create", ""}, {"preflight", ""}});
  CHECK(seen.faulty == json{{"create", other_origin}, {"preflight", other_origin}});
}
