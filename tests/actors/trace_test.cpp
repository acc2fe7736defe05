// Traces: credentials redacted, JSON Lines round trip, errors naming the line, the FNV-1a hash.
#include <catch2/catch.hpp>

#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "actors/actor_test_support.hpp"
#include "toolwire/actors/trace_header.hpp"

using namespace toolwire::actor_test;
using toolwire::actors::redacted;

namespace {

//! Session tokens as the reference core issues them.
const std::regex session_token_pattern{"st_[0-9a-f]{32}"};

//! A copy of `run` with `change` applied to the record at `index`.
trace with_changed_record(const trace& run, std::size_t index,
                          const std::function<void(trace_record&)>& change) {
  trace edited;
  edited.set_header(run.header());
  for (std::size_t i = 0; i < run.records().size(); ++i) {
    trace_record r = run.records()[i];
    if (i == index) change(r);
    edited.add(r.at, r.actor, r.kind, r.data);
  }
  return edited;
}

//! A small trace with awkward values: unicode, escapes, big and negative numbers, null.
trace awkward_trace() {
  trace t;
  t.set_header({{"toolwire_trace", 1}, {"scenario", "awkward"}, {"seed", 18446744073709551615ULL}});
  t.add(0, "director", "request", {{"method", "POST"}, {"path", "/v1/sessions"}});
  t.add(5, "tab", "deliver", {{"text", "\xE6\x97\xA5\xE6\x9C\xAC \"quoted\" \\ \n tab\t"}});
  t.add(-3, "", "note", nullptr);
  t.add(9'007'199'254'740'993LL, "model", "model_reply",
        {{"n", -12}, {"x", 1.5}, {"list", {1, nullptr, true, "x", json::object()}}});
  return t;
}

}  // namespace

TEST_CASE("AUTH-5 credentials never appear in a trace", "[actors][trace][AUTH-5]") {
  // The pattern really describes the tokens the core hands out.
  toolwire::reference_server::core core{toolwire::reference_server::core_config{}};
  REQUIRE(std::regex_match(core.create_session(0)->token, session_token_pattern));

  const std::string name = GENERATE(from_range(trouble_scenarios));
  CAPTURE(name);
  const auto result = run(library_scenario(name), 11);
  const std::string text = result.trace.to_jsonl();

  CHECK(text.find(toolwire::actors::simulator_api_key) == std::string::npos);
  std::smatch leaked;
  const bool token_found = std::regex_search(text, leaked, session_token_pattern);
  INFO("leaked token: " << (token_found ? leaked.str() : ""));
  CHECK_FALSE(token_found);

  // The credentials were there: every request carried one, shown only as a mark.
  const auto requests = records(result.trace, "", "request");
  REQUIRE_FALSE(requests.empty());
  for (const auto& r : requests) {
    INFO(trace::line_of(r));
    CHECK(r.data["credential"] == redacted);
  }
  const auto created = exchanges(result.trace, "director", "response", "POST", "/v1/sessions");
  REQUIRE(created.size() == 1);
  CHECK(created[0].data["body"]["token"] == redacted);  // SES-1 gives it; the trace hides it
}

TEST_CASE("Secrets are redacted wherever they occur in recorded data", "[actors][trace][AUTH-5]") {
  trace t;
  t.add_secret("s3cr3t-key");
  t.add(1, "tab", "request",
        {{"note", "Bearer s3cr3t-key, then s3cr3t-key again"},
         {"list", {"x s3cr3t-key y", 7}},
         {"nested", {{"deeper", {{"value", "s3cr3t-key"}}}}},
         {"token", "a-token-nobody-registered"},
         {"api_key", "another"},
         {"access_token", "third"},
         {"authorization", "Bearer fourth"}});
  const json& data = t.records().at(0).data;
  CHECK(data["note"] == "Bearer <redacted>, then <redacted> again");
  CHECK(data["list"] == json{"x <redacted> y", 7});
  CHECK(data["nested"]["deeper"]["value"] == redacted);
  // Credential fields are redacted by name, even before their value is known as a secret.
  CHECK(data["token"] == redacted);
  CHECK(data["api_key"] == redacted);
  CHECK(data["access_token"] == redacted);
  CHECK(data["authorization"] == redacted);
  const std::string text = t.to_jsonl();
  for (const char* secret :
       {"s3cr3t-key", "a-token-nobody-registered", "another", "third", "fourth"}) {
    CAPTURE(secret);
    CHECK(text.find(secret) == std::string::npos);
  }
}

