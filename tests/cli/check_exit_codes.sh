#!/usr/bin/env bash
# toolwire check's exit codes, baselines and messages, as a CI user meets them.
# Usage: check_exit_codes.sh TOOLWIRE
set -uo pipefail
toolwire=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect CODE DESCRIPTION -- COMMAND...: runs COMMAND, compares its exit code.
expect() {
  local want=$1 what=$2
  shift 3
  "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [[ $got -ne $want ]]; then
    echo "FAIL: $what: exit $got, want $want" >&2
    sed 's/^/  | /' "$work/out" "$work/err" >&2
    failures=$((failures + 1))
  fi
}
# expect_text PATTERN FILE DESCRIPTION
expect_text() {
  if ! grep -q -- "$1" "$2"; then
    echo "FAIL: $3: no '$1' in $(basename "$2")" >&2
    sed 's/^/  | /' "$2" >&2
    failures=$((failures + 1))
  fi
}

few=(--filter 'reg.tool-name-6*' --quiet)
expect 0 "passing cases" -- "$toolwire" check "${few[@]}"
expect 1 "a fault the cases catch" -- "$toolwire" check "${few[@]}" --fault invalid_tool_name_accepted
expect_text "reproduce: toolwire check --filter 'reg.tool-name-65-chars-rejected'" "$work/out" "reproduce line"
expect 2 "a missing profile" -- "$toolwire" check --target "$work/none.json"
expect_text "none.json" "$work/err" "missing profile names the file"
echo '{"name": "x", "clock": "fast"}' >"$work/bad.json"
expect 2 "an invalid profile" -- "$toolwire" check --target "$work/bad.json"
expect_text "bad.json" "$work/err" "invalid profile names the file"
cat >"$work/gone.json" <<JSON
{"name": "gone", "base_url": "http://127.0.0.1:9", "api_key": "SECRET-KEY", "parts": ["A"],
 "model_stand_in": "127.0.0.1:18557", "clock": "virtual"}
JSON
expect 2 "an unreachable target" -- "$toolwire" check --target "$work/gone.json" "${few[@]}"
expect_text "unreachable" "$work/err" "unreachable target says so"
if grep -q SECRET-KEY "$work/out" "$work/err"; then
  echo "FAIL: the API key appeared in the output" >&2
  failures=$((failures + 1))
fi
expect 2 "a bad shard" -- "$toolwire" check --shard 3/2
expect 2 "a filter matching nothing" -- "$toolwire" check --filter 'no-such-case*'
expect 2 "an unknown flag" -- "$toolwire" check --no-such-flag

# Baselines: listed failures pass the run, a listed pass fails it, --update-baseline writes.
expect 0 "update the baseline" -- "$toolwire" check "${few[@]}" --fault invalid_tool_name_accepted \
  --expected-failures "$work/baseline.txt" --update-baseline
expect_text "reg.tool-name-65-chars-rejected" "$work/baseline.txt" "baseline lists the failure"
expect 0 "listed failures" -- "$toolwire" check "${few[@]}" --fault invalid_tool_name_accepted \
  --expected-failures "$work/baseline.txt"
expect 1 "a stale baseline" -- "$toolwire" check "${few[@]}" --expected-failures "$work/baseline.txt"
expect_text "STALE BASELINE reg.tool-name-65-chars-rejected" "$work/out" "stale entry named"

# Reports are written, and the JUnit file counts the failure.
expect 1 "reports" -- "$toolwire" check "${few[@]}" --fault invalid_tool_name_accepted \
  --junit "$work/r/junit.xml" --json "$work/r/report.json" --markdown "$work/r/summary.md"
expect_text 'failures="1"' "$work/r/junit.xml" "JUnit failure count"
expect_text '"fail": 1' "$work/r/report.json" "JSON totals"
expect_text "FAILED" "$work/r/summary.md" "Markdown verdict"

if ((failures > 0)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all exit-code checks passed"
