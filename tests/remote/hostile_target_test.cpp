// A hostile target (issue 10, item 7): whatever way it misbehaves, the suite gives every
// case a verdict within its deadlines, writes all three reports, keeps its memory bounded
// and ends the run failed.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "remote/hostile_target.hpp"
#include "toolwire/conformance/catalog.hpp"
#include "toolwire/conformance/model_stand_in.hpp"
#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/conformance/runner.hpp"
#include "toolwire/reports/reports.hpp"

using namespace toolwire;
using namespace toolwire::remote_test;
using conformance::json;

namespace {

using steady = std::chrono::steady_clock;
constexpr int request_timeout_ms = 300;

//! A field of /proc/self/status in KiB (VmRSS, VmHWM), 0 when unreadable.
std::uint64_t status_kib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with(field + ":")) return std::stoull(line.substr(field.size() + 1));
  }
  return 0;
}

//! Resets VmHWM to the current RSS (Linux clear_refs 5); false where not allowed.
bool reset_peak_memory() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

//! A few small cases: one request, an event stream by query, one by Last-Event-ID.
std::vector<conformance::catalog_case> few_cases() {
  auto catalog = conformance::load_catalog(conformance::default_catalog_dir());
  REQUIRE(catalog.ok());
  std::vector<conformance::catalog_case> picked;
  for (auto& c : *catalog) {
    if (c.id == "ses.create-session-201" || c.id == "auth.events-access-token-query" ||
        c.id == "ses.last-event-id-beyond-latest") {
      picked.push_back(std::move(c));
    }
  }
  REQUIRE(picked.size() == 3);
  return picked;
}

//! The profile of a hostile target whose model calls go to `stand_in`.
protocol::outcome<conformance::target_profile> hostile_profile(
    const hostile_target& target, const conformance::model_stand_in& stand_in,
    const std::vector<std::string>& parts = {"A"}) {
  const json doc = {{"name", "hostile"},
                    {"base_url", "http://" + target.address().to_string()},
                    {"api_key", "hostile-key-31f4"},
                    {"parts", parts},
                    {"assistant_id", 1},
                    {"model_stand_in", stand_in.address().to_string()},
                    {"clock", "virtual"},
                    {"request_timeout_ms", request_timeout_ms}};
  return conformance::parse_profile(doc.dump(), "hostile.json");
}

}  // namespace

TEST_CASE("A hostile target gets verdicts, reports and a failed run", "[remote][hostile]") {
  const auto how = GENERATE(from_range(all_misbehaviours()));
  CAPTURE(to_string(how));
  hostile_target target(how);
  auto stand_in = conformance::model_stand_in::at({"127.0.0.1", 0});
  REQUIRE(stand_in.ok());
  auto profile = hostile_profile(target, **stand_in);
  REQUIRE(profile.ok());
  conformance::target_choice choice;
  auto& profiled = choice.kind.emplace<conformance::profiled_server>();
  profiled.profile = *profile;
  profiled.path = "hostile.json";
  const auto cases = few_cases();

  const auto rss_before = status_kib("VmRSS");
  const bool peak_known = reset_peak_memory();
  const auto started = steady::now();
  auto results = conformance::run_cases(cases, choice, {});
  const auto took = steady::now() - started;
  REQUIRE(results.ok());

  // Every case has a verdict within its deadlines, a failing one unless the target's
  // answers were plausible and only its event streams misbehave: a one-step case may
  // end before a stream's garbage arrives, so there the run as a whole must fail. A
  // target that does not answer in time gets no SPEC verdict at all: each case is an
  // error (the target did not answer), the run is not green, and it is no failure.
  const bool streams_only = how == misbehaviour::garbage_sse ||
                            how == misbehaviour::huge_sse_line ||
                            how == misbehaviour::wrong_json_types;
  const bool never_answers = how == misbehaviour::silent || how == misbehaviour::slowloris;
  REQUIRE(results->size() == cases.size());
  std::size_t failed = 0;
  for (const auto& r : *results) {
    CAPTURE(r.id, conformance::texts_of(r.evidence));
    CHECK(r.verdict != conformance::verdict::not_applicable);
    if (r.verdict == conformance::verdict::fail) ++failed;
    if (never_answers) {
      CHECK(r.verdict == conformance::verdict::error);
      REQUIRE_FALSE(r.evidence.empty());
      CHECK_THAT(r.evidence.front().text(), Catch::StartsWith("the target did not answer: "));
    } else if (!streams_only) {
      CHECK(r.verdict == conformance::verdict::fail);
      CHECK_FALSE(r.evidence.empty());
    }
    CHECK(r.seconds < 10 * request_timeout_ms / 1000.0);  // ten requests timing out
  }
  if (!never_answers) CHECK(failed >= 1);
  CHECK(took < std::chrono::seconds(15));

  // All reports are written, from outside data that is escaped, never raw.
  reports::run_summary summary{"hostile", 1, 1.0, {}, 0, 0};
  const auto report = reports::json_report(*results, summary);
  std::string json_text;
  REQUIRE_NOTHROW(json_text = report.dump(1));  // strict: would throw on a raw byte
  CHECK(json::parse(json_text)["totals"]["fail"] == failed);
  const auto junit = reports::junit_xml(*results, summary);
  CHECK_FALSE(conformance::first_invalid_utf8(junit));
  CHECK(junit.find(never_answers ? "<error" : "<failure") != std::string::npos);
  const auto markdown = reports::markdown_summary(*results, summary);
  CHECK_FALSE(conformance::first_invalid_utf8(markdown));
  CHECK(reports::status_of(*results, summary).exit_code == (never_answers ? 2 : 1));

  // Memory stays bounded: the oversized answers are cut off, not buffered whole.
  if (how == misbehaviour::huge_body) CHECK(target.bytes_sent() < (48u << 20));
  if (peak_known && status_kib("VmHWM") > 0) {
    CHECK(status_kib("VmHWM") < rss_before + (64u << 10));
  }
}

