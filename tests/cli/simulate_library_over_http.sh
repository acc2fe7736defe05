#!/usr/bin/env bash
# Every scenario of the library passes over HTTP against the bundled server, as it does
# in-process (issue 11): the scenario language, the harness and the reference agree on
# every route. Also: a remote trace replays as identical after normalising, and replays
# as diverged against a faulty server.
# Usage: simulate_library_over_http.sh TOOLWIRE LIBRARY_DIR
set -uo pipefail
toolwire=$1
library=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
count=0
for file in "$library"/*.yaml; do
  count=$((count + 1))
  if ! "$toolwire" simulate "$file" --bundled >"$work/out" 2>&1; then
    echo "FAIL: $(basename "$file") over HTTP:" >&2
    sed 's/^/  | /' "$work/out" >&2
    failures=$((failures + 1))
  fi
done
if [[ $count -lt 30 ]]; then
  echo "FAIL: only $count scenarios in $library" >&2
  failures=$((failures + 1))
fi

scenario="$library/double_result.yaml"
"$toolwire" simulate "$scenario" --bundled --trace "$work/run.jsonl" >/dev/null
if ! "$toolwire" replay "$work/run.jsonl" >"$work/out" 2>&1 ||
  ! grep -q "identical after normalising" "$work/out"; then
  echo "FAIL: a remote trace does not replay as identical:" >&2
  sed 's/^/  | /' "$work/out" >&2
  failures=$((failures + 1))
fi
# The same trace, its header naming a faulty server: the replay finds the difference.
sed '1s/"faults":\[\]/"faults":["double_result_accepted"]/' "$work/run.jsonl" >"$work/faulty.jsonl"
"$toolwire" replay "$work/faulty.jsonl" >"$work/out" 2>&1
got=$?
if [[ $got -ne 1 ]] || ! grep -qE "CALL-(5|6)" "$work/out"; then
  echo "FAIL: a replay against a faulty server: exit $got, want 1 naming CALL-5 or CALL-6 (a second result accepted)" >&2
  sed 's/^/  | /' "$work/out" >&2
  failures=$((failures + 1))
fi
# A scenario the target cannot run checks nothing: exit 2, never green.
sed 's|"base_url": "[^"]*"|"base_url": "http://127.0.0.1:9"|' \
  "$library/../../examples/virtual-clock.json" >"$work/profile.json"
"$toolwire" simulate "$scenario" --target "$work/profile.json" >"$work/out" 2>&1
if [[ $? -ne 2 ]] || ! grep -q "unreachable" "$work/out"; then
  echo "FAIL: an unreachable --target is not exit 2 with a reason" >&2
  sed 's/^/  | /' "$work/out" >&2
  failures=$((failures + 1))
fi
echo "$count scenarios over HTTP, $failures failure(s)"
exit $((failures > 0))
