#!/usr/bin/env bash
# Issue 22.7: `toolwire serve --demo` in headless Chromium, as a new user would watch it. The
# server prints the demo's URL; the page there is a tab client already wired to a session
# the server created, with the built-in demo model script. The test asks the model to
# highlight a row (the row is highlighted, the model answers), switches to the form and asks
# it to read the form (the model answers from the form), and keeps a screenshot in OUTDIR
# (docs/demo.png is one such screenshot).
# Usage: demo_in_chromium.sh TOOLWIRE OUTDIR [extra `toolwire serve` arguments]
# Skipped (77) where chromium, node or browser/node_modules is missing, unless CI is set.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=browser_test_lib.sh
. "$here/browser_test_lib.sh"
browser_test_setup "$@"
fail() {
  echo "FAIL: $*"
  for log in serve.out serve.err driver.err; do
    [ -s "$log" ] && tail -5 "$log" | sed "s|^|  $log: |"
  done
  exit 1
}

start_driver
"$toolwire" serve --port 0 --demo "${serve_extra[@]}" >serve.out 2>serve.err &
pids+=($!)
until_ok 10 "toolwire serve --demo did not start" grep -q '^demo: open ' serve.out
url=$(sed -n 's|^demo: open \(http://[0-9.:]*/demo/\) .*$|\1|p' serve.out)
[ -n "$url" ] || fail "toolwire serve --demo printed no demo URL: $(cat serve.out)"
grep -q 'st_' serve.out serve.err && fail "the demo printed a session token"

drive "{\"cmd\":\"open\",\"tab\":\"demo\",\"url\":\"$url\"}"
name=$(js 'P(a[0]).name' "$reply")
[ "$name" = web ] || fail "the demo tab registered as '$name', not 'web' (the demo model calls web__...)"

drive '{"cmd":"ask","tab":"demo","text":"please highlight row 2"}'
js 'P(a[0]).answer === "model: Row 2 is highlighted."' "$reply" >/dev/null ||
  fail "the demo model did not answer the highlight: $reply"
drive '{"cmd":"query","tab":"demo","selector":"#orders tr.highlighted"}'
js 'const r = P(a[0]); r.count === 1 && r.elements[0].text.includes("A-1002")' "$reply" >/dev/null ||
  fail "row 2 is not highlighted on the demo page: $reply"
drive "{\"cmd\":\"screenshot\",\"tab\":\"demo\",\"path\":\"$out/demo.png\"}"
[ -s demo.png ] || fail "empty screenshot"

drive '{"cmd":"navigate","tab":"demo","screen":"form"}'
drive '{"cmd":"ask","tab":"demo","text":"please read the form"}'
js 'P(a[0]).answer === "model: I read the form for you."' "$reply" >/dev/null ||
  fail "the demo model did not answer from the form: $reply"
drive '{"cmd":"state","tab":"demo"}'
js 'const s = P(a[0]).state; s.calls_answered === 2 && s.last_error === null' "$reply" >/dev/null ||
  fail "the demo tab did not answer both calls without error: $reply"
drive '{"cmd":"quit"}'
echo "ok: toolwire serve --demo at $url: the model highlighted row 2 and read the form; screenshot $out/demo.png"
