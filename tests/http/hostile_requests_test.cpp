// Hostile requests over raw loopback TCP to the real server (issue 10, item 6): each kind
// gets its status and the C-2 error shape, and afterwards the server is alive and its
// state unchanged (C-3): same events, same timers, no new session, no new task.
#include <catch2/catch.hpp>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "http_test_client.hpp"
#include "test_server.hpp"
#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/reference_server/core.hpp"
#include "toolwire/reference_server/router.hpp"

using namespace toolwire::test;
using namespace std::string_literals;

namespace {

//! What a case may refer to: the fixture's session, its client and a completed call.
struct fixture_ids {
  std::string sid;
  std::string token;
  std::string cid;          // live client "web" with tool read_form
  std::string deleted_cid;  // a client already deleted once
  std::string call_id;      // a call of cid, acked and completed
};

//! Builds a request: `head` is the request line and headers without the final CRLF.
std::string with_body(const std::string& head, const std::string& body) {
  return head + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string bearer(const std::string& credential) {
  return "Authorization: Bearer " + credential + "\r\n";
}

//! A POST with a body, Host, the session token and Connection: close.
std::string post(const fixture_ids& f, const std::string& path, const std::string& body) {
  return with_body("POST " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
                       bearer(f.token) + "Content-Type: application/json\r\n",
                   body);
}

std::string post_admin(const std::string& path, const std::string& body) {
  return with_body("POST " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
                       bearer(admin_key) + "Content-Type: application/json\r\n",
                   body);
}

std::string bodiless(const std::string& method, const std::string& path,
                     const std::string& credential_line) {
  return method + " " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + credential_line +
         "\r\n";
}

std::string clients(const fixture_ids& f) {
  return "/v1/sessions/" + f.sid + "/clients";
}

std::string call_path(const fixture_ids& f, const std::string& what) {
  return clients(f) + "/" + f.cid + "/calls/" + f.call_id + "/" + what;
}

std::string registration(const std::string& lifetime_seconds) {
  return R"({"name": "n", "lifetime": {"type": "ttl", "data": {"seconds": )" + lifetime_seconds +
         "}}}";
}

std::string deep(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

std::string with_tool_parameters(const std::string& parameters) {
  return R"({"name": "n", "lifetime": {"type": "never"}, "tools": [{"name": "t",
      "description": "d", "parameters": )" +
         parameters + "}]}";
}

struct hostile_case {
  hostile_case(std::string name_, std::function<std::string(const fixture_ids&)> bytes_,
               int status_, std::string type_, bool must_close_ = false, bool half_close_ = false)
      : name(std::move(name_)),
        bytes(std::move(bytes_)),
        status(status_),
        type(std::move(type_)),
        must_close(must_close_),
        half_close(half_close_) {}

  std::string name;
  std::function<std::string(const fixture_ids&)> bytes;
  int status;        // 0: no answer is expected
  std::string type;  // the C-2 error type expected with it
  bool must_close;   // the server must end the connection (e.g. RFC 9112 section 6.3)
  bool half_close;   // the client stops sending after its bytes
};

std::vector<hostile_case> cases() {
  using F = const fixture_ids&;
  const std::string bad = "invalid_request";
  std::vector<hostile_case> list = {
      // -- JSON shape, types, numbers, depth ----------------------------------------
      {"body is an array", [](F f) { return post(f, clients(f), "[]"); }, 400, bad},
      {"body is a string", [](F f) { return post(f, clients(f), "\"x\""); }, 400, bad},
      {"body is a number", [](F f) { return post(f, clients(f), "5"); }, 400, bad},
      {"body is null", [](F f) { return post(f, clients(f), "null"); }, 400, bad},
      {"body is empty", [](F f) { return post(f, clients(f), ""); }, 400, bad},
      {"trailing garbage", [](F f) { return post(f, clients(f), "{} x"); }, 400, bad},
      {"NUL byte in the body", [](F f) { return post(f, clients(f), "{\0}"s); }, 400, bad},
      {"name is a number",
       [](F f) { return post(f, clients(f), R"({"name": 5, "lifetime": {"type": "never"}})"); },
       400, bad},
      {"name missing",
       [](F f) { return post(f, clients(f), R"({"lifetime": {"type": "never"}})"); }, 400, bad},
      {"lifetime is a string",
       [](F f) { return post(f, clients(f), R"({"name": "n", "lifetime": "never"})"); }, 400, bad},
      {"ttl 0", [](F f) { return post(f, clients(f), registration("0")); }, 400, bad},
      {"ttl 86401", [](F f) { return post(f, clients(f), registration("86401")); }, 400, bad},
      {"ttl 1.5", [](F f) { return post(f, clients(f), registration("1.5")); }, 400, bad},
      {"ttl 1e400", [](F f) { return post(f, clients(f), registration("1e400")); }, 400, bad},
      {"ttl -1e999", [](F f) { return post(f, clients(f), registration("-1e999")); }, 400, bad},
      {"ttl 2^64", [](F f) { return post(f, clients(f), registration("18446744073709551616")); },
       400, bad},
      {"tools is an object",
       [](F f) {
         return post(f, clients(f), R"({"name": "n", "lifetime": {"type": "never"}, "tools": {}})");
       },
       400, bad},
      {"parameters of type array",
       [](F f) { return post(f, clients(f), with_tool_parameters(R"({"type": "array"})")); }, 400,
       bad},
      {"parameters 100,000 deep",
       [](F f) { return post(f, clients(f), with_tool_parameters(deep(100'000))); }, 400, bad},
      {"parameters making the body 129 deep (one over the limit)",
       [](F f) {
         // body { tools [ tool { parameters { + 125 arrays = 129 levels
         return post(
             f, clients(f),
             with_tool_parameters("{\"a\":" + deep(toolwire::protocol::max_json_depth - 3) + "}"));
       },
       400, bad},
      {"whole body 200,000 deep", [](F f) { return post(f, clients(f), deep(200'000)); }, 400, bad},
      {"result content 70,000 deep",
       [](F f) { return post(f, call_path(f, "result"), "{\"content\": " + deep(70'000) + "}"); },
       400, bad},
      {"result content 1e400",
       [](F f) { return post(f, call_path(f, "result"), R"({"content": 1e400})"); }, 400, bad},
      {"result with both content and error",
       [](F f) { return post(f, call_path(f, "result"), R"({"content": 1, "error": "e"})"); }, 400,
       bad},
      {"message content is a number",
       [](F f) { return post(f, "/v1/sessions/" + f.sid + "/messages", R"({"content": 5})"); }, 400,
       bad},
      {"advance ms 1e400",
       [](F) { return post_admin("/v1/_test/clock/advance", R"({"ms": 1e400})"); }, 400, bad},
      {"advance ms -1", [](F) { return post_admin("/v1/_test/clock/advance", R"({"ms": -1})"); },
       400, bad},
      {"advance ms \"5\"",
       [](F) { return post_admin("/v1/_test/clock/advance", R"({"ms": "5"})"); }, 400, bad},
      {"task assistant_id -1e999",
       [](F) {
         return post_admin("/api/tasks",
                           R"({"assistant_id": -1e999, "input": [{"type": "text", "text": "a"}]})");
       },
       400, bad},
      {"task assistant_id 1.5",
       [](F) {
         return post_admin("/api/tasks",
                           R"({"assistant_id": 1.5, "input": [{"type": "text", "text": "a"}]})");
       },
       400, bad},
      {"task input empty",
       [](F) { return post_admin("/api/tasks", R"({"assistant_id": 1, "input": []})"); }, 400, bad},
      // -- strings and UTF-8, boundaries --------------------------------------------
      {"0xFF in a string",
       [](F f) {
         return post(f, "/v1/sessions/" + f.sid + "/messages", "{\"content\": \"\xFF\"}");
       },
       400, bad},
      {"C3 28 in a string",
       [](F f) {
         return post(f, "/v1/sessions/" + f.sid + "/messages", "{\"content\": \"\xC3\x28\"}");
       },
       400, bad},
      {"overlong C0 AF in a string",
       [](F f) {
         return post(f, "/v1/sessions/" + f.sid + "/messages", "{\"content\": \"\xC0\xAF\"}");
       },
       400, bad},
      {"surrogate ED A0 80 in a string",
       [](F f) {
         return post(f, "/v1/sessions/" + f.sid + "/messages", "{\"content\": \"\xED\xA0\x80\"}");
       },
       400, bad},
      {"F4 90 80 80 in a string",
       [](F f) {
         return post(f, "/v1/sessions/" + f.sid + "/messages",
                     "{\"content\": \"\xF4\x90\x80\x80\"}");
       },
       400, bad},
      {"0xFE in a task's text, with the key that has no scope",
       [](F) {
         return with_body(
             "POST /api/tasks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + bearer(plain_key),
             "{\"assistant_id\": 1, \"input\": [{\"type\": \"text\", \"text\": "
             "\"\xFE\"}]}");
       },
       400, bad},
      {"lone surrogate escape \\ud800",
       [](F f) {
         return post(f, "/v1/sessions/" + f.sid + "/messages", R"({"content": "\ud800"})");
       },
       400, bad},
      {"invalid UTF-8 in a tool name",
       [](F f) {
         return post(f, clients(f), R"({"name": "n", "lifetime": {"type": "never"}, "tools": [
             {"name": ")" + "\xFF"s + R"(", "description": "d", "parameters": {}}]})");
       },
       400, bad},
      {"invalid UTF-8 in the path",
       [](F) { return std::string("GET /\xFF HTTP/1.1\r\nHost: x\r\n\r\n"); }, 400, bad, true},
      {"invalid UTF-8 in a session id",
       [](F f) { return bodiless("DELETE", clients(f) + "/cli_\xC0\xAF", bearer(f.token)); }, 400,
       bad, true},
      {"invalid UTF-8 in a header value",
       [](F) { return bodiless("GET", "/v1/_test/clock", "X-Note: \xFE\xFF\r\n"); }, 400, bad,
       true},
      {"invalid UTF-8 in the bearer credential",
       [](F) { return bodiless("GET", "/v1/_test/clock", bearer("\xED\xA0\x80")); }, 400, bad,
       true},
      {"invalid UTF-8 in a decoded query",
       [](F f) {
         return bodiless("GET", "/v1/sessions/" + f.sid + "/events?access_token=%FF", "");
       },
       400, bad, true},
      {"client name of 65 characters",
       [](F f) {
         return post(
             f, clients(f),
             R"({"name": ")" + std::string(65, 'a') + R"(", "lifetime": {"type": "never"}})");
       },
       400, bad},
      {"description of 4097 characters",
       [](F f) {
         return post(f, clients(f),
                     R"({"name": "n", "lifetime": {"type": "never"}, "tools": [{"name": "t",
                     "description": ")" +
                         std::string(4097, 'd') + R"(", "parameters": {}}]})");
       },
       400, bad},
      {"duplicate tool names",
       [](F f) {
         return post(f, clients(f), R"({"name": "n", "lifetime": {"type": "never"}, "tools": [
             {"name": "t", "description": "d", "parameters": {}},
             {"name": "t", "description": "d", "parameters": {}}]})");
       },
       400, bad},
      // -- sizes and lying lengths --------------------------------------------------
      {"body of 1 MiB + 1",
       [](F f) {
         return post(f, clients(f),
                     std::string(toolwire::reference_server::max_body_bytes + 1, ' '));
       },
       413, "payload_too_large", true},
      {"chunked body over 1 MiB",
       [](F f) {
         const std::string chunk(64 * 1024, ' ');
         std::string out = "POST " + clients(f) + " HTTP/1.1\r\nHost: x\r\n" + bearer(f.token) +
                           "Transfer-Encoding: chunked\r\n\r\n";
         for (int i = 0; i < 17; ++i)
           out += "10000\r\n" + chunk + "\r\n";
         return out + "0\r\n\r\n";
       },
       413, "payload_too_large", true},
      {"Content-Length larger than the body, then EOF",
       [](F f) {
         return "POST " + clients(f) + " HTTP/1.1\r\nHost: x\r\n" + bearer(f.token) +
                "Content-Length: 100\r\n\r\n{}";
       },
       0, "", true, true},
      {"Content-Length smaller than the body",
       [](F f) {
         return "POST " + clients(f) + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
                bearer(f.token) + "Content-Length: 5\r\n\r\n" + registration("10");
       },
       400, bad},
      {"Content-Length not a number",
       [](F f) {
         return "POST " + clients(f) + " HTTP/1.1\r\nHost: x\r\n" + bearer(f.token) +
                "Content-Length: abc\r\n\r\n{}";
       },
       400, bad, true},
      {"Content-Length negative",
       [](F f) {
         return "POST " + clients(f) + " HTTP/1.1\r\nHost: x\r\n" + bearer(f.token) +
                "Content-Length: -2\r\n\r\n{}";
       },
       400, bad, true},
      {"two different Content-Lengths",
       [](F f) {
         return "POST " + clients(f) + " HTTP/1.1\r\nHost: x\r\n" + bearer(f.token) +
                "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{} ";
       },
       400, bad, true},
      {"a header section over the limit",
       [](F) {
         return "GET /v1/_test/clock HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20'000, 'b') +
                "\r\n\r\n";
       },
       400, bad, true},
      {"a bad chunk size",
       [](F f) {
         return "POST " + clients(f) + " HTTP/1.1\r\nHost: x\r\n" + bearer(f.token) +
                "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n";
       },
       400, bad, true},
      // -- paths, methods, auth -----------------------------------------------------
      {"unknown path", [](F) { return bodiless("GET", "/v1/nothing", bearer(admin_key)); }, 404,
       "not_found"},
      {"PATCH on /v1/sessions",
       [](F) { return bodiless("PATCH", "/v1/sessions", bearer(admin_key)); }, 405,
       "method_not_allowed"},
      {"an unknown method", [](F) { return bodiless("BREW", "/v1/sessions", bearer(admin_key)); },
       405, "method_not_allowed"},
      {"dot segments", [](F) { return bodiless("POST", "/v1/x/../sessions", bearer(admin_key)); },
       404, "not_found"},
      {"percent-encoded route",
       [](F) { return bodiless("POST", "/v1/%73essions", bearer(admin_key)); }, 404, "not_found"},
      {"double slash", [](F) { return bodiless("POST", "//v1/sessions", bearer(admin_key)); }, 404,
       "not_found"},
      {"a 4000-character path",
       [](F) { return bodiless("GET", "/v1/" + std::string(4000, 'p'), bearer(admin_key)); }, 404,
       "not_found"},
      {"no credential",
       [](F f) { return with_body("POST " + clients(f) + " HTTP/1.1\r\nHost: x\r\n", "{}"); }, 401,
       "unauthenticated"},
      {"empty bearer", [](F f) { return bodiless("DELETE", clients(f) + "/" + f.cid, bearer("")); },
       401, "unauthenticated"},
      {"Basic scheme",
       [](F f) {
         return bodiless("DELETE", clients(f) + "/" + f.cid, "Authorization: Basic YTpi\r\n");
       },
       401, "unauthenticated"},
      {"unknown key",
       [](F f) { return bodiless("DELETE", clients(f) + "/" + f.cid, bearer("nope")); }, 401,
       "unauthenticated"},
      {"the token on another session",
       [](F f) {
         return bodiless("DELETE", "/v1/sessions/ses_999/clients/" + f.cid, bearer(f.token));
       },
       403, "forbidden"},
      {"a key without session.manage creates a session",
       [](F) { return bodiless("POST", "/v1/sessions", bearer(plain_key)); }, 403, "forbidden"},
      {"a session token creates a session",
       [](F f) { return bodiless("POST", "/v1/sessions", bearer(f.token)); }, 403, "forbidden"},
      {"a session token on Part B",
       [](F f) { return bodiless("GET", "/api/tasks/x", bearer(f.token)); }, 403, "forbidden"},
      {"a session token on the clock",
       [](F f) { return post(f, "/v1/_test/clock/advance", R"({"ms": 1})"); }, 403, "forbidden"},
      // -- protocol misuse ----------------------------------------------------------
      {"a second result", [](F f) { return post(f, call_path(f, "result"), R"({"content": 2})"); },
       409, "conflict"},
      {"an ack after the result", [](F f) { return post(f, call_path(f, "ack"), ""); }, 409,
       "conflict"},
      {"DELETE a client twice",
       [](F f) { return bodiless("DELETE", clients(f) + "/" + f.deleted_cid, bearer(f.token)); },
       404, "not_found"},
      {"a result for an unknown call",
       [](F f) {
         return post(f, clients(f) + "/" + f.cid + "/calls/call_999/result", R"({"content": 1})");
       },
       404, "not_found"},
      {"a result for another client's call",
       [](F f) {
         return post(f, clients(f) + "/" + f.deleted_cid + "/calls/" + f.call_id + "/result",
                     R"({"content": 1})");
       },
       404, "not_found"},
      {"tool results for an unknown task",
       [](F) { return post_admin("/api/tasks/nope/tool-results", R"({"tool_results": []})"); }, 404,
       "not_found"},
      {"a garbage Last-Event-ID",
       [](F f) {
         return bodiless("GET", "/v1/sessions/" + f.sid + "/events",
                         bearer(f.token) + "Last-Event-ID: -3\r\n");
       },
       400, bad},
      // -- transport ----------------------------------------------------------------
      {"smuggling: Transfer-Encoding identity",
       [](F) {
         return "POST /v1/sessions HTTP/1.1\r\nHost: x\r\n" + bearer(admin_key) +
                "Transfer-Encoding: identity\r\n\r\nPOST /v1/sessions HTTP/1.1\r\nHost: x\r\n" +
                bearer(admin_key) + "\r\n";
       },
       400, bad, true},
      {"smuggling: Transfer-Encoding gzip",
       [](F) {
         return "POST /v1/sessions HTTP/1.1\r\nHost: x\r\n" + bearer(admin_key) +
                "Transfer-Encoding: gzip\r\n\r\nPOST /v1/sessions HTTP/1.1\r\nHost: x\r\n" +
                bearer(admin_key) + "\r\n";
       },
       400, bad, true},
      {"smuggling: chunked then identity",
       [](F) {
         return "POST /v1/sessions HTTP/1.1\r\nHost: x\r\n" + bearer(admin_key) +
                "Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n";
       },
       400, bad, true},
      {"smuggling: Content-Length with Transfer-Encoding",
       [](F) {
         return "POST /v1/sessions HTTP/1.1\r\nHost: x\r\n" + bearer(admin_key) +
                "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
       },
       400, bad, true},
      {"Transfer-Encoding in HTTP/1.0",
       [](F) {
         return "POST /v1/sessions HTTP/1.0\r\n" + bearer(admin_key) +
                "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
       },
       400, bad, true},
      {"HTTP/1.1 without Host",
       [](F) { return "POST /v1/sessions HTTP/1.1\r\n" + bearer(admin_key) + "\r\n"; }, 400, bad,
       true},
      {"two Host headers",
       [](F) {
         return "POST /v1/sessions HTTP/1.1\r\nHost: a\r\nHost: b\r\n" + bearer(admin_key) + "\r\n";
       },
       400, bad, true},
      {"HTTP/0.9", [](F) { return std::string("GET /v1/_test/clock\r\n\r\n"); }, 400, bad, true},
      {"an HTTP/2 preface", [](F) { return std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"); }, 400,
       bad, true},
      {"not HTTP at all", [](F) { return "\x16\x03\x01\x02\x00\x01\r\n\r\n"s; }, 400, bad, true},
      {"a header without a colon",
       [](F) { return std::string("GET /v1/_test/clock HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n"); },
       400, bad, true},
      {"a NUL in a header",
       [](F) { return "GET /v1/_test/clock HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n"s; }, 400, bad,
       true},
      {"pipelined: a good request, then a smuggling one",
       [](F) {
         return "GET /v1/_test/clock HTTP/1.1\r\nHost: x\r\n" + bearer(admin_key) + "\r\n" +
                "POST /v1/sessions HTTP/1.1\r\nHost: x\r\n" + bearer(admin_key) +
                "Transfer-Encoding: identity\r\n\r\n";
       },
       400, bad, true},
  };
  return list;
}

//! What must not change: the session's events, the core's next timer, the token's access.
struct state_print {
  std::size_t events = 0;
  std::uint64_t last_seq = 0;
  std::optional<toolwire::protocol::time_ms> next_deadline;
  bool token_known = false;

  bool operator==(const state_print&) const = default;
};

state_print print_of(const test_server& server, const fixture_ids& f) {
  return server.inspect([&](const toolwire::reference_server::core& core) {
    state_print print;
    const auto window = core.events_after(f.sid, 0);
    print.events = window.events.size();
    print.last_seq = window.events.empty() ? 0 : window.events.back().seq;
    print.next_deadline = core.next_deadline();
    print.token_known = core.identify(f.token).session_id == f.sid;
    return print;
  });
}

//! A session with a live client, a deleted client and a completed call; the turn ended.
fixture_ids set_up(const test_server& server) {
  fixture_ids f;
  const auto session = server.create_session();
  f.sid = session.id;
  f.token = session.token;
  const std::string base = "/v1/sessions/" + f.sid;
  sse_stream stream(server.endpoint(), base + "/events", f.token);
  auto web = request_json(server.endpoint(), "POST", base + "/clients",
                          client_body("web", {"read_form"}), f.token);
  REQUIRE(web.status == 201);
  f.cid = web.json_body().at("client_id").get<std::string>();
  auto gone =
      request_json(server.endpoint(), "POST", base + "/clients", client_body("gone", {}), f.token);
  REQUIRE(gone.status == 201);
  f.deleted_cid = gone.json_body().at("client_id").get<std::string>();
  REQUIRE(request(server.endpoint(), "DELETE", base + "/clients/" + f.deleted_cid, {}, f.token)
              .status == 204);
  REQUIRE(request_json(server.endpoint(), "POST", base + "/messages", {{"content", "form please"}},
                       f.token)
              .status == 202);
  const auto dispatched = stream.until("client_tool_dispatched");
  f.call_id = dispatched.back().data.at("call_id").get<std::string>();
  const std::string call = base + "/clients/" + f.cid + "/calls/" + f.call_id;
  REQUIRE(request(server.endpoint(), "POST", call + "/ack", {}, f.token).status == 200);
  REQUIRE(request_json(server.endpoint(), "POST", call + "/result", {{"content", "ok"}}, f.token)
              .status == 200);
  stream.until("turn_completed");
  return f;
}

test_server_options hostile_options() {
  test_server_options options;
  options.log_requests = false;
  options.script = json::parse(R"({"rules": [{"match": "form", "steps": [
      {"tool_calls": [{"name": "web__read_form", "arguments": {}}]},
      {"content": "done"}]}]})");
  return options;
}

}  // namespace

TEST_CASE("hostile requests: status, error shape, and the server alive and unchanged (C-3)",
          "[http][hostile]") {
  static const std::vector<hostile_case> all = cases();
  REQUIRE(all.size() >= 60);
  const auto index = GENERATE(range(std::size_t{0}, all.size()));
  const hostile_case& kind = all[index];
  INFO("case " << index << ": " << kind.name);

  test_server server(hostile_options());
  const fixture_ids f = set_up(server);
  const state_print before = print_of(server, f);

  const raw_outcome outcome =
      raw_exchange(server.endpoint(), kind.bytes(f), 4, kind.half_close, 3s);
  if (kind.status == 0) {
    CHECK(outcome.replies.empty());
  } else {
    REQUIRE_FALSE(outcome.replies.empty());
    const http_reply& reply = outcome.replies.back();
    CHECK(reply.status == kind.status);
    // C-2: {"error": {"type", "message"}}, as valid UTF-8 JSON.
    const json body = reply.json_body();
    REQUIRE(body.is_object());
    REQUIRE(body.contains("error"));
    CHECK(body["error"].value("type", "") == kind.type);
    CHECK(body["error"]["message"].is_string());
    CHECK(toolwire::protocol::first_invalid_utf8(reply.body) == std::string_view::npos);
  }
  if (kind.must_close) CHECK(outcome.closed);

  // Alive and unchanged: same events and timers, the client still answers, and the next
  // session and the first task are still to come.
  CHECK_FALSE(server.thread_done());
  CHECK(print_of(server, f) == before);
  CHECK(
      request(server.endpoint(), "POST", clients(f) + "/" + f.cid + "/ping", {}, f.token).status ==
      200);
  CHECK(server.create_session().id == "ses_2");
  CHECK(request(server.endpoint(), "GET", "/api/tasks/00000000-0000-4000-8000-000000000001", {},
                admin_key)
            .status == 404);
}

TEST_CASE("a client that resets mid-request leaves the server serving", "[http][hostile]") {
  test_server server(hostile_options());
  const fixture_ids f = set_up(server);
  const state_print before = print_of(server, f);
  const auto part =
      GENERATE(as<std::string>{}, "POST /v1/sess", "POST /v1/sessions HTTP/1.1\r\n",
               "POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{");
  CAPTURE(part);
  send_and_reset(server.endpoint(), part);
  CHECK(
      request(server.endpoint(), "POST", clients(f) + "/" + f.cid + "/ping", {}, f.token).status ==
      200);
  CHECK(print_of(server, f) == before);
  CHECK(server.create_session().id == "ses_2");
}
