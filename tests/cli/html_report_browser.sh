#!/bin/sh
# The HTML report in a real browser (issue 12.1): headless Chromium opens a failing run's
# report, the script ran (it marks <html data-js="ready"> and counts the shown cases), the
# filters hide what they should, no console error was logged, the page made no network
# request (read off Chromium's NetLog), and a screenshot is kept for people to look at.
# Skipped (77) only where chromium is not installed; scripts/bootstrap --browser installs it,
# and scripts/test does so before ctest (docs/conformance.md, "Reports").
set -u
toolwire=$1
out=$2
command -v chromium >/dev/null 2>&1 ||
  { echo "chromium not installed: skipped (install it with scripts/bootstrap --browser)"; exit 77; }
rm -rf "$out" && mkdir -p "$out" || exit 1
cd "$out" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# python3 reads the NetLog; bootstrap --browser installs it beside chromium, so its absence
# is a broken setup, not a reason to skip.
command -v python3 >/dev/null 2>&1 || fail "python3 is needed to read the NetLog (scripts/bootstrap --browser)"

"$toolwire" check --in-process --quiet --fault vanished_calls_left_open --filter 'life.*' \
  --json report.json --html report.html >check.log
[ $? -eq 1 ] || fail "check against a fault should exit 1"
page="file://$out/report.html"

# browse NAME ARGS...: one headless Chromium run; its stderr goes to NAME.log and its NetLog
# (every request the network stack saw) to NAME.netlog.json. The flags after --user-data-dir
# turn off Chromium's own background traffic (component and extension updates, sync, network
# time, first-run and default apps), so that what the NetLog shows is, as far as flags can
# make it, the page's. Two requests survive every flag in Chromium 156 and are dealt with in
# page_requests below.
browse() {
  name=$1
  shift
  timeout 60 chromium --headless --disable-gpu --no-sandbox --enable-logging=stderr --v=0 \
    --user-data-dir="$out/profile" \
    --disable-background-networking --disable-component-update --disable-sync --no-first-run \
    --disable-default-apps --disable-extensions --disable-features=NetworkTimeServiceQuerying \
    --log-net-log="$out/$name.netlog.json" --net-log-capture-mode=Default "$@" 2>>"$name.log"
}

# page_requests NETLOG URL: prints "METHOD URL" for each network request that the page at URL
# made (one per line, nothing when it made none), and exits 2 when NETLOG cannot be read.
# Requests Chromium made for itself go to stderr, marked "browser's own", for the record.
page_requests() {
  python3 - "$1" "$2" <<'EOF'
import json, sys

netlog, page = sys.argv[1], sys.argv[2]
try:
    with open(netlog) as f:
        log = json.load(f)  # a NetLog cut short (a crash, the timeout) is not JSON: exit 2
    types, begin = log["constants"]["logEventTypes"], log["constants"]["logEventPhase"]["PHASE_BEGIN"]
    events = log["events"]
except (OSError, ValueError, KeyError) as e:
    print(f"cannot read the NetLog {netlog}: {e!r}", file=sys.stderr)
    sys.exit(2)

for e in events:
    params = e.get("params") or {}
    if e.get("phase") != begin:
        continue
    if e["type"] == types["URL_REQUEST_START_JOB"]:
        url = params["url"]
        # file:// loads bypass the network stack, so the report's own URL is not expected in
        # the log at all; it is allowed in case a Chromium logs it. chrome:, data: and about:
        # are the browser's own pages and inline data, never the network.
        if url == page or url.split(":", 1)[0] in ("chrome", "data", "about"):
            continue
        # Why an ignore rule at all: with every flag above, Chromium 156 still lists the
        # Google accounts in the profile's cookie jar (POST accounts.google.com/ListAccounts,
        # sent by its identity manager for every profile) and fetches the on-device-model
        # manifest component (update.googleapis.com, registered outside the component
        # updater that --disable-component-update stops). No document starts them: the NetLog
        # gives them no initiator ("not an origin") and an isolation key that is not the
        # report's (file://). Whatever the report's page starts, be it a subresource, fetch,
        # beacon or frame, carries its origin as initiator ("null" or "file://") and a
        # file:// isolation key, so it is never skipped here.
        nik = params.get("network_isolation_key", "")
        if params.get("initiator") == "not an origin" and not nik.startswith("file://"):
            print(f"browser's own: {params.get('method')} {url}", file=sys.stderr)
            continue
        print(f"{params.get('method')} {url}")
    elif e["type"] == types.get("HTTP_STREAM_JOB_CONTROLLER") and params.get("is_preconnect"):
        # <link rel=preconnect> opens a connection without any URL request; Chromium makes no
        # preconnect of its own in these runs.
        print(f"PRECONNECT {params.get('url')}")
EOF
}

