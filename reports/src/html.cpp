// The HTML report writer.
//
// Theory of operation: the page is written from the JSON report alone (so `toolwire
// report html report.json` and `check --html` give the same file), in one pass, into one
// string. Nothing is fetched: the style sheet and script are inline, the diagrams are
// inline SVG, and no element has a src= or href= that leaves the page. Every text that
// reaches the page goes through escaped(): case data include what foreign servers sent.
#include "toolwire/reports/html.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "page.hpp"
#include "text.hpp"
#include "toolwire/conformance/evidence.hpp"
#include "toolwire/conformance/outside_data.hpp"
#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/routes.hpp"
#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/protocol/spec_rules.hpp"
#include "toolwire/reports/reports.hpp"

namespace toolwire::reports {

namespace {

using text::group_of;

using protocol::json;
using namespace page;

std::string fixed(double value, int decimals) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

//! At most `limit` bytes of `text`, cut at a character boundary, "…" when cut.
std::string shortened(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
    --end;
  return text.substr(0, end).append("\u2026");
}

//! Ranks verdicts for a rule's row: the worst of its cases colours it.
int severity(const std::string& label) {
  if (label == "fail") return 5;
  if (label == "error") return 4;
  if (label == "warn") return 3;
  if (label == "pass") return 1;
  if (label == "not applicable") return 0;
  return 2;
}

//! One piece of evidence as the page lays it out: a failed expectation split into where,
//! expected and observed, with its time; any other kind keeps its headline in `where`.
struct evidence_item {
  std::string where, expected, observed;
  std::optional<std::int64_t> at_ms;
  std::string spec_lines;  // the SPEC text of its rules, one per line
};

evidence_item item_of(const conformance::evidence& e) {
  evidence_item item;
  for (const auto& line : e.spec_lines())
    item.spec_lines.append(item.spec_lines.empty() ? "" : "\n").append(line);
  if (e.kind != conformance::evidence_kind::expectation) {
    item.where = e.headline();
    return item;
  }
  std::string ids;
  for (const auto& id : e.spec_ids)
    ids.append(ids.empty() ? "" : ",").append(id);
  item.where = e.where + " [" + ids + "]";
  item.expected = e.expected;
  item.observed = e.observed;
  item.at_ms = e.at_ms;
  return item;
}

// ---------------------------------------------------------------------------------------
// Style and script. Why inline and small: the file is mailed, attached to CI runs and
// opened offline; it must render with no network and no build step. The script reads
// ?failed=1&group=G&rule=R so that a link can open a filtered view (and a headless browser
// test can check the filters without clicking).

constexpr std::string_view style = R"css(
#matrix td:nth-child(2){min-width:260px}#matrix td:first-child{white-space:nowrap;border-left:5px solid var(--na)}#matrix tr.r-pass td:first-child{border-left-color:var(--pass)}
#matrix tr.r-fail td:first-child{border-left-color:var(--fail)}#matrix tr.r-warn td:first-child{border-left-color:var(--warn)}
#matrix tr.r-xfail td:first-child{border-left-color:var(--xfail)}
#filters{position:sticky;top:0;background:#fff;padding:8px 0;border-bottom:1px solid var(--line);z-index:1}
#filters label{margin-right:14px}.hidden{display:none!important}
.case{overflow-x:auto;border:1px solid var(--line);border-left:5px solid var(--na);padding:6px 10px;margin:6px 0}
.case.c-pass{border-left-color:var(--pass)}.case.c-fail{border-left-color:var(--fail)}.case.c-warn{border-left-color:var(--warn)}.case.c-xfail{border-left-color:var(--xfail)}
.case p{margin:2px 0}.spec{margin:2px 0;padding-left:18px;color:#57606a}.purpose{color:#1f2328}
.evidence{width:100%;table-layout:fixed}.evidence td{overflow-wrap:anywhere}.evidence col.w{width:26%}.why{white-space:pre-wrap;color:#57606a;font-family:system-ui,sans-serif;margin-top:3px}.evidence .exp{background:#dafbe1}.evidence .obs{background:#ffebe9}
.wire td{font:12px/1.35 ui-monospace,monospace}.wire td:first-child{text-align:right}.wire details{margin:0}
.wire tr.k-response td:nth-child(4),.wire tr.k-event td:nth-child(4),.wire tr.k-deliver td:nth-child(4){color:#0550ae}
.wire tr.k-model_step td:nth-child(4),.wire tr.k-model_reply td:nth-child(4){color:#8250df}
.wire tr.k-step_error,.wire tr.k-transport_error,.wire tr.k-stream_gap{background:#ffebe9}
svg.seq{display:block;margin:6px 0;font:11px ui-monospace,monospace}
svg.seq .lane line{stroke:#8c959f;stroke-dasharray:4 3}svg.seq .lane text{font-weight:600;text-anchor:middle;font-size:12px}
svg.seq .arrow line{stroke:#24292f}svg.seq .arrow polygon{fill:#24292f}
svg.seq .k-response line,svg.seq .k-model_reply line{stroke-dasharray:5 3}
svg.seq .k-event line,svg.seq .k-deliver line{stroke:#0550ae}svg.seq .k-event polygon,svg.seq .k-deliver polygon{fill:#0550ae}
svg.seq .k-model_step line,svg.seq .k-model_reply line{stroke:#8250df}svg.seq .k-model_step polygon,svg.seq .k-model_reply polygon{fill:#8250df}
svg.seq .mark circle{fill:#57606a}svg.seq .mark text{fill:#57606a}
svg.seq .k-step_error circle,svg.seq .k-transport_error circle,svg.seq .k-stream_gap circle{fill:var(--warn)}
svg.seq .failed line{stroke:var(--fail);stroke-width:2}svg.seq .failed circle{fill:var(--fail)}svg.seq .failed text{fill:var(--fail);font-weight:600}
svg.seq .tick text{fill:#57606a;text-anchor:end}svg.seq .tick line{stroke:#eaeef2}
details.tab img{display:block;max-width:100%;border:1px solid var(--line);margin:4px 0}
)css";

constexpr std::string_view script = R"js(
(function(){
var d=document,f=d.getElementById('f-failed'),g=d.getElementById('f-group'),r=d.getElementById('f-rule'),n=d.getElementById('f-count');
function has(list,item){return (' '+list+' ').indexOf(' '+item+' ')>=0;}
function apply(){
  var cases=d.querySelectorAll('.case'),shown=0,i;
  for(i=0;i<cases.length;i++){var c=cases[i];
    var ok=(!f.checked||c.getAttribute('data-verdict')==='fail')&&(!g.value||c.getAttribute('data-group')===g.value)&&(!r.value||has(c.getAttribute('data-rules'),r.value));
    c.classList.toggle('hidden',!ok);if(ok)shown++;}
  var rows=d.querySelectorAll('#matrix tr[data-rule]');
  for(i=0;i<rows.length;i++){var w=rows[i];
    var ok2=(!r.value||w.getAttribute('data-rule')===r.value)&&(!f.checked||w.classList.contains('r-fail'))&&(!g.value||has(w.getAttribute('data-groups'),g.value));
    w.classList.toggle('hidden',!ok2);}
  n.textContent=shown+' of '+cases.length+' cases shown';
}
f.addEventListener('change',apply);g.addEventListener('change',apply);r.addEventListener('change',apply);
var q=new URLSearchParams(location.search);
if(q.get('failed'))f.checked=true;if(q.get('group'))g.value=q.get('group');if(q.get('rule'))r.value=q.get('rule');
apply();
d.documentElement.setAttribute('data-js','ready');
})();
)js";

// ---------------------------------------------------------------------------------------
// The sequence diagram.

constexpr int axis_width = 64;
constexpr int lane_width = 170;
constexpr int header_height = 34;
constexpr int row_height = 18;
constexpr int time_gap = 8;  // extra space where the case's time moves on

struct lanes {
  std::vector<std::string> names;  // director, the clients in order of appearance, target, model
  std::map<std::string, std::size_t> index;

  std::size_t of(const std::string& actor) const {
    const auto it = index.find(actor);
    return it == index.end() ? 0 : it->second;
  }
  int x(std::size_t lane) const {
    return axis_width + lane_width / 2 + static_cast<int>(lane) * lane_width;
  }
  int width() const { return axis_width + static_cast<int>(names.size()) * lane_width; }
};

lanes lanes_of(const json& trace) {
  lanes result;
  auto add = [&](const std::string& name) {
    if (result.index.emplace(name, result.names.size()).second) result.names.push_back(name);
  };
  add("director");
  for (const auto& record : trace) {
    const std::string actor = text_at(record, "actor");
    if (actor != "director" && actor != "target" && actor != "model" && !actor.empty()) add(actor);
  }
  add("target");
  add("model");
  return result;
}

//! The lanes an arrow joins, or nullopt for a record drawn as a mark.
std::optional<std::pair<std::size_t, std::size_t>> arrow_of(const json& record, const lanes& l) {
  const std::string kind = text_at(record, "kind");
  const std::size_t actor = l.of(text_at(record, "actor"));
  const std::size_t target = l.of("target"), model = l.of("model"), director = l.of("director");
  if (kind == "request") return std::pair{actor, target};
  if (kind == "response") return std::pair{target, actor};
  if (kind == "event") return std::pair{target, director};
  if (kind == "deliver") return std::pair{target, actor};
  if (kind == "model_step") return std::pair{target, model};
  if (kind == "model_reply") return std::pair{model, target};
  return std::nullopt;
}

//! "…/clients/cli_1/ping" for "/v1/sessions/ses_1/clients/cli_1/ping": the session is the
//! same in every request of a case, and the lanes are narrow.
std::string short_path(const std::string& path) {
  if (!protocol::under_a_session(path)) return path;
  const auto slash = path.find('/', path.find('/', std::string_view("/v1/").size()) + 1);
  return slash == std::string::npos ? path : "\u2026" + path.substr(slash);
}

//! A record in one line: what the wire log's summary column and an arrow's label say.
std::string summary_of(const json& record) {
  const std::string kind = text_at(record, "kind");
  const json& data = record.contains("data") ? record["data"] : json::object();
  std::string text;
  if (kind == "request") {
    text.append(text_at(data, "method")).append(" ").append(text_at(data, "path"));
  } else if (kind == "response") {
    text.append(text_at(data, "status"));
    if (data.is_object() && data.contains("body") && data["body"].is_object()) {
      const json& body = data["body"];
      if (body.contains("error") && body["error"].is_object()) {
        text.append(" ").append(text_at(body["error"], "code"));
      }
    }
    text.append(" \u2190 ")
        .append(text_at(data, "method"))
        .append(" ")
        .append(text_at(data, "path"));
  } else if (kind == "event" || kind == "deliver") {
    text.append("#").append(text_at(data, "seq")).append(" ").append(text_at(data, "type"));
  } else if (kind == "model_step") {
    text.append("step ")
        .append(text_at(data, "step_id"))
        .append(" (")
        .append(text_at(data, "owner"));
    text.append(") offers ").append(text_at(data, "offered"));
  } else if (kind == "model_reply") {
    text.append("reply ")
        .append(text_at(data, "step_id"))
        .append(": ")
        .append(text_at(data, "reply"));
  } else if (kind == "expect") {
    text.append("step ").append(text_at(data, "step"));
  } else if (kind == "timer" || kind == "act") {
    text = conformance::safe_dump(data);
  } else if (kind == "step_error" || kind == "transport_error" ||
             protocol::is(kind, protocol::event_type::stream_gap)) {
    text = text_at(data, "what");
    if (text.empty()) text = conformance::safe_dump(data);
  }
  return text;
}

//! An arrow's label: requests and responses by their short path.
std::string label_of(const json& record) {
  const std::string kind = text_at(record, "kind");
  const json& data = record.contains("data") ? record["data"] : json::object();
  if (kind == "request") {
    std::string text = text_at(data, "method");
    return text.append(" ").append(short_path(text_at(data, "path")));
  }
  if (kind == "response") {
    std::string text = text_at(data, "status");
    if (data.is_object() && data.contains("body") && data["body"].is_object() &&
        data["body"].contains("error") && data["body"]["error"].is_object()) {
      text.append(" ").append(text_at(data["body"]["error"], "code"));
    }
    return text;
  }
  return summary_of(record);
}

//! A row of the diagram: a trace record or a failed expectation's marker.
struct row {
  std::int64_t at = 0;
  const json* record = nullptr;
  const evidence_item* failed = nullptr;
};

std::vector<row> rows_of(const json& trace, std::size_t drawn,
                         const std::vector<evidence_item>& evidence) {
  std::vector<const evidence_item*> markers;
  for (const auto& item : evidence)
    if (item.at_ms) markers.push_back(&item);
  std::stable_sort(markers.begin(), markers.end(),
                   [](const auto* a, const auto* b) { return *a->at_ms < *b->at_ms; });
  std::vector<row> rows;
  std::size_t next = 0;
  for (std::size_t i = 0; i < drawn; ++i) {
    const std::int64_t at = number_at<std::int64_t>(trace[i], "at");
    // Why after every record up to T: an expectation at T is checked once T has settled.
    while (next < markers.size() && *markers[next]->at_ms < at) {
      rows.push_back({*markers[next]->at_ms, nullptr, markers[next]});
      ++next;
    }
    rows.push_back({at, &trace[i], nullptr});
  }
  for (; next < markers.size(); ++next)
    rows.push_back({*markers[next]->at_ms, nullptr, markers[next]});
  return rows;
}

void write_arrow_head(std::string& out, int x_tip, int y, bool rightwards) {
  const int back = rightwards ? x_tip - 7 : x_tip + 7;
  out.append("<polygon points=\"")
      .append(std::to_string(x_tip))
      .append(",")
      .append(std::to_string(y))
      .append(" ")
      .append(std::to_string(back))
      .append(",")
      .append(std::to_string(y - 4))
      .append(" ")
      .append(std::to_string(back))
      .append(",")
      .append(std::to_string(y + 4))
      .append("\"/>");
}

void write_line(std::string& out, int x1, int y1, int x2, int y2) {
  out.append("<line x1=\"")
      .append(std::to_string(x1))
      .append("\" y1=\"")
      .append(std::to_string(y1))
      .append("\" x2=\"")
      .append(std::to_string(x2))
      .append("\" y2=\"")
      .append(std::to_string(y2))
      .append("\"/>");
}

void write_text(std::string& out, int x, int y, const std::string& text,
                std::string_view anchor = "start") {
  out.append("<text x=\"")
      .append(std::to_string(x))
      .append("\" y=\"")
      .append(std::to_string(y))
      .append("\"");
  if (anchor != "start") out.append(" text-anchor=\"").append(anchor).append("\"");
  out.append(">").append(escaped(text)).append("</text>");
}

void write_diagram(std::string& out, const std::string& case_id, const json& trace,
                   const std::vector<evidence_item>& evidence) {
  const lanes l = lanes_of(trace);
  const std::size_t drawn = std::min(trace.size(), max_diagram_records);
  const auto rows = rows_of(trace, drawn, evidence);
  // Heights first: the SVG's size is in its opening tag.
  std::vector<int> ys;
  int y = header_height;
  std::optional<std::int64_t> previous;
  for (const auto& r : rows) {
    if (previous && r.at != *previous) y += time_gap;
    y += row_height;
    ys.push_back(y);
    previous = r.at;
  }
  const int height = y + row_height;
  const int width = l.width() + 40;
  if (drawn < trace.size()) {
    out.append("<p>The diagram draws the first ")
        .append(std::to_string(drawn))
        .append(" of ")
        .append(std::to_string(trace.size()))
        .append(" records; the wire log lists them all.</p>");
  }
  out.append("<svg class=\"seq\" data-case=\"")
      .append(escaped(case_id))
      .append("\" width=\"")
      .append(std::to_string(width))
      .append("\" height=\"")
      .append(std::to_string(height))
      .append("\" viewBox=\"0 0 ")
      .append(std::to_string(width))
      .append(" ")
      .append(std::to_string(height))
      .append("\">");
  write_text(out, axis_width - 8, 20, "ms", "end");
  for (std::size_t i = 0; i < l.names.size(); ++i) {
    out.append("<g class=\"lane\" data-lane=\"").append(escaped(l.names[i])).append("\">");
    write_text(out, l.x(i), 20, shortened(l.names[i], 22), "middle");
    write_line(out, l.x(i), 26, l.x(i), height - 4);
    out.append("</g>");
  }
  previous.reset();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const int ry = ys[i];
    if (!previous || r.at != *previous) {
      out.append("<g class=\"tick\">");
      write_line(out, axis_width, ry - row_height / 2 - 2, width - 8, ry - row_height / 2 - 2);
      write_text(out, axis_width - 8, ry + 4, std::to_string(r.at));
      out.append("</g>");
    }
    previous = r.at;
    if (r.failed != nullptr) {
      out.append("<g class=\"failed\"><title>")
          .append(escaped(r.failed->where))
          .append(" expected ")
          .append(escaped(r.failed->expected))
          .append("; observed: ")
          .append(escaped(r.failed->observed))
          .append("</title>");
      write_line(out, axis_width, ry, width - 8, ry);
      out.append("<circle cx=\"").append(std::to_string(l.x(0))).append("\" cy=\"");
      out.append(std::to_string(ry)).append("\" r=\"5\"/>");
      // Why the line only: the file is the case's own, and the label must fit the width
      // (11 px monospace is about 6.6 px a character).
      const auto colon = r.failed->where.find(':', r.failed->where.rfind('/') + 1);
      const std::string where =
          colon == std::string::npos
              ? r.failed->where
              : std::string("line ").append(r.failed->where.substr(colon + 1));
      const auto room = static_cast<std::size_t>(std::max(20, (width - l.x(0) - 24) * 10 / 66));
      write_text(
          out, l.x(0) + 10, ry - 3,
          shortened(
              std::string("\u2717 ").append(where).append(" expected ").append(r.failed->expected),
              room));
      out.append("</g>");
      continue;
    }
    const json& record = *r.record;
    const std::string kind = text_at(record, "kind");
    const std::string title = std::to_string(r.at)
                                  .append(" ms ")
                                  .append(text_at(record, "actor"))
                                  .append(" ")
                                  .append(kind)
                                  .append(": ")
                                  .append(summary_of(record));
    if (const auto ends = arrow_of(record, l)) {
      const int x1 = l.x(ends->first), x2 = l.x(ends->second);
      out.append("<g class=\"arrow k-").append(escaped(kind)).append("\"><title>");
      out.append(escaped(title)).append("</title>");
      const bool rightwards = x2 >= x1;
      const int tip = rightwards ? x2 - 2 : x2 + 2;
      write_line(out, x1, ry, tip, ry);
      write_arrow_head(out, tip, ry, rightwards);
      // Why the label at the arrow's tail, above it: neighbouring rows stay legible.
      const int label_x = rightwards ? x1 + 6 : x1 - 6;
      write_text(out, label_x, ry - 3,
                 shortened(label_of(record), static_cast<std::size_t>(std::abs(x2 - x1) / 7 + 6)),
                 rightwards ? "start" : "end");
      out.append("</g>");
    } else {
      const std::string actor = text_at(record, "actor");
      const int x = l.x(l.of(actor));
      out.append("<g class=\"mark k-").append(escaped(kind)).append("\"><title>");
      out.append(escaped(title)).append("</title>");
      out.append("<circle cx=\"").append(std::to_string(x)).append("\" cy=\"");
      out.append(std::to_string(ry)).append("\" r=\"3\"/>");
      write_text(out, x + 6, ry + 4,
                 shortened(std::string(kind).append(" ").append(summary_of(record)), 26));
      out.append("</g>");
    }
  }
  out.append("</svg>");
}

// ---------------------------------------------------------------------------------------
// The wire log.

void write_wire_log(std::string& out, const json& trace) {
  out.append("<details class=\"wirelog\"><summary>Wire log (")
      .append(std::to_string(trace.size()))
      .append(
          " records)</summary><table class=\"wire\"><tr><th>ms</th><th>actor</th>"
          "<th>kind</th><th>what</th></tr>");
  for (const auto& record : trace) {
    const std::string kind = text_at(record, "kind");
    out.append("<tr class=\"k-").append(escaped(kind)).append("\"><td>");
    out.append(escaped(text_at(record, "at"))).append("</td><td>");
    out.append(escaped(text_at(record, "actor"))).append("</td><td>");
    out.append(escaped(kind)).append("</td><td>").append(escaped(summary_of(record)));
    const json& data = protocol::member_at(record, "data");
    if (!data.is_null() && !(data.is_object() && data.empty())) {
      // Why collapsed: bodies are most of a trace's bytes and most of them are routine.
      // A tab's screenshot is drawn once, under its tab (write_tabs), not again here.
      std::string shown;
      if (data.is_object() && data.contains("screenshot_png")) {
        json without_image = data;
        without_image["screenshot_png"] = "(the image above, under the tab)";
        shown = conformance::safe_dump(without_image, 2);
      } else {
        shown = conformance::safe_dump(data, 2);
      }
      out.append("<details><summary>data</summary><pre>")
          .append(escaped(shown))
          .append("</pre></details>");
    }
    out.append("</td></tr>");
  }
  out.append("</table></details>");
}

// ---------------------------------------------------------------------------------------
// A browser case's tabs.

//! Whether `text` is base64 (RFC 4648: its alphabet, then at most two '='), and so can stand
//! in a data: URL without escaping. Why checked: a report read back (`toolwire report
//! html`) may come from anywhere, and this text goes into an attribute.
bool is_base64(const std::string& text) {
  const auto padding = text.find('=');
  const auto body = text.substr(0, padding);
  const bool alphabet = std::all_of(body.begin(), body.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '/';
  });
  const bool padded =
      padding == std::string::npos ||
      (text.size() - padding <= 2 && text.find_first_not_of('=', padding) == std::string::npos);
  return !text.empty() && alphabet && padded && text.size() % 4 == 0;
}

//! Lines the driver kept (strings, or anything else as JSON) in one <pre>.
void write_lines(std::string& out, const std::string& title, const json& lines) {
  if (lines.empty()) return;
  out.append("<p>").append(escaped(title)).append(" (").append(std::to_string(lines.size()));
  out.append(lines.size() == 1 ? " line)" : " lines)").append("</p><pre>");
  for (const auto& line : lines)
    out.append(escaped(line.is_string() ? line.get<std::string>() : conformance::safe_dump(line)))
        .append("\n");
  out.append("</pre>");
}

//! Each tab of a browser case as it was at the end of the run: its screenshot (embedded by
//! the runner when the case did not pass), its console and the page's own log.
void write_tabs(std::string& out, const json& trace) {
  for (const auto& record : trace) {
    if (text_at(record, "kind") != "tab_evidence") continue;
    const json& data = protocol::member_at(record, "data");
    const std::string tab = text_at(record, "actor");
    out.append("<details class=\"tab\" open><summary>Tab '")
        .append(escaped(tab))
        .append("' at the end of the run</summary>");
    const std::string png = text_at(data, "screenshot_png");
    if (is_base64(png)) {
      out.append("<img alt=\"the tab '")
          .append(escaped(tab))
          .append("' at the end of the run\" src=\"data:image/png;base64,")
          .append(png)
          .append("\">");
    } else if (const auto why = text_at(data, "screenshot_error"); !why.empty()) {
      out.append("<p>No screenshot: ").append(escaped(why)).append("</p>");
    } else {
      out.append("<p>No screenshot: one is kept for a case that did not pass.</p>");
    }
    write_lines(out, "Console", array_at(data, "console"));
    write_lines(out, "Page log", array_at(data, "page_log"));
    out.append("</details>");
  }
}

// ---------------------------------------------------------------------------------------
// The page's parts.

struct rule_row {
  std::string id;
  std::vector<std::size_t> cases;  // indexes into the report's cases
};

//! The rules cases cite, in SPEC's order, then any ID SPEC does not know (a stale case).
std::vector<rule_row> rules_cited(const json& cases) {
  std::map<std::string, std::vector<std::size_t>> cited;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    for (const auto& id : array_at(cases[i], "spec"))
      if (id.is_string()) cited[id.get<std::string>()].push_back(i);
  }
  std::vector<rule_row> rows;
  for (const auto& rule : protocol::spec_rules()) {
    const auto it = cited.find(std::string(rule.id));
    if (it == cited.end()) continue;
    rows.push_back({it->first, it->second});
    cited.erase(it);
  }
  for (auto& [id, indexes] : cited)
    rows.push_back({id, indexes});
  return rows;
}

std::string rule_text(const std::string& id) {
  const auto* rule = protocol::find_spec_rule(id);
  if (rule == nullptr) return "(not a rule of SPEC.md)";
  return std::string("[").append(1, rule->tag).append("] ").append(rule->summary);
}

void write_summary(std::string& out, const json& report) {
  const json& totals = report.contains("totals") ? report["totals"] : json::object();
  const std::int64_t cases = number_at<std::int64_t>(totals, "cases");
  const std::int64_t not_applicable = number_at<std::int64_t>(totals, "not_applicable");
  const std::int64_t exit_code = number_at<std::int64_t>(report, "exit_code");
  const bool ran_nothing = cases == not_applicable;
  const char* headline = exit_code == 0                            ? "passed"
                         : !text_at(report, "interrupted").empty() ? "INTERRUPTED"
                         : !text_at(report, "stopped").empty()     ? "STOPPED"
                         : exit_code == 2 && ran_nothing           ? "NOTHING WAS CHECKED"
                         : exit_code == 2                          ? "TARGET DID NOT ANSWER"
                                                                   : "FAILED";
  out.append("<h1>toolwire check: <span class=\"")
      .append(exit_code == 0 ? "t-pass" : "t-fail")
      .append("\">")
      .append(headline)
      .append("</span> against ")
      .append(escaped(text_at(report, "target")))
      .append("</h1>");
  if (const auto status = text_at(report, "status"); !status.empty())
    out.append("<p><strong>").append(escaped(status)).append("</strong></p>");
  out.append("<section id=\"summary\"><table class=\"counts\"><tr>");
  const std::pair<const char*, const char*> columns[] = {
      {"pass", "passed"},
      {"fail", "failed"},
      {"error", "errors"},
      {"warn", "warnings"},
      {"not_applicable", "not applicable"},
      {"expected_failures", "expected failures"}};
  for (const auto& [key, name] : columns)
    out.append("<th>").append(name).append("</th>");
  out.append("</tr><tr>");
  const char* classes[] = {"t-pass", "t-fail", "t-fail", "t-warn", "t-na", "t-xfail"};
  std::size_t c = 0;
  for (const auto& [key, name] : columns) {
    out.append("<td class=\"")
        .append(classes[c++])
        .append("\" data-count=\"")
        .append(key)
        .append("\">")
        .append(std::to_string(number_at<std::int64_t>(totals, key)))
        .append("</td>");
  }
  out.append("</tr></table><dl class=\"meta\">");
  auto item = [&](const char* name, const std::string& value) {
    if (value.empty()) return;
    out.append("<dt>").append(name).append("</dt><dd>").append(escaped(value)).append("</dd>");
  };
  const std::int64_t applied = cases - not_applicable;
  item("scope", text_at(report, "scope"));
  item("real clock", text_at(report, "timing"));
  item("cases applied",
       std::to_string(applied)
           .append(" of ")
           .append(std::to_string(cases))
           .append(" (")
           .append(fixed(
               cases == 0 ? 0.0 : 100.0 * static_cast<double>(applied) / static_cast<double>(cases),
               1))
           .append("%)"));
  item("duration", fixed(number_at<double>(report, "seconds"), 2).append(" s"));
  item("target", text_at(report, "target"));
  item("toolwire", text_at(report, "toolwire_version"));
  item("catalog version", text_at(report, "catalog_version"));
  item("seed", text_at(report, "seed"));
  item("ran at", text_at(report, "started_at"));
  out.append("</dl>");
  const json& stale = array_at(report, "stale_baseline");
  if (!stale.empty()) {
    out.append("<p class=\"t-fail\">Stale baseline, listed as expected failures but passed: ");
    for (std::size_t i = 0; i < stale.size(); ++i)
      out.append(i ? ", " : "")
          .append(escaped(stale[i].is_string() ? stale[i].get<std::string>() : ""));
    out.append("</p>");
  }
  for (const auto& reason : array_at(report, "not_applicable_reasons")) {
    out.append("<p class=\"t-na\">Not applicable (")
        .append(std::to_string(array_at(reason, "cases").size()))
        .append("): ")
        .append(escaped(text_at(reason, "reason")))
        .append(". To run them: ")
        .append(escaped(text_at(reason, "applicable_if")))
        .append(".</p>");
  }
  out.append("</section>");
}

void write_filters(std::string& out, const json& cases, const std::vector<rule_row>& rules) {
  std::set<std::string> groups;
  for (const auto& c : cases)
    groups.insert(group_of(text_at(c, "id")));
  out.append(
      "<section id=\"filters\"><label><input type=\"checkbox\" id=\"f-failed\"> failed only"
      "</label><label>group <select id=\"f-group\"><option value=\"\">all</option>");
  for (const auto& g : groups) {
    out.append("<option>").append(escaped(g)).append("</option>");
  }
  out.append("</select></label><label>rule <select id=\"f-rule\"><option value=\"\">all</option>");
  for (const auto& r : rules)
    out.append("<option>").append(escaped(r.id)).append("</option>");
  out.append("</select></label><span id=\"f-count\"></span></section>");
}

void write_matrix(std::string& out, const json& cases, const std::vector<rule_row>& rules) {
  out.append(
      "<section id=\"matrix\"><h2>Requirement matrix</h2><table><tr><th>rule</th><th>SPEC "
      "text</th><th>cases</th></tr>");
  for (const auto& rule : rules) {
    int worst = -1;
    std::string worst_label = "not applicable";
    std::set<std::string> groups;
    for (const auto i : rule.cases) {
      const std::string label = text_at(cases[i], "verdict");
      if (severity(label) > worst) {
        worst = severity(label);
        worst_label = label;
      }
      groups.insert(group_of(text_at(cases[i], "id")));
    }
    std::string group_list;
    for (const auto& g : groups)
      group_list.append(group_list.empty() ? "" : " ").append(g);
    out.append("<tr class=\"r-")
        .append(verdict_class(worst_label).substr(2))
        .append("\" data-rule=\"")
        .append(escaped(rule.id))
        .append("\" data-groups=\"")
        .append(escaped(group_list))
        .append("\"><td id=\"rule-")
        .append(escaped(rule.id))
        .append("\">")
        .append(escaped(rule.id))
        .append("</td><td>")
        .append(escaped(rule_text(rule.id)))
        .append("</td><td>");
    for (const auto i : rule.cases) {
      const std::string id = text_at(cases[i], "id");
      const std::string label = text_at(cases[i], "verdict");
      out.append("<a class=\"chip ")
          .append(verdict_class(label))
          .append("\" href=\"#case-")
          .append(escaped(id))
          .append("\" title=\"")
          .append(escaped(label))
          .append("\">")
          .append(escaped(id))
          .append("</a>");
    }
    out.append("</td></tr>");
  }
  out.append("</table></section>");
}

void write_evidence(std::string& out, const std::vector<evidence_item>& evidence) {
  out.append(
      "<table class=\"evidence\"><col class=\"w\"><col><col><tr><th>where</th><th>expected</th>"
      "<th>observed</th></tr>");
  for (const auto& item : evidence) {
    std::string spec_lines;
    if (!item.spec_lines.empty())
      spec_lines.append("<div class=\"why\">").append(escaped(item.spec_lines)).append("</div>");
    if (item.at_ms) {
      out.append("<tr><td class=\"mono\">")
          .append(escaped(item.where))
          .append("<br>at ")
          .append(std::to_string(*item.at_ms))
          .append(" ms</td><td class=\"exp mono\">")
          .append(escaped(item.expected))
          .append(spec_lines)
          .append("</td><td class=\"obs mono\">")
          .append(escaped(item.observed))
          .append("</td></tr>");
    } else {
      // Invariants, step and transport errors: one text, no expected/observed split.
      out.append("<tr><td colspan=\"3\" class=\"obs mono\">")
          .append(escaped(item.where))
          .append(spec_lines)
          .append("</td></tr>");
    }
  }
  out.append("</table>");
}

void write_case(std::string& out, const json& c, const html_options& options) {
  const std::string id = text_at(c, "id");
  const std::string label = text_at(c, "verdict");
  const std::string cls = verdict_class(label);
  std::string rules;
  for (const auto& s : array_at(c, "spec"))
    if (s.is_string()) rules.append(rules.empty() ? "" : " ").append(s.get<std::string>());
  out.append("<article class=\"case c-")
      .append(cls.substr(2))
      .append("\" id=\"case-")
      .append(escaped(id))
      .append("\" data-verdict=\"")
      .append(escaped(label))
      .append("\" data-group=\"")
      .append(escaped(group_of(id)))
      .append("\" data-rules=\"")
      .append(escaped(rules))
      .append("\"><h3><span class=\"chip ")
      .append(cls)
      .append("\">")
      .append(escaped(label));
  if (const json& repeat = c.contains("repeat") ? c["repeat"] : json(); repeat.is_object())
    out.append(", ").append(escaped(text_at(repeat, "label")));
  out.append("</span> ")
      .append(escaped(id))
      .append("</h3><p class=\"purpose\">")
      .append(escaped(text_at(c, "purpose")))
      .append("</p><ul class=\"spec\">");
  for (const auto& s : array_at(c, "spec")) {
    if (!s.is_string()) continue;
    const std::string rule = s.get<std::string>();
    out.append("<li><a href=\"#rule-")
        .append(escaped(rule))
        .append("\">")
        .append(escaped(rule))
        .append("</a> ")
        .append(escaped(rule_text(rule)))
        .append("</li>");
  }
  out.append("</ul>");
  if (const auto why = text_at(c, "not_applicable_because"); !why.empty()) {
    out.append("<p class=\"t-na\">Not applicable: ")
        .append(escaped(why))
        .append(". To run it: ")
        .append(escaped(text_at(c, "applicable_if")))
        .append(".</p>");
  }
  std::vector<evidence_item> evidence;
  // A report written before evidence was typed has only its texts: each shows whole.
  const json& detail =
      c.contains("evidence_detail") ? array_at(c, "evidence_detail") : array_at(c, "evidence");
  for (const auto& e : detail)
    evidence.push_back(item_of(conformance::evidence::from_json(e)));
  if (!evidence.empty()) write_evidence(out, evidence);
  out.append("<p class=\"mono\">")
      .append(escaped(text_at(c, "file")))
      .append(" \u00b7 ")
      .append(fixed(number_at<double>(c, "seconds"), 3))
      .append(" s \u00b7 reproduce: <code>")
      .append(escaped(text_at(c, "reproduce")))
      .append("</code></p>");
  const json& trace = array_at(c, "trace");
  if ((options.all_cases || !evidence.empty()) && !trace.empty()) {
    out.append("<details class=\"diagram\"")
        .append(evidence.empty() ? "" : " open")
        .append("><summary>Sequence diagram</summary>");
    write_diagram(out, id, trace, evidence);
    out.append("</details>");
    write_tabs(out, trace);
    write_wire_log(out, trace);
  }
  out.append("</article>");
}

}  // namespace

bool drawn_as_arrow(std::string_view kind) {
  return kind == "request" || kind == "response" || kind == "event" || kind == "deliver" ||
         kind == "model_step" || kind == "model_reply";
}

std::string html_report(const json& report, const html_options& options) {
  const json& cases = array_at(report, "cases");
  const auto rules = rules_cited(cases);
  std::string out;
  out.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
      .append("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">")
      .append("<title>toolwire check: ")
      .append(escaped(text_at(report, "target")))
      .append("</title><style>")
      .append(page_style)
      .append(style)
      .append("</style></head><body>");
  write_summary(out, report);
  write_filters(out, cases, rules);
  write_matrix(out, cases, rules);
  out.append("<section id=\"cases\"><h2>Cases</h2>");
  if (!options.all_cases) {
    out.append(
        "<p>Diagrams and wire logs are included for cases with evidence; "
        "<code>--html-all</code> includes them for every case.</p>");
  }
  for (const auto& c : cases)
    write_case(out, c, options);
  out.append("</section><script>").append(script).append("</script></body></html>\n");
  return out;
}

}  // namespace toolwire::reports
