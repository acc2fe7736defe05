// The comparison matrix and its Markdown and HTML pages.
#include "toolwire/reports/compare.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "page.hpp"

namespace toolwire::reports {

namespace {

using namespace page;

//! A cell's text: an absent case reads as a dash, not as a verdict.
std::string cell_text(const std::string& verdict) {
  return verdict.empty() ? "\u2014" : verdict;
}

}  // namespace

comparison compare_runs(const std::vector<compared_run>& runs) {
  comparison c;
  std::vector<std::map<std::string, std::string>> by_run;
  std::set<std::string> ids;
  for (const auto& run : runs) {
    c.labels.push_back(run.label);
    auto& verdicts = by_run.emplace_back();
    for (const auto& item : array_at(run.report, "cases")) {
      const std::string id = text_at(item, "id");
      if (id.empty()) continue;
      verdicts[id] = text_at(item, "verdict");
      ids.insert(id);
    }
  }
  c.case_ids.assign(ids.begin(), ids.end());
  c.passed.assign(runs.size(), 0);
  c.failed.assign(runs.size(), 0);
  c.present.assign(runs.size(), 0);
  for (const auto& id : c.case_ids) {
    auto& row = c.verdicts.emplace_back();
    for (std::size_t run = 0; run < runs.size(); ++run) {
      const auto found = by_run[run].find(id);
      row.push_back(found == by_run[run].end() ? "" : found->second);
      if (found == by_run[run].end()) continue;
      ++c.present[run];
      if (found->second == "pass") ++c.passed[run];
      if (found->second == "fail") ++c.failed[run];
    }
    const bool differs =
        std::adjacent_find(row.begin(), row.end(), std::not_equal_to<>()) != row.end();
    c.differs.push_back(differs);
    if (differs) ++c.differing;
  }
  return c;
}

std::vector<std::string> run_labels(const std::vector<std::string>& targets,
                                    const std::vector<std::string>& files) {
  std::map<std::string, int> uses;
  for (const auto& target : targets)
    ++uses[target];
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    std::string label = targets[i].empty() ? files[i] : targets[i];
    if (!targets[i].empty() && uses[targets[i]] > 1)
      label.append(" (").append(files[i]).append(")");
    labels.push_back(label);
  }
  return labels;
}

std::string compare_markdown(const comparison& c, bool differences_only) {
  std::string out = "# toolwire: runs compared\n\n";
  out.append(std::to_string(c.case_ids.size()))
      .append(" cases, ")
      .append(std::to_string(c.differing))
      .append(
          " with differing verdicts.\n\n| run | passed | failed | cases |\n|---|---:|---:|---:|\n");
  for (std::size_t run = 0; run < c.labels.size(); ++run) {
    out.append("| ")
        .append(c.labels[run])
        .append(" | ")
        .append(std::to_string(c.passed[run]))
        .append(" | ")
        .append(std::to_string(c.failed[run]))
        .append(" | ")
        .append(std::to_string(c.present[run]))
        .append(" |\n");
  }
  out.append("\n| case |");
  for (const auto& label : c.labels)
    out.append(" ").append(label).append(" |");
  out.append("\n|---|");
  for (std::size_t run = 0; run < c.labels.size(); ++run)
    out.append("---|");
  out.append("\n");
  // Why differing rows first: they are what a reader opened the comparison for.
  for (const bool differing : {true, false}) {
    if (!differing && differences_only) break;
    for (std::size_t i = 0; i < c.case_ids.size(); ++i) {
      if (c.differs[i] != differing) continue;
      out.append("| ");
      if (differing) out.append("**").append(c.case_ids[i]).append("**");
      if (!differing) out.append(c.case_ids[i]);
      out.append(" |");
      for (const auto& verdict : c.verdicts[i])
        out.append(" ").append(cell_text(verdict)).append(" |");
      out.append("\n");
    }
  }
  return out;
}

namespace {

constexpr std::string_view compare_style = R"css(
#matrix td.v{color:#fff;text-align:center;white-space:nowrap}#matrix td.absent{color:#57606a;text-align:center}
#matrix tr.differs td:first-child{border-left:5px solid var(--fail);font-weight:600}
#matrix th{position:sticky;top:0;background:#fff}.hidden{display:none}
)css";

constexpr std::string_view compare_script = R"js(
(function(){
var box=document.getElementById('f-differs'),rows=document.querySelectorAll('#matrix tbody tr');
function apply(){for(var i=0;i<rows.length;i++){rows[i].classList.toggle('hidden',box.checked&&!rows[i].classList.contains('differs'));}}
box.addEventListener('change',apply);
if(new URLSearchParams(location.search).get('differs'))box.checked=true;
apply();
document.documentElement.setAttribute('data-js','ready');
})();
)js";

}  // namespace

std::string compare_html(const comparison& c) {
  std::string out = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">";
  out.append("<title>toolwire: runs compared</title><style>")
      .append(page_style)
      .append(compare_style)
      .append("</style></head><body><h1>toolwire: runs compared</h1><p>")
      .append(std::to_string(c.case_ids.size()))
      .append(" cases, <strong>")
      .append(std::to_string(c.differing))
      .append("</strong> with differing verdicts.</p>")
      .append(
          "<table class=\"counts\"><tr><th>run</th><th>passed</th><th>failed</th>"
          "<th>cases</th></tr>");
  for (std::size_t run = 0; run < c.labels.size(); ++run) {
    out.append("<tr><th>")
        .append(escaped(c.labels[run]))
        .append("</th><td class=\"t-pass\">")
        .append(std::to_string(c.passed[run]))
        .append("</td><td class=\"t-fail\">")
        .append(std::to_string(c.failed[run]))
        .append("</td><td>")
        .append(std::to_string(c.present[run]))
        .append("</td></tr>");
  }
  out.append("</table><p><label><input type=\"checkbox\" id=\"f-differs\"> differing only")
      .append("</label></p><table id=\"matrix\"><thead><tr><th>case</th>");
  for (const auto& label : c.labels)
    out.append("<th>").append(escaped(label)).append("</th>");
  out.append("</tr></thead><tbody>");
  for (std::size_t i = 0; i < c.case_ids.size(); ++i) {
    out.append(c.differs[i] ? "<tr class=\"differs\"><td>" : "<tr><td>")
        .append(escaped(c.case_ids[i]))
        .append("</td>");
    for (const auto& verdict : c.verdicts[i]) {
      if (verdict.empty()) {
        out.append("<td class=\"absent\">\u2014</td>");
      } else {
        out.append("<td class=\"v ")
            .append(verdict_class(verdict))
            .append("\">")
            .append(escaped(verdict))
            .append("</td>");
      }
    }
    out.append("</tr>");
  }
  out.append("</tbody></table><script>").append(compare_script).append("</script></body></html>\n");
  return out;
}

}  // namespace toolwire::reports
