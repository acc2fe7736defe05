#!/bin/sh
# The HTML report in a real browser (issue 12.1): headless Chromium opens a failing run's
# report, the script ran (it marks <html data-js="ready"> and counts the shown cases), the
# filters hide what they should, no console error was logged, and a screenshot is kept for
# people to look at. Skipped (77) where chromium is not installed: it is not part of the
# bootstrap (docs/conformance.md, "Reports").
set -u
toolwire=$1
out=$2
command -v chromium >/dev/null 2>&1 || { echo "chromium not installed: skipped"; exit 77; }
rm -rf "$out" && mkdir -p "$out" || exit 1
cd "$out" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

"$toolwire" check --in-process --quiet --fault vanished_calls_left_open --filter 'life.*' \
  --json report.json --html report.html >check.log
[ $? -eq 1 ] || fail "check against a fault should exit 1"
page="file://$out/report.html"
browse() {
  timeout 60 chromium --headless --disable-gpu --no-sandbox --enable-logging=stderr --v=0 \
    --user-data-dir="$out/profile" "$@" 2>>browser.log
}

browse --dump-dom "$page" >dom.html || fail "chromium could not open the report"
grep -q '<html lang="en" data-js="ready">' dom.html || fail "the script did not run"
total=$(grep -o '<article class="case' report.html | wc -l)
grep -q "id=\"f-count\">$total of $total cases shown<" dom.html || fail "the case count is not shown"
failed=$(grep -o 'data-verdict="fail"' report.html | wc -l)
[ "$failed" -gt 0 ] || fail "the fault failed no case"

browse --dump-dom "$page?failed=1" >dom-failed.html || fail "chromium could not open the report"
grep -q "id=\"f-count\">$failed of $total cases shown<" dom-failed.html ||
  fail "'failed only' does not show exactly the $failed failed cases"
hidden=$(grep -o '<article class="case[^"]*hidden"' dom-failed.html | wc -l)
[ "$hidden" -eq $((total - failed)) ] || fail "'failed only' hid $hidden cases, not $((total - failed))"

browse --dump-dom "$page?rule=LIFE-2" >dom-rule.html || fail "chromium could not open the report"
citing=$(grep -o '<article class="case[^>]*data-rules="[^"]*LIFE-2[ "]' report.html | wc -l)
grep -q "id=\"f-count\">$citing of $total cases shown<" dom-rule.html ||
  fail "the rule filter does not show exactly the $citing cases citing LIFE-2"

if grep -E 'Uncaught|CONSOLE\([0-9]+\).*[Ee]rror' browser.log; then fail "console errors"; fi
browse --screenshot="$out/report.png" --window-size=1280,2000 "$page" >/dev/null ||
  fail "no screenshot"
[ -s report.png ] || fail "empty screenshot"
echo "ok: $total cases, $failed failed; screenshot $out/report.png"
