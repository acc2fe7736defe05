#!/usr/bin/env bash
# Issue 22.3-4, 6: the browser cases (conformance/catalog/browser/, which the scenario
# library links as scenarios/library/browser/) in real headless Chromium against the
# bundled server, as a user runs them:
#   toolwire check --browser --filter 'browser.*'
#   toolwire simulate scenarios/library/browser/*.yaml --bundled
# Every case passes; each fails (exit 1, a verdict, not an error) under every fault its
# breaks_with names; a failing case keeps its tab's screenshot and console, in the HTML
# report for check; in-process they are not applicable (exit 2, 0 with
# --skip-inapplicable); and a driver that cannot start is an error of the run (exit 2), never
# a failed expectation.
# Usage: browser_scenarios.sh TOOLWIRE OUTDIR [--sanitized | --faults]
#   (none)       everything but the fault pairs
#   --faults     only the fault pairs, one run at a time: CTest browser_scenarios_faults,
#                which runs outside the wall_clock lock (tests/CMakeLists.txt says why)
#   --sanitized  the sanitized stage's run: one scenario, no fault pairs. The library
#                judges wall-clock timing within 200 ms, which ASan slows several times
#                over (as the other real-clock tests, tests/CMakeLists.txt); the C++ path
#                of a browser run (the tab actor, the driver process) still runs sanitized.
# Skipped (77) where chromium, node or browser/node_modules is missing, unless CI is set.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=browser_test_lib.sh
. "$here/browser_test_lib.sh"
library=$(cd "$here/../../scenarios/library/browser" && pwd)
sanitized=0 faults_only=0
if [ "${3:-}" = --sanitized ]; then sanitized=1; fi
if [ "${3:-}" = --faults ]; then faults_only=1; fi
browser_test_setup "$1" "$2"

fail() {
  echo "FAIL: $*"
  echo "  (outputs in $out)"
  exit 1
}