TEST_CASE("A short secret is redacted as a whole token, never inside other words",
          "[actors][trace][AUTH-5]") {
  // Regression: a test server's one-letter key "K" turned "Kyoto" into "<redacted>yoto" in
  // a tool result, and the run differed from the reference's (a false failure).
  trace t;
  t.add_secret("K");
  t.add_secret("long-enough-secret");
  t.add(1, "tab", "request",
        {{"path", "/v1/sessions/s/events?access_token=K"},
         {"header", "Bearer K"},
         {"quoted", "{\"key\":\"K\"}"},
         {"whole", "K"},
         {"city", "Kyoto, OK"},
         {"embedded", "xlong-enough-secrety"}});
  const json& data = t.records().at(0).data;
  CHECK(data["path"] == "/v1/sessions/s/events?access_token=<redacted>");
  CHECK(data["header"] == "Bearer <redacted>");
  CHECK(data["quoted"] == "{\"key\":\"<redacted>\"}");
  CHECK(data["whole"] == redacted);
  CHECK(data["city"] == "Kyoto, OK");
  // A secret long enough to be no accident goes wherever it is, inside words too.
  CHECK(data["embedded"] == "x<redacted>y");
}

TEST_CASE("A secret used as an object key is redacted too", "[actors][trace][AUTH-5]") {
  // Regression pin: trace::redact rewrites values only, so a credential that keys an object
  // (e.g. a map of sessions by token) is written to the JSONL in clear.
  trace t;
  t.add_secret("s3cr3t-key");
  t.add(1, "target", "note", {{"by_token", {{"s3cr3t-key", "ses_1"}}}});
  CHECK(t.to_jsonl().find("s3cr3t-key") == std::string::npos);
}

TEST_CASE("from_jsonl(to_jsonl()) gives back the header and every record", "[actors][trace]") {
  SECTION("a library scenario's run") {
    const std::string name = GENERATE(from_range(trouble_scenarios));
    CAPTURE(name);
    const auto result = run(library_scenario(name), 5);
    const std::string text = result.trace.to_jsonl();
    const auto parsed = trace::from_jsonl(text, name + ".jsonl");
    if (!parsed) FAIL(parsed.error().message);
    CHECK(parsed->header() == result.trace.header());
    CHECK(parsed->records() == result.trace.records());
    CHECK(parsed->to_jsonl() == text);
    CHECK(parsed->hash() == result.trace.hash());
  }
  SECTION("awkward values") {
    const trace original = awkward_trace();
    const auto parsed = trace::from_jsonl(original.to_jsonl(), "awkward.jsonl");
    if (!parsed) FAIL(parsed.error().message);
    CHECK(parsed->header() == original.header());
    CHECK(parsed->records() == original.records());
    CHECK(parsed->to_jsonl() == original.to_jsonl());
  }
  SECTION("a header alone is an empty run") {
    const auto parsed = trace::from_jsonl("{\"toolwire_trace\":1}\n", "empty.jsonl");
    if (!parsed) FAIL(parsed.error().message);
    CHECK(parsed->records().empty());
    CHECK(parsed->header() == json{{"toolwire_trace", 1}});
  }
}

TEST_CASE("A malformed trace gives an error that names the line", "[actors][trace]") {
  const std::string header = "{\"toolwire_trace\":1}\n";
  const std::string good = "{\"t\":0,\"actor\":\"tab\",\"kind\":\"act\",\"data\":{}}\n";
  const auto [text, where] = GENERATE_COPY(table<std::string, std::string>({
      {header + "{not json\n", "run.jsonl:2: "},
      {header + good + "[1, 2]\n", "run.jsonl:3: "},
      {header + good + good + "{\"t\":\"soon\",\"actor\":\"tab\",\"kind\":\"act\"}\n",
       "run.jsonl:4: "},
      {header + "{\"t\":1,\"kind\":\"act\"}\n", "run.jsonl:2: "},
      {header + "{\"t\":1,\"actor\":\"tab\"}\n", "run.jsonl:2: "},
      {header + good + "\n" + "{\"t\":1,\"actor\":7,\"kind\":\"act\"}\n", "run.jsonl:4: "},
      {"\"just a string\"\n" + good, "run.jsonl:1: "},
      {header + good + "{\"t\":1,\"actor\":\"tab\",\"kind\":\"act\"", "run.jsonl:3: "},
  }));
  CAPTURE(text);
  const auto parsed = trace::from_jsonl(text, "run.jsonl");
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().message.rfind(where, 0) == 0);
  CHECK(parsed.error().code == toolwire::protocol::error_code::invalid_request);
}

