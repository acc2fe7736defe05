#!/usr/bin/env bash
# Issue 22, first part: a real browser tab as a Client Tools client. Headless Chromium, driven
# by browser/driver/driver.mjs, runs browser/tab/ against `toolwire serve` on loopback, and
# the test checks what a user would notice: the tab registered, the model's highlight_row
# call highlighted the row on the page, the model got the tab's results, moving to another
# screen changed the tools the model is offered, and a tab closed in the middle of a call
# makes that call fail once its TTL runs out (the model gets an error, the turn ends).
# A screenshot of the highlighted row is kept in OUTDIR.
# Usage: tab_in_chromium.sh TOOLWIRE OUTDIR [extra `toolwire serve` arguments, e.g. --fault F]
# Skipped (77) where chromium, node or browser/node_modules is missing, unless CI is set:
# there a missing piece is a failure. scripts/bootstrap --browser installs all three.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=browser_test_lib.sh
. "$here/browser_test_lib.sh"
browser_test_setup "$@"

KEY=tab-test-key
TTL=3            # the tab's TTL in seconds; it pings every TTL/3
ACK_MS=10000     # longer than the TTL, so that a closed tab's call fails by expiry
RESULT_MS=20000
fail() {
  echo "FAIL: $*"
  for log in serve.err driver.err model.err; do
    [ -s "$log" ] && tail -5 "$log" | sed "s|^|  $log: |"
  done
  echo "  (logs in $out: serve.err, events.txt, driver.out, driver.err, model-requests.jsonl)"
  exit 1
}