files=("$library"/*.yaml)
[ "${#files[@]}" -ge 8 ] || fail "expected at least 8 browser scenarios in $library, found ${#files[@]}"
if ((sanitized)); then files=("$library/model_highlights_a_row.yaml"); fi

# 2. Each scenario fails under each fault it names (--faults only). One run at a time:
# each has its own bundled server and Chromium, and a locked test holds the other slot.
if ((faults_only)); then
  : >pairs.txt
  for file in "${files[@]}"; do
    faults=$(sed -n 's/^breaks_with: *\[\(.*\)\]/\1/p' "$file" | tr -d ' ' | tr ',' ' ')
    [ -n "$faults" ] || fail "$file names no fault in breaks_with"
    for fault in $faults; do echo "$file $fault" >>pairs.txt; done
  done
  pairs=0
  while read -r file fault; do
    name=$(basename "$file" .yaml)
    "$toolwire" simulate "$file" --bundled --fault "$fault" >"fault-$name-$fault.txt" 2>&1 </dev/null
    rc=$?
    [ "$rc" = 1 ] || fail "$name under fault $fault: exit $rc, expected 1 (a failed expectation): $(head -5 "fault-$name-$fault.txt")"
    grep -q "expectation(s) failed\|violation(s)" "fault-$name-$fault.txt" ||
      fail "$name under fault $fault failed without a failed expectation or violation: $(head -3 "fault-$name-$fault.txt")"
    pairs=$((pairs + 1))
  done <pairs.txt
  [ "$pairs" -ge 15 ] || fail "only $pairs scenario/fault pairs"
  echo "ok: each scenario failed under each of its faults ($pairs pairs)"
  exit 0
fi

# 1. Every case passes, in one command: `check --browser` (simulate runs each file under
# its faults with --faults, and the whole library in the sanitized stage).
if ((sanitized)); then
  "$toolwire" simulate "${files[@]}" --bundled >clean.txt 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || fail "the browser library did not pass (exit $rc): $(grep -v '^seed .*held$' clean.txt | head -20)"
else
  "$toolwire" check --browser --filter 'browser.*' --progress none --json clean.json >clean.txt 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || fail "the browser cases did not pass (exit $rc): $(head -30 clean.txt)"
  grep -q "^pass  *${#files[@]}$" clean.txt ||
    fail "check did not pass all ${#files[@]} browser cases: $(tail -12 clean.txt)"
  # Without --browser they are not applicable, and the run says how to run them.
  "$toolwire" check --filter 'browser.*' --progress none --json none.json >none.txt 2>&1
  rc=$?
  [ "$rc" -eq 2 ] && grep -q "to run them: pass --browser" none.txt ||
    fail "without --browser: exit $rc, expected 2 with the remedy --browser: $(tail -8 none.txt)"
fi
echo "ok: ${#files[@]} browser cases passed"


# 3. A failing run with --trace keeps each open tab's screenshot beside the trace and its
# console and log in it: what a person looks at.
"$toolwire" simulate "$library/model_highlights_a_row.yaml" --bundled --fault arguments_as_text \
  --trace evidence.jsonl >evidence.txt 2>&1
[ "$(head -c 8 evidence.tab-tab.png 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  fail "no PNG screenshot evidence.tab-tab.png: $(cat evidence.txt)"
grep -q "evidence of tab 'tab' at the end of the run: screenshot evidence.tab-tab.png" evidence.txt ||
  fail "the failing run does not name its screenshot: $(tail -3 evidence.txt)"
grep '"kind":"tab_evidence"' evidence.jsonl | grep -q 'answered with an error' ||
  fail "the trace has no tab_evidence with the page's log of the failed call"
echo "ok: a failing run keeps the tab's screenshot and log"

# 3b. A failing case of `check --browser` shows its tab's screenshot (a PNG, embedded) and
# the page's log in the HTML report, beside the sequence diagram.
if ((!sanitized)); then
  "$toolwire" check --browser --filter browser.model-highlights-a-row --fault arguments_as_text \
    --progress none --html failing.html --json failing.json >failing.txt 2>&1
  rc=$?
  [ "$rc" -eq 1 ] || fail "check under arguments_as_text: exit $rc, expected 1: $(head -20 failing.txt)"
  grep -q "tab 'tab' at the end of the run: its screenshot, its console and page log are in failing.json and failing.html" failing.txt ||
    fail "the console does not point at the tab's screenshot: $(cat failing.txt)"
  png=$(grep -o 'src="data:image/png;base64,[A-Za-z0-9+/=]*"' failing.html | head -1 |
    sed 's/^src="data:image\/png;base64,//; s/"$//')
  [ "$(printf %s "$png" | base64 -d 2>/dev/null | head -c 8 | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "the HTML report has no PNG screenshot of the tab"
  grep -q "answered with an error" failing.html ||
    fail "the HTML report has no page log of the failed call"
  echo "ok: a failing check keeps the tab's screenshot and log in its HTML report"
fi

# 4. Two runs in one process (one bundled server, one Chromium) show the same: the tabs'
# client ids differ (cli_1, cli_3), and are compared as what they stand for.
if ((!sanitized)); then
  "$toolwire" simulate "$library/two_tabs_of_one_app.yaml" --bundled --check-determinism \
    >determinism.txt 2>&1 || fail "two runs of two_tabs_of_one_app differ: $(head -3 determinism.txt)"
  grep -q "0 failed, determinism checked" determinism.txt ||
    fail "no determinism verdict: $(tail -2 determinism.txt)"
  echo "ok: two runs in one process show the same"
fi

# 5. In-process a browser scenario is not applicable: nothing was checked.
"$toolwire" simulate "${files[0]}" >inprocess.txt 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "not applicable, nothing was checked" inprocess.txt &&
  grep -q "add --bundled" inprocess.txt ||
  fail "in-process: exit $rc, expected 2 with the reason and the remedy: $(cat inprocess.txt)"
"$toolwire" simulate "${files[0]}" --skip-inapplicable >/dev/null 2>&1 ||
  fail "in-process with --skip-inapplicable did not exit 0"
echo "ok: not applicable in-process"

# 6. A driver that cannot start is an error of the run, with what is missing.
TOOLWIRE_BROWSER_DIR=$out/no-such-dir "$toolwire" simulate "${files[0]}" --bundled >nodriver.txt 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "cannot run here: no browser driver at $out/no-such-dir" nodriver.txt ||
  fail "without a driver: exit $rc, expected 2 naming the missing driver: $(cat nodriver.txt)"
echo "ok: a missing driver is an error, not a verdict"

# 7. Across origins: a target whose profile claims CORS for a loopback origin gets its tabs
# from that origin (the driver serves the page there, base= names the target), so the
# target's own CORS answers are what let the page work. It passes against `toolwire serve
# --cors-origin`, and fails when the server's preflight does not allow Authorization.
if ((!sanitized)); then
  free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => {
    process.stdout.write(String(s.address().port)); s.close(); });'; }
  across() {  # across NAME [serve args...]: a served target, its profile, one simulate run
    local name=$1 stand_in page
    shift
    stand_in=$(free_port) && page=$(free_port) || fail "no free port"
    "$toolwire" serve --port 0 --clock real --api-key KEY --api-key LIMITED: \
      --model-url "http://127.0.0.1:$stand_in/v1" --assistant-id 1 --ack-timeout-ms 3000 \
      --result-timeout-ms 10000 --cors-origin "http://127.0.0.1:$page" "$@" \
      >"$name-serve.out" 2>"$name-serve.err" &
    local serve_pid=$!
    pids+=("$serve_pid")
    until_ok 10 "toolwire serve ($name) did not start" has_url "$name-serve.out"
    cat >"$name.json" <<JSON
{"name": "$name", "base_url": "$(listening "$name-serve.out")", "api_key": "KEY",
 "limited_api_key": "LIMITED", "parts": ["A", "B"], "model_stand_in": "127.0.0.1:$stand_in",
 "assistant_id": 1, "clock": "real", "ack_timeout_ms": 3000, "result_timeout_ms": 10000,
 "interrupt_timeout_ms": 600000, "cors_origin": "http://127.0.0.1:$page"}
JSON
    "$toolwire" simulate "$library/model_highlights_a_row.yaml" --target "$name.json" \
      --trace "$name.jsonl" >"$name.txt" 2>&1
    echo $? >"$name.rc"
    kill "$serve_pid" 2>/dev/null
  }
  across cross-origin
  [ "$(cat cross-origin.rc)" = 0 ] || fail "across origins: exit $(cat cross-origin.rc): $(head -8 cross-origin.txt)"
  grep '"cmd":"open"' cross-origin.jsonl | grep -q '"cross_origin":true' ||
    fail "the tab did not open across origins: $(grep '"cmd":"open"' cross-origin.jsonl)"
  across cross-origin-broken --fault cors_authorization_header_not_allowed
  [ "$(cat cross-origin-broken.rc)" = 1 ] && grep -q "the tab did not register" cross-origin-broken.txt ||
    fail "across origins without Authorization in the preflight: exit $(cat cross-origin-broken.rc), expected 1 with an unregistered tab: $(head -8 cross-origin-broken.txt)"
  echo "ok: across origins the tab works through the target's CORS, and fails without it"
fi