TEST_CASE("An empty trace is an error naming its source", "[actors][trace]") {
  const auto parsed = trace::from_jsonl("", "nothing.jsonl");
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().message.rfind("nothing.jsonl", 0) == 0);
}

TEST_CASE("The trace hash is FNV-1a 64 of the JSONL and changes with any record",
          "[actors][trace]") {
  SECTION("FNV-1a 64 reference values") {
    CHECK(toolwire::actors::fnv1a_hex("") == "cbf29ce484222325");
    CHECK(toolwire::actors::fnv1a_hex("a") == "af63dc4c8601ec8c");
    CHECK(toolwire::actors::fnv1a_hex("foobar") == "85944171f73967e8");
  }
  const auto result = run(library_scenario("two_clients_one_vanishes"), 2);
  const trace& original = result.trace;
  REQUIRE(original.records().size() > 10);
  CHECK(original.hash() == toolwire::actors::fnv1a_hex(original.to_jsonl()));
  CHECK(original.hash().size() == 16);

  SECTION("an unchanged copy hashes the same") {
    CHECK(with_changed_record(original, 0, [](trace_record&) {}).hash() == original.hash());
  }
  SECTION("a record's time, actor, kind or data") {
    const std::size_t middle = original.records().size() / 2;
    CHECK(with_changed_record(original, middle, [](trace_record& r) { ++r.at; }).hash() !=
          original.hash());
    CHECK(with_changed_record(original, middle, [](trace_record& r) { r.actor += "x"; }).hash() !=
          original.hash());
    CHECK(with_changed_record(original, middle, [](trace_record& r) { r.kind += "x"; }).hash() !=
          original.hash());
    CHECK(with_changed_record(original, middle, [](trace_record& r) {
            r.data["extra"] = 1;
          }).hash() != original.hash());
  }
  SECTION("the last record only") {
    const std::size_t last = original.records().size() - 1;
    CHECK(with_changed_record(original, last, [](trace_record& r) { r.at += 1; }).hash() !=
          original.hash());
  }
  SECTION("two records swapped") {
    trace swapped;
    swapped.set_header(original.header());
    auto records = original.records();
    std::swap(records[1], records[2]);
    REQUIRE_FALSE(records[1] == records[2]);
    for (const auto& r : records)
      swapped.add(r.at, r.actor, r.kind, r.data);
    CHECK(swapped.hash() != original.hash());
  }
  SECTION("the header (another seed)") {
    trace reseeded = with_changed_record(original, 0, [](trace_record&) {});
    json header = original.header();
    header["seed"] = 3;
    reseeded.set_header(header);
    CHECK(reseeded.hash() != original.hash());
  }
}

TEST_CASE("records_hash ignores the header, so two seeds with one interleaving compare equal",
          "[actors][trace]") {
  trace a, b;
  a.set_header({{"seed", 1}});
  b.set_header({{"seed", 2}});
  for (trace* t : {&a, &b})
    t->add(5, "target", "timer", {{"due", 5}});
  CHECK(a.hash() != b.hash());
  CHECK(a.records_hash() == b.records_hash());
  b.add(6, "target", "timer", {{"due", 6}});
  CHECK(a.records_hash() != b.records_hash());
}

