// Evidence: its wordings and its JSON.
#include "toolwire/conformance/evidence.hpp"

#include <array>
#include <string_view>
#include <utility>

#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/protocol/spec_rules.hpp"

namespace toolwire::conformance {

using protocol::json;

namespace {

//! Each kind's name in report.json, and the words its one-message headline starts with.
struct kind_words {
  evidence_kind kind;
  std::string_view name;
  std::string_view prefix;
};

constexpr std::array<kind_words, 7> kinds = {{
    {evidence_kind::expectation, "expectation", ""},
    {evidence_kind::invariant, "invariant", "invariant "},
    {evidence_kind::step_error, "step_error", ""},
    {evidence_kind::transport, "transport", "transport: "},
    {evidence_kind::unreachable, "unreachable", "the target did not answer: "},
    {evidence_kind::repeat, "repeat", "repeat: "},
    {evidence_kind::problem, "problem", ""},
}};

const kind_words& words_of(evidence_kind kind) {
  for (const auto& k : kinds)
    if (k.kind == kind) return k;
  return kinds.back();
}

}  // namespace

std::string evidence::headline() const {
  if (kind == evidence_kind::expectation) {
    std::string ids;
    for (const auto& id : spec_ids)
      ids += (ids.empty() ? "" : ",") + id;
    return where + " [" + ids + "] expected " + expected + " at " +
           std::to_string(at_ms.value_or(0)) + " ms; observed: " + observed;
  }
  if (kind == evidence_kind::invariant) {
    return std::string(words_of(kind).prefix) + (spec_ids.empty() ? "" : spec_ids.front()) +
           " at record " + std::to_string(record.value_or(0)) + ": " + observed;
  }
  return std::string(words_of(kind).prefix) + observed;
}

std::vector<std::string> evidence::spec_lines() const {
  std::vector<std::string> lines;
  for (const auto& id : spec_ids) {
    const auto* rule = protocol::find_spec_rule(id);
    if (rule == nullptr) continue;
    lines.push_back(id + " [" + std::string(1, rule->tag) + "] " + std::string(rule->summary));
  }
  return lines;
}

std::string evidence::text() const {
  std::string text = headline();
  // Only the rules of an expectation or an invariant are spelled out; the others cite none.
  for (const auto& line : spec_lines())
    text += "\n      " + line;
  return text;
}

json evidence::to_json() const {
  json item = {{"kind", words_of(kind).name}, {"observed", observed}};
  if (!where.empty()) item["where"] = where;
  if (!spec_ids.empty()) item["spec"] = spec_ids;
  if (!expected.empty()) item["expected"] = expected;
  if (at_ms) item["at_ms"] = *at_ms;
  if (record) item["record"] = *record;
  return item;
}

evidence evidence::from_json(const json& item) {
  if (!item.is_object()) {
    return evidence_that(evidence_kind::problem,
                         item.is_string() ? item.get<std::string>() : protocol::safe_dump(item));
  }
  evidence read;
  const auto name = protocol::string_at(item, "kind");
  for (const auto& k : kinds)
    if (k.name == name) read.kind = k.kind;
  read.where = protocol::string_at(item, "where");
  read.expected = protocol::string_at(item, "expected");
  read.observed = protocol::string_at(item, "observed");
  for (const auto& id : protocol::member_at(item, "spec"))
    if (id.is_string()) read.spec_ids.push_back(id.get<std::string>());
  if (const auto& at = protocol::member_at(item, "at_ms"); at.is_number_integer())
    read.at_ms = at.get<protocol::time_ms>();
  if (const auto& record = protocol::member_at(item, "record"); record.is_number_unsigned())
    read.record = record.get<std::size_t>();
  return read;
}

evidence evidence_that(evidence_kind kind, std::string message, std::vector<std::string> spec_ids) {
  evidence item;
  item.kind = kind;
  item.observed = std::move(message);
  item.spec_ids = std::move(spec_ids);
  return item;
}

std::vector<std::string> texts_of(const std::vector<evidence>& items) {
  std::vector<std::string> texts;
  for (const auto& item : items)
    texts.push_back(item.text());
  return texts;
}

}  // namespace toolwire::conformance