# event TYPE [CONDITION]: prints the data of the first TYPE event on the session's stream
# (read into events.txt) for which the JavaScript CONDITION over d holds; 1 when none.
event() {
  node -e 'const fs = require("fs");
    const [type, cond] = process.argv.slice(1);
    let ev = {};
    for (const line of fs.readFileSync("events.txt", "utf8").split("\n")) {
      if (line === "") {
        if (ev.event === type) { const d = JSON.parse(ev.data); if (eval(cond || "true")) { process.stdout.write(JSON.stringify(d)); process.exit(0); } }
        ev = {};
      } else if (line.startsWith("event: ")) ev.event = line.slice(7);
      else if (line.startsWith("data: ")) ev.data = line.slice(6);
    }
    process.exit(1);' "$@"
}
# api METHOD PATH [BODY]: sets $body and $status to the answer's. Helpers that can fail the
# test set variables rather than print, since a fail inside $(...) would end only a subshell.
api() {
  local resp
  resp=$(curl -sS -m 10 -X "$1" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
    ${3:+-d "$3"} -w '\n%{http_code}' "$base$2") || fail "$1 $2: curl failed"
  status=${resp##*$'\n'}
  body=${resp%$'\n'*}
}

# --- the driver -------------------------------------------------------------------------
start_driver
# The page origin of the cross-origin tab (step 5): the driver's own static server of the tab
# on 127.0.0.1, another port than the server's, so another origin; the server allows it
# (--cors-origin). The stranger is the same page server named localhost: an origin the
# server does not allow.
drive '{"cmd":"page_server"}'
PAGE_ORIGIN=$(js 'P(a[0]).origin' "$reply") || fail "the driver's page server has no origin: $reply"
STRANGER_ORIGIN=http://localhost:$(js 'P(a[0]).port' "$reply")

# --- the model, the server, the session's event stream --------------------------------
node "$here/model_stand_in.mjs" "$here/model-script.json" model-requests.jsonl >model.out 2>model.err &
pids+=($!)
until_ok 10 "the model stand-in did not start" has_url model.out
"$toolwire" serve --port 0 --clock real --api-key "$KEY" --model-url "$(listening model.out)/v1" \
  --ack-timeout-ms $ACK_MS --result-timeout-ms $RESULT_MS --cors-origin "$PAGE_ORIGIN" \
  "${serve_extra[@]}" >serve.out 2>serve.err &
pids+=($!)
until_ok 10 "toolwire serve did not start" has_url serve.out
base=$(listening serve.out)
api POST /v1/sessions '{}'
session=$body
[ "$status" = 201 ] || fail "POST /v1/sessions answered $status: $session"
sid=$(js 'P(a[0]).id' "$session") && token=$(js 'P(a[0]).token' "$session") ||
  fail "the session has no id and token: $session"
# The test's own view of the stream: everything retained from the start (Last-Event-ID: 0).
curl -sSN -H "Authorization: Bearer $KEY" -H 'Last-Event-ID: 0' "$base/v1/sessions/$sid/events" \
  >events.txt 2>events.err &
pids+=($!)

# turn TEXT: posts a user message and sets $turn_id.
turn() {
  api POST "/v1/sessions/$sid/messages" "{\"content\": \"$1\"}"
  [ "$status" = 202 ] || fail "POST messages answered $status: $body"
  turn_id=$(js 'P(a[0]).turn_id' "$body") || fail "no turn_id in $body"
}
turn_end() { event turn_completed "d.turn_id === '$1'" >/dev/null || event turn_failed "d.turn_id === '$1'" >/dev/null; }
# results_of TURN: sets $results to the tool results the model received in the turn, read
# off the turn's output (the model stand-in lists them there).
results_of() {
  local done
  done=$(event turn_completed "d.turn_id === '$1'") ||
    fail "turn $1 did not complete: $(event turn_failed "d.turn_id === '$1'")"
  results=$(js 'P(P(a[0]).output.replace(/^.*? results=/, ""))' "$done") ||
    fail "the model's output for turn $1 lists no tool results: $done"
}

# 1. The tab opens on the server's origin and registers with a TTL.
drive "{\"cmd\":\"open\",\"tab\":\"shop\",\"url\":\"$base/__toolwire_tab/index.html#session=$sid&token=$token&ttl=$TTL&name=shop\"}"
cid=$(js 'P(a[0]).client_id' "$reply")
until_ok 10 "no client_registered event for the tab's client $cid" event client_registered "d.client_id === '$cid'"
name=$(js 'P(a[0]).name' "$(event client_registered "d.client_id === '$cid'")")
# A second tab whose user presses "Leave": it DELETEs its client, which leaves at once.
drive "{\"cmd\":\"open\",\"tab\":\"visitor\",\"url\":\"$base/__toolwire_tab/index.html#session=$sid&token=$token&ttl=$TTL&name=visitor\"}"
visitor=$(js 'P(a[0]).client_id' "$reply")
drive '{"cmd":"leave","tab":"visitor"}'
until_ok 5 "the visitor tab's client $visitor did not leave when its user pressed Leave" \
  event client_unregistered "d.client_id === '$visitor' && d.reason === 'left'"
drive '{"cmd":"close","tab":"visitor"}'

# 2. The model calls highlight_row: the row is highlighted on the page and the model got the
# tab's answer.
turn "please highlight row 2"
t1=$turn_id
until_ok 20 "turn $t1 (highlight_row) did not end" turn_end "$t1"
dispatched=$(event client_tool_dispatched "d.turn_id === '$t1' && d.tool === 'highlight_row'") ||
  fail "highlight_row was never dispatched in turn $t1 (dispatched: $(grep -h '"turn_id":"'"$t1"'"' events.txt | grep '"tool"'))"
js "P(a[0]).client_id === '$cid' && P(a[0]).arguments.row === 2" "$dispatched" >/dev/null ||
  fail "highlight_row went elsewhere or with other arguments: $dispatched"
call1=$(js 'P(a[0]).call_id' "$dispatched")
event client_tool_completed "d.call_id === '$call1' && d.is_error === false" >/dev/null ||
  fail "the tab's answer to $call1 was not a completed result: $(grep -A2 "$call1" events.txt)"
drive '{"cmd":"query","tab":"shop","selector":"#orders tr.highlighted"}'
rows=$reply
js 'const r = P(a[0]); r.count === 1 && r.elements[0].visible && r.elements[0].text.includes("A-1002")' "$rows" >/dev/null ||
  fail "row 2 (A-1002) is not the one highlighted row on the page: $rows"
results_of "$t1"
js 'const r = P(a[0]); r.length === 1 && P(r[0].content).highlighted === 2 && P(r[0].content).order === "A-1002"' \
  "$results" >/dev/null || fail "the model did not get the tab's highlight_row result: $results"
drive "{\"cmd\":\"screenshot\",\"tab\":\"shop\",\"path\":\"$out/tab-highlighted.png\"}"
[ -s tab-highlighted.png ] || fail "empty screenshot"
drive '{"cmd":"state","tab":"shop"}'
answered=$reply
js 'const s = P(a[0]).state; s.calls_answered === 1 && s.last_error === null' "$answered" >/dev/null ||
  fail "the tab's own state does not show one call answered without error: $answered"

# 3. Navigation PUTs the form screen's tools: the server announces them and the model is
# offered exactly them (highlight_row withdrawn), and read_form answers with the form.
drive '{"cmd":"navigate","tab":"shop","screen":"form"}'
until_ok 10 "no client_tools_updated [read_form, pick_date] for $cid after navigating" \
  event client_tools_updated "d.client_id === '$cid' && JSON.stringify(d.tools) === '[\"read_form\",\"pick_date\"]'"
turn "please read the form"
t2=$turn_id
until_ok 20 "turn $t2 (read_form) did not end" turn_end "$t2"
offered=$(js 'const lines = require("fs").readFileSync("model-requests.jsonl", "utf8").trim().split("\n");
  P(lines.at(-1)).offered.join(",")' "")
[ "$offered" = "${name}__read_form,${name}__pick_date" ] ||
  fail "after navigating, the model was offered '$offered', not '${name}__read_form,${name}__pick_date'"
results_of "$t2"
js 'const r = P(a[0]); r.length === 1 && P(r[0].content).fields.email === "ada@example.org"' "$results" >/dev/null ||
  fail "the model did not get the form's fields from read_form: $results"

# 4. A tab closed in the middle of a call: frozen, so it cannot answer, then closed, so it
# stops pinging. It says nothing on closing; the call fails when its TTL runs out, and the
# model gets an error result.
drive '{"cmd":"freeze","tab":"shop"}'
turn "read the form once more"
t3=$turn_id
until_ok 10 "read_form was never dispatched in turn $t3" \
  event client_tool_dispatched "d.turn_id === '$t3' && d.client_id === '$cid'"
call3=$(js 'P(a[0]).call_id' "$(event client_tool_dispatched "d.turn_id === '$t3'")")
drive '{"cmd":"close","tab":"shop"}'
closed_at=$SECONDS
until_ok $((ACK_MS / 1000 + 10)) "turn $t3 did not end after its tab closed" turn_end "$t3"
failed=$(event client_tool_failed "d.call_id === '$call3'") ||
  fail "the call $call3 to the closed tab did not fail: $(grep -A2 "$call3" events.txt | tr '\n' ' ')"
js 'P(a[0]).reason === "client_expired"' "$failed" >/dev/null ||
  fail "the call $call3 to the closed tab failed for another reason than its TTL: $failed"
until_ok 5 "the closed tab's client $cid did not expire" \
  event client_unregistered "d.client_id === '$cid' && d.reason === 'expired'"
results_of "$t3"
js 'const r = P(a[0]); r.length === 1 && P(r[0].content).error.reason === "client_expired"' "$results" >/dev/null ||
  fail "the model did not get an error result for the closed tab's call: $results"

# 5. Cross-origin (docs/cors.md): a tab whose page is on another origin than the server, as
# an app served from its own host would be. Chromium itself applies CORS to every fetch and
# to the EventSource: the preflights, the Authorization header, the answers' readability.
# From the origin the server allows (--cors-origin), the tab registers, streams and answers
# the model's call; from any other origin the browser refuses to let it register.
cross_url="$PAGE_ORIGIN/__toolwire_tab/index.html#session=$sid&token=$token&ttl=$TTL&name=crossapp&base=$base"
drive "{\"cmd\":\"open\",\"tab\":\"cross\",\"url\":\"$cross_url\"}"
cross=$(js 'P(a[0]).client_id' "$reply")
until_ok 10 "the cross-origin tab's event stream did not open" \
  eval 'drive "{\"cmd\":\"state\",\"tab\":\"cross\"}"; js "P(a[0]).state.stream_open" "$reply"'
turn "please highlight row 2 from the other origin"
t5=$turn_id
until_ok 20 "turn $t5 (highlight_row on the cross-origin tab) did not end" turn_end "$t5"
dispatched=$(event client_tool_dispatched "d.turn_id === '$t5' && d.client_id === '$cross'") ||
  fail "highlight_row was not dispatched to the cross-origin tab $cross in turn $t5"
call5=$(js 'P(a[0]).call_id' "$dispatched")
event client_tool_completed "d.call_id === '$call5' && d.is_error === false" >/dev/null ||
  fail "the cross-origin tab's answer to $call5 did not complete the call: $(grep -A2 "$call5" events.txt | tr '\n' ' ')"
drive '{"cmd":"query","tab":"cross","selector":"#orders tr.highlighted"}'
js 'P(a[0]).count === 1' "$reply" >/dev/null || fail "the cross-origin tab highlighted no row: $reply"
stranger_url="$STRANGER_ORIGIN/__toolwire_tab/index.html#session=$sid&token=$token&ttl=$TTL&name=stranger&base=$base"
sent=$((sent + 1))
echo "{\"cmd\":\"open\",\"tab\":\"stranger\",\"url\":\"$stranger_url\"}" >&3
until_ok 60 "the driver did not answer the stranger tab's open" eval '[ "$(wc -l <driver.out)" -ge $sent ]'
reply=$(sed -n "${sent}p" driver.out)
js '!P(a[0]).ok && /did not register/.test(P(a[0]).error)' "$reply" >/dev/null ||
  fail "a tab from $STRANGER_ORIGIN, an origin the server does not allow, registered or failed otherwise: $reply"
if event client_registered "d.name.startsWith('stranger')" >/dev/null; then
  echo "  (the server registered the stranger's client; the browser kept the answer from its page)"
fi

drive '{"cmd":"quit"}'
echo "ok: tab $name ($cid) registered, highlighted row 2, answered read_form after navigating" \
  "(offered: $offered); the closed tab's call failed client_expired $((SECONDS - closed_at)) s after" \
  "closing; a tab on $PAGE_ORIGIN answered across origins, one on $STRANGER_ORIGIN was refused" \
  "by Chromium; screenshot $out/tab-highlighted.png"