TEST_CASE("A trace header reads back as it was written, field for field",
          "[actors][trace][header]") {
  using toolwire::actors::recorded_target;
  using toolwire::actors::trace_header;
  trace_header written;
  written.scenario = "tab closes";
  written.source = "library:tab_closes_mid_call";
  written.seed = 18'446'744'073'709'551'615ULL;  // the largest seed survives JSON
  written.registration_order = {"tab-b", "tab-a"};
  written.call_deadlines_ms = trace_header::call_deadlines{1000, 3000};
  written.stream_lag_ms = 150;
  written.harness_late_ms = 1'652;
  written.faults = std::vector<std::string>{"vanished_calls_left_open"};
  SECTION("each kind of target") {
    recorded_target target;
    target.where = GENERATE(recorded_target::kind::in_process, recorded_target::kind::bundled,
                            recorded_target::kind::profile, recorded_target::kind::profile_flags);
    if (target.where == recorded_target::kind::bundled) target.variations = {"opaque_ids"};
    if (target.where == recorded_target::kind::profile) target.profile = "../acme.json";
    if (target.where == recorded_target::kind::profile_flags)
      target.profile_flags = {"--base-url", "http://127.0.0.1:8080", "--api-key-env", "KEY"};
    written.target = target;
    const auto read = trace_header::from_json(written.to_json(), "run.jsonl");
    if (!read) FAIL(read.error().message);
    CHECK(*read == written);
  }
  SECTION("a run's own header: the simulator writes what the typed header reads") {
    const auto result = run(library_scenario("tab_closes_mid_call"), 3);
    const auto read = trace_header::from_json(result.trace.header(), "run.jsonl");
    if (!read) FAIL(read.error().message);
    CHECK(read->source == "test:" + result.trace.header()["scenario"].get<std::string>());
    CHECK(read->seed == 3);
    CHECK(read->to_json() == result.trace.header());
  }
}

TEST_CASE("A trace header as written before it was typed reads to the same line",
          "[actors][trace][header]") {
  // Lines as toolwire 26cf4b0 wrote them (simulate --bundled --variation, --target, flags):
  // replay of an old trace goes where it went, and writing the header again changes no byte.
  const std::string line = GENERATE(
      R"({"faults":[],"scenario":"s","seed":7,"source":"a.yaml","target":{"bundled":true,"variations":["opaque_ids"]},"toolwire_trace":1})",
      R"({"call_deadlines_ms":{"ack":1000,"result":3000},"faults":[],"scenario":"s","seed":1,"source":"a.yaml","stream_lag_ms":200,"target":{"profile":"p.json"},"toolwire_trace":1})",
      R"({"faults":["invalid_tool_name_accepted"],"scenario":"s","seed":2,"source":"a.yaml","target":"in-process","toolwire_trace":1})",
      R"({"faults":[],"scenario":"s","seed":3,"source":"a.yaml","target":{"profile_flags":["--base-url","http://h:1"]},"toolwire_trace":1})");
  CAPTURE(line);
  const auto read = toolwire::actors::trace_header::from_json(json::parse(line), "old.jsonl");
  if (!read) FAIL(read.error().message);
  CHECK(read->to_json().dump() == line);
}

TEST_CASE("A trace header that cannot be read says which field and where",
          "[actors][trace][header]") {
  using toolwire::actors::trace_header;
  const auto error_of = [](const std::string& line) {
    const auto read = trace_header::from_json(json::parse(line), "bad.jsonl");
    REQUIRE_FALSE(read);
    return read.error().message;
  };
  CHECK(error_of(R"({"source":"a.yaml"})") ==
        "bad.jsonl:1: the trace header needs \"source\" (string) and \"seed\" (non-negative "
        "integer)");
  CHECK(error_of(R"({"source":"a.yaml","seed":-1})").find("\"seed\" (non-negative integer)") !=
        std::string::npos);
  CHECK(error_of(R"([1,2])") == "bad.jsonl:1: the trace header is not a JSON object");
  CHECK(error_of(R"({"source":"a","seed":1,"faults":"none"})") ==
        "bad.jsonl:1: the trace header has \"faults\" that must be an array of strings");
  CHECK(error_of(R"({"source":"a","seed":1,"target":{"bundled":false}})")
            .starts_with("bad.jsonl:1: the trace header \"target\" names no target"));
  CHECK(error_of(R"({"source":"a","seed":1,"target":{"profile":3}})")
            .find("a \"profile\" that is not a path") != std::string::npos);
  CHECK(error_of(R"({"source":"a","seed":1,"call_deadlines_ms":{"ack":"1s"}})")
            .find("\"call_deadlines_ms\" that is not {\"ack\": MS, \"result\": MS}") !=
        std::string::npos);
}
