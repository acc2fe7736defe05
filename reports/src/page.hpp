// What the HTML report and the comparison page share: escaping, reading report.json's
// fields without throwing (a report may be hand-edited or truncated), verdict colours
// and the base style sheet, so both pages look alike.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/protocol/types.hpp"
#include "toolwire/reports/reports.hpp"

namespace toolwire::reports::page {

using protocol::json;

//! Why xml_escape: it already maps & < > " ' (all valid HTML5 references), writes bytes
//! that are not UTF-8 and control bytes as \xHH, and keeps line breaks for <pre>.
inline std::string escaped(std::string_view text) {
  return xml_escape(text);
}

//! A field as text: strings as they are, numbers and the rest serialised, absent as "".
inline std::string text_at(const json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  return conformance::safe_dump(*it);
}

inline const json& array_at(const json& object, const char* key) {
  static const json empty = json::array();
  if (!object.is_object()) return empty;
  const auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : empty;
}

//! A number field as `Number` (a float cut to an integer where one is asked for), 0 when
//! absent or not a number.
template <typename Number>
Number number_at(const json& object, const char* key) {
  if (!object.is_object()) return 0;
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<Number>() : 0;
}

//! The strings of an array field, in order; other items and a missing field give none.
inline std::vector<std::string> texts_at(const json& object, const char* key) {
  std::vector<std::string> texts;
  for (const auto& item : array_at(object, key)) {
    if (item.is_string()) texts.push_back(item.get<std::string>());
  }
  return texts;
}

//! The CSS class of a verdict label as report.json writes it.
inline std::string verdict_class(const std::string& label) {
  if (label == "pass") return "v-pass";
  if (label == "fail") return "v-fail";
  if (label == "warn") return "v-warn";
  if (label == "error") return "v-error";
  if (label == "not applicable") return "v-na";
  return "v-xfail";  // expected failure, known flaky
}

//! The rules both pages start their style sheets with: colours, type, tables, chips.
inline constexpr std::string_view page_style = R"css(
:root{--pass:#1a7f37;--fail:#cf222e;--warn:#9a6700;--na:#6e7781;--xfail:#8250df;--line:#d0d7de}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1200px;padding:0 16px 48px;color:#1f2328}
h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:0 0 4px}code,pre,.mono{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;padding:6px;margin:4px 0}
table{border-collapse:collapse}td,th{border:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top}
.counts td{text-align:right;font-size:18px;min-width:90px}.counts th{font-weight:600}
dl.meta{display:grid;grid-template-columns:max-content auto;gap:2px 14px}dl.meta dt{color:#57606a}dl.meta dd{margin:0}
.chip{display:inline-block;border-radius:10px;padding:0 7px;margin:1px;color:#fff;font-size:12px;text-decoration:none;white-space:nowrap}
.v-pass{background:var(--pass)}.v-fail{background:var(--fail)}.v-error{background:#953800}.v-warn{background:var(--warn)}.v-na{background:var(--na)}.v-xfail{background:var(--xfail)}
.t-pass{color:var(--pass)}.t-fail{color:var(--fail)}.t-warn{color:var(--warn)}.t-na{color:var(--na)}.t-xfail{color:var(--xfail)}
)css";

}  // namespace toolwire::reports::page
