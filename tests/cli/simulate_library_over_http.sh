#!/usr/bin/env bash
# Every scenario of the library passes over HTTP against the bundled server, as it does
# in-process (issue 11): the scenario language, the harness and the reference agree on
# every route. Also: a remote trace replays as identical after normalising, and replays
# as diverged against a faulty server.
# Usage: simulate_library_over_http.sh TOOLWIRE LIBRARY_DIR [--virtual-clock-only | --real-clock-only]
#   --virtual-clock-only  skip the real-clock runs (CTest's simulate_library_over_http: they
#                         judge timing on the wall clock, so they run one at a time with the
#                         other such tests, as simulate_library_over_http_real_clock; the
#                         sanitized build leaves them out, since ASan slows what they time
#                         and the HTTP paths they take are the virtual-clock runs' paths)
#   --real-clock-only     only the real-clock runs
set -uo pipefail
toolwire=$1
library=$2
virtual_only=0
real_only=0
case ${3:-} in
  --virtual-clock-only) virtual_only=1 ;;
  --real-clock-only) real_only=1 ;;
  "") ;;
  *) echo "usage: simulate_library_over_http.sh TOOLWIRE LIBRARY_DIR [--virtual-clock-only | --real-clock-only]" >&2; exit 2 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
count=0
# Every scenario on the bundled server (its virtual clock), and replays of a remote trace.
virtual_clock_runs() {
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
}
# The library on a target started with other timeouts (issue 21.4): every scenario passes
# or is not applicable, with the timeouts it needs named; none reads a target's correct
# deadlines as violations. Once with the SPEC's defaults, once with the library's 2 s/10 s.
read -r ephemeral_low _ </proc/sys/net/ipv4/ip_local_port_range
stand_in_port=$((10000 + RANDOM % (ephemeral_low > 11000 ? ephemeral_low - 10000 : 1000)))
library_on() {  # library_on NAME ACK_MS RESULT_MS MIN_RAN [CLOCK [PROFILE_EXTRA [SERVE_FLAGS]]]
  local name=$1 ack=$2 result=$3 min_ran=$4 clock=${5:-virtual} extra=${6:-} serve_flags=${7:-}
  local server ran=0 skipped=0
  # shellcheck disable=SC2086 # serve_flags is a list of flags
  "$toolwire" serve --port 0 --api-key served-key-5d1e --model-url "http://127.0.0.1:$stand_in_port/v1" \
    --assistant-id 1 --clock "$clock" --ack-timeout-ms "$ack" --result-timeout-ms "$result" \
    $serve_flags >"$work/serve-$name.out" 2>&1 &
  server=$!
  for _ in $(seq 100); do
    grep -q "listening on" "$work/serve-$name.out" && break
    sleep 0.05
  done
  cat >"$work/$name.json" <<JSON
{"name": "$name", "base_url": "$(sed -n 's/^listening on //p' "$work/serve-$name.out")",
 "api_key": "served-key-5d1e", "parts": ["A", "B"], "assistant_id": 1,
 "model_stand_in": "127.0.0.1:$stand_in_port", "clock": "$clock",
 "ack_timeout_ms": $ack, "result_timeout_ms": $result$extra}
JSON
  local files=("$library"/*.yaml)
  [[ $name == *-fault ]] && files=()  # a faulty target is judged below, on one scenario
  for file in "${files[@]}"; do
    "$toolwire" simulate "$file" --target "$work/$name.json" --skip-inapplicable >"$work/out" 2>&1
    local got=$?
    if grep -q "not applicable" "$work/out"; then
      skipped=$((skipped + 1))
      if ! grep -qE "settings: need .*, the target has|needs the virtual clock|exact timing|tolerance window" "$work/out"; then
        echo "FAIL: $(basename "$file") on $name: not applicable without naming the timeouts" >&2
        sed 's/^/  | /' "$work/out" >&2
        failures=$((failures + 1))
      fi
    elif [[ $got -ne 0 ]]; then
      echo "FAIL: $(basename "$file") on $name (ack $ack ms, result $result ms): exit $got" >&2
      sed 's/^/  | /' "$work/out" >&2
      failures=$((failures + 1))
    else
      ran=$((ran + 1))
    fi
  done
  if [[ $name == spec-defaults ]]; then
    # Without --skip-inapplicable, a scenario the target cannot play is exit 2: never green.
    "$toolwire" simulate "$library/no_ack_timeout.yaml" --target "$work/spec-defaults.json" >"$work/out" 2>&1
    if [[ $? -ne 2 ]] || ! grep -q "not applicable, nothing was checked: .*ack_timeout 2 s, the target has 10 s; result_timeout 10 s, the target has 5 min" "$work/out"; then
      echo "FAIL: a scenario for other timeouts is not exit 2 naming them" >&2
      sed 's/^/  | /' "$work/out" >&2
      failures=$((failures + 1))
    fi
  fi
  if [[ $name == real-clock-put-fault ]]; then
    # The same slow harness still sees a real violation: an invalid PUT that clears the list.
    "$toolwire" simulate "$library/invalid_put_changes_nothing.yaml" --target "$work/$name.json" >"$work/out" 2>&1
    if [[ $? -ne 1 ]] || ! grep -q "invalid_put_changes_nothing.yaml:35 .*observed: model step 1 offered \[\]" "$work/out"; then
      echo "FAIL: invalid_put_changes_nothing on a real clock does not fail under invalid_put_clears_tools" >&2
      sed 's/^/  | /' "$work/out" >&2
      failures=$((failures + 1))
    fi
  fi
  kill $server 2>/dev/null
  wait $server 2>/dev/null
  if ((ran < min_ran)); then
    echo "FAIL: only $ran library scenarios ran on $name ($skipped not applicable)" >&2
    failures=$((failures + 1))
  fi
  echo "library on $name: $ran ran, $skipped not applicable"
}
if ((!real_only)); then
  virtual_clock_runs
  library_on spec-defaults 10000 300000 10
  library_on short 2000 10000 30
fi
if ((virtual_only)); then
  echo "$count scenarios over HTTP, $failures failure(s) (real-clock runs left out)"
  exit $((failures > 0))
fi
# On a real clock: what a file bound to the virtual clock's exact times cannot play is not
# applicable (with its reason); the rest passes.
library_on real-clock 2000 10000 8 real
# A harness slower than the paced gaps between steps (a settle time of 60 ms against 20 ms
# gaps) and a target that answers late: the grace after the last step counts from when it
# went out, not from its written time (issue 21: two scenarios failed every such run).
library_on real-clock-slow-harness 2000 10000 8 real ', "settle_ms": 60' \
  "--variation slow_responses --variation slow_events"
library_on real-clock-put-fault 2000 10000 0 real ', "settle_ms": 60' "--fault invalid_put_clears_tools"
if ((real_only)); then
  echo "the library on a real clock: $failures failure(s) (virtual-clock runs left out)"
else
  echo "$count scenarios over HTTP, $failures failure(s)"
fi
exit $((failures > 0))