# no_requests NAME URL: fails, listing them, if the run NAME of the page at URL made requests.
no_requests() {
  made=$(page_requests "$1.netlog.json" "$2" 2>>"$1.log") || fail "could not read $1.netlog.json"
  [ -z "$made" ] || fail "the report at $2 made network requests:
$made"
}

# Why this self-check: a NetLog that is never written, or one whose format changed, would
# make every no_requests pass. A copy of the report with one injected loopback image must be
# caught, and exactly it: the browser's own requests must not be reported either. Port 9 is
# on Chromium's list of unsafe ports, so the request is logged and refused before any
# connection is made (ERR_UNSAFE_PORT).
injected='<img src="http://127.0.0.1:9/x.png">'
sed "s|<body>|<body>$injected|" report.html >selfcheck.html
grep -qF "$injected" selfcheck.html || fail "self-check: no <body> to inject the image into"
browse selfcheck --dump-dom "file://$out/selfcheck.html" >/dev/null ||
  fail "chromium could not open the self-check page"
caught=$(page_requests selfcheck.netlog.json "file://$out/selfcheck.html" 2>>selfcheck.log) ||
  fail "could not read selfcheck.netlog.json"
[ "$caught" = "GET http://127.0.0.1:9/x.png" ] ||
  fail "self-check: the NetLog check should report exactly the injected image, it reported: '$caught'"

browse dom --dump-dom "$page" >dom.html || fail "chromium could not open the report"
no_requests dom "$page"
grep -q '<html lang="en" data-js="ready">' dom.html || fail "the script did not run"
total=$(grep -o '<article class="case' report.html | wc -l)
grep -q "id=\"f-count\">$total of $total cases shown<" dom.html || fail "the case count is not shown"
failed=$(grep -o 'data-verdict="fail"' report.html | wc -l)
[ "$failed" -gt 0 ] || fail "the fault failed no case"

browse dom-failed --dump-dom "$page?failed=1" >dom-failed.html || fail "chromium could not open the report"
no_requests dom-failed "$page?failed=1"
grep -q "id=\"f-count\">$failed of $total cases shown<" dom-failed.html ||
  fail "'failed only' does not show exactly the $failed failed cases"
hidden=$(grep -o '<article class="case[^"]*hidden"' dom-failed.html | wc -l)
[ "$hidden" -eq $((total - failed)) ] || fail "'failed only' hid $hidden cases, not $((total - failed))"

browse dom-rule --dump-dom "$page?rule=LIFE-2" >dom-rule.html || fail "chromium could not open the report"
no_requests dom-rule "$page?rule=LIFE-2"
citing=$(grep -o '<article class="case[^>]*data-rules="[^"]*LIFE-2[ "]' report.html | wc -l)
grep -q "id=\"f-count\">$citing of $total cases shown<" dom-rule.html ||
  fail "the rule filter does not show exactly the $citing cases citing LIFE-2"

# Why any console line fails: Chromium logs console.error, console.log and uncaught
# exceptions alike ("INFO:CONSOLE:38] ..."), and the report logs nothing when all is well.
if grep -E 'CONSOLE[(:]' dom.log dom-failed.log dom-rule.log; then
  fail "the page wrote to the console (above)"
fi
browse screenshot --screenshot="$out/report.png" --window-size=1280,2000 "$page" >/dev/null ||
  fail "no screenshot"
no_requests screenshot "$page"
[ -s report.png ] || fail "empty screenshot"
ignored=$(cat dom.log dom-failed.log dom-rule.log screenshot.log | grep -c "^browser's own: ")
echo "ok: $total cases, $failed failed, no request from the page (self-check caught the injected" \
  "image; $ignored requests of Chromium's own skipped, listed in $out/*.log); screenshot $out/report.png"