// Well-formed JSON of the wrong types (ids as numbers, arrays for objects, events whose
// data is a number) reaches code that reads fields, not bytes: the director learning ids,
// task polls, expectations and invariants. None may throw; every case gets a verdict.
TEST_CASE("A target answering JSON of the wrong types gets verdicts in every group",
          "[remote][hostile]") {
  hostile_target target(misbehaviour::wrong_json_types);
  auto stand_in = conformance::model_stand_in::at({"127.0.0.1", 0});
  REQUIRE(stand_in.ok());
  auto profile = hostile_profile(target, **stand_in, {"A", "B"});
  REQUIRE(profile.ok());
  conformance::target_choice choice;
  choice.kind.emplace<conformance::profiled_server>().profile = *profile;
  auto catalog = conformance::load_catalog(conformance::default_catalog_dir());
  REQUIRE(catalog.ok());
  // The first three cases of each group: registration, calls, lifetimes, tasks, models...
  std::vector<conformance::catalog_case> cases;
  std::map<std::string, int> per_group;
  for (auto& c : *catalog) {
    if (++per_group[c.id.substr(0, c.id.find('.'))] <= 3) cases.push_back(std::move(c));
  }
  REQUIRE(cases.size() >= 27);

  std::optional<protocol::outcome<std::vector<conformance::case_result>>> results;
  REQUIRE_NOTHROW(results = conformance::run_cases(cases, choice, {}));
  REQUIRE(results->ok());
  REQUIRE((*results)->size() == cases.size());
  std::size_t failed = 0;
  for (const auto& r : **results) {
    CAPTURE(r.id, conformance::texts_of(r.evidence));
    if (r.verdict == conformance::verdict::fail) ++failed;
    // The verdict rests on what the target did, never on the suite tripping over it.
    for (const auto& item : conformance::texts_of(r.evidence)) {
      CHECK(item.find("the suite could not judge") == std::string::npos);
      CHECK(item.find("the suite failed") == std::string::npos);
    }
  }
  CHECK(failed * 2 > cases.size());  // most cases see the wrong types and fail
  reports::run_summary summary{"hostile", 1, 1.0, {}, 0, 0};
  std::string json_text;
  REQUIRE_NOTHROW(json_text = reports::json_report(**results, summary).dump(1));
  CHECK(reports::status_of(**results, summary).exit_code == 1);
}

TEST_CASE("What a hostile target did shows in the evidence", "[remote][hostile]") {
  struct expectation {
    misbehaviour how;
    std::string words;
  };
  const auto e = GENERATE(values<expectation>({
      {misbehaviour::invalid_utf8, "not valid UTF-8 (byte \\\\xFF"},
      {misbehaviour::deep_json, "deeper than 128 levels"},
      {misbehaviour::huge_body, "larger than 8 MiB"},
      {misbehaviour::slowloris, "no answer within 300 ms"},
      {misbehaviour::huge_sse_line, "an SSE line longer than 1048576 bytes"},
      {misbehaviour::garbage_sse, "\\\\xFF\\\\xFE"},
      {misbehaviour::te_identity, "final coding is not chunked"},
      {misbehaviour::http09, "malformed HTTP answer"},
      {misbehaviour::reset_mid_response, "closed the connection"},
      {misbehaviour::silent, "no answer within 300 ms"},
      {misbehaviour::wrong_content_length, "closed the connection in the middle of its answer"},
      {misbehaviour::te_with_length, "malformed HTTP answer"},
  }));
  CAPTURE(to_string(e.how));
  hostile_target target(e.how);
  auto stand_in = conformance::model_stand_in::at({"127.0.0.1", 0});
  REQUIRE(stand_in.ok());
  auto profile = hostile_profile(target, **stand_in);
  REQUIRE(profile.ok());
  conformance::target_choice choice;
  choice.kind.emplace<conformance::profiled_server>().profile = *profile;
  auto cases = few_cases();
  cases.resize(1);
  auto results = conformance::run_cases(cases, choice, {});
  REQUIRE(results.ok());
  const std::string text = reports::json_report(*results, {"hostile", 1, 1.0, {}, 0, 0}).dump();
  CHECK(text.find(e.words) != std::string::npos);
}
