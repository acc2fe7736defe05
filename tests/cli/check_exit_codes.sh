#!/usr/bin/env bash
# toolwire check's exit codes, baselines and messages, as a CI user meets them.
# Usage: check_exit_codes.sh TOOLWIRE
set -uo pipefail
toolwire=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
# Why: on GitHub Actions every check below would append to this job's real step summary.
unset GITHUB_STEP_SUMMARY

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
expect 2 "a clock fault in-process" -- "$toolwire" check "${few[@]}" --in-process --fault zero_advance_rejected
expect_text "only the bundled server's virtual clock has: drop --in-process" "$work/err" "clock fault in-process"
expect 1 "a clock fault on the bundled server" -- "$toolwire" check --filter 'clock.get-now' --quiet --fault zero_advance_rejected
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
expect 2 "an unknown flag" -- "$toolwire" check --no-such-flag

# Progress: off a terminal (here, stderr is a file) auto means one line per finished case,
# with its verdict and [done/total]; a bad value is bad usage; --quiet means none.
expect 0 "--progress auto off a terminal" -- "$toolwire" check --filter 'reg.tool-name-6*' --in-process
if [[ $(grep -c '^\[[12]/2\] pass reg\.tool-name-6' "$work/err") -ne 2 ]]; then
  echo "FAIL: --progress auto on a non-TTY did not print one line per case" >&2
  sed 's/^/  | /' "$work/err" >&2
  failures=$((failures + 1))
fi
expect 1 "--progress lines with a failure" -- "$toolwire" check --filter 'reg.tool-name-6*' \
  --in-process --progress lines --fault invalid_tool_name_accepted
expect_text '^\[[12]/2\] fail reg.tool-name-65-chars-rejected$' "$work/err" "a failing case's progress line"
if grep -q $'\033' "$work/err" "$work/out"; then
  echo "FAIL: colour codes written to a file" >&2
  failures=$((failures + 1))
fi
expect 0 "--progress none" -- "$toolwire" check --filter 'reg.tool-name-6*' --in-process --progress none
if grep -q '^\[' "$work/err"; then
  echo "FAIL: --progress none printed progress" >&2
  sed 's/^/  | /' "$work/err" >&2
  failures=$((failures + 1))
fi
expect 2 "a bad --progress" -- "$toolwire" check --in-process --progress sometimes
expect_text "--progress: sometimes not in {auto,tty,lines,none}" "$work/err" "bad --progress named"
expect 2 "--quiet with --progress" -- "$toolwire" check --in-process --quiet --progress lines
expect_text "--quiet excludes --progress" "$work/err" "--quiet with --progress"

# Did you mean: a mistyped subcommand, flag and fault get the closest name.
expect 2 "a mistyped subcommand" -- "$toolwire" chekc
expect_text "did you mean 'check'? (for 'chekc')" "$work/err" "subcommand suggestion"
expect 2 "a mistyped flag" -- "$toolwire" check --filtre 'reg.*'
expect_text "did you mean '--filter'? (for '--filtre')" "$work/err" "flag suggestion"
expect 2 "a mistyped flag with =" -- "$toolwire" check --progres=lines
expect_text "did you mean '--progress'? (for '--progres=lines')" "$work/err" "flag= suggestion"
expect 2 "a mistyped nested subcommand" -- "$toolwire" profile int
expect_text "did you mean 'init'? (for 'int')" "$work/err" "nested subcommand suggestion"
expect 2 "a mistyped fault" -- "$toolwire" check "${few[@]}" --fault invalid_tool_name_acepted
expect_text "unknown fault 'invalid_tool_name_acepted' (did you mean 'invalid_tool_name_accepted'?)" \
  "$work/err" "fault suggestion"
expect 2 "a mistyped fault to serve" -- "$toolwire" serve --api-key K \
  --model-url http://127.0.0.1:9/v1 --fault invalid_tool_name_acepted
expect_text "(did you mean 'invalid_tool_name_accepted'?)" "$work/err" "serve fault suggestion"
expect_text "the nearest: invalid_tool_name_accepted, .*, .*; toolwire serve --list-faults lists all" \
  "$work/err" "serve fault: the three nearest, not the whole catalogue"
if grep -q "valid names" "$work/err"; then
  echo "FAIL: a mistyped fault to serve prints the whole catalogue" >&2
  failures=$((failures + 1))
fi
# A filter that matches nothing says how filters read and what would match.
expect 2 "a bare group as filter" -- "$toolwire" check --filter reg
expect_text "for the whole group write --filter 'reg.\*'" "$work/err" "bare group hint"
expect_text "Groups: auth, browser, call, clock" "$work/err" "groups listed"
expect 2 "a rule id as filter" -- "$toolwire" check --filter REG-1
expect_text "'REG-1' is a SPEC rule id, not a case id" "$work/err" "rule id hint"
expect 2 "a list as filter" -- "$toolwire" check --filter 'auth.*,ses.*'
expect_text "a comma is no separator" "$work/err" "comma hint"
expect 2 "a misspelt case id" -- "$toolwire" check --filter reg.ttl-0-rejcted
expect_text "Nearest ids: reg.ttl-0-rejected" "$work/err" "nearest ids"
# A base URL at a server of another protocol (python's http.server answers a POST with 501
# and an HTML page): the preflight says so, with the body escaped once.
port=$((20000 + RANDOM % 10000))
python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1 &
other=$!
for _ in $(seq 50); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
printf '{"name": "other", "base_url": "http://127.0.0.1:%s", "api_key": "K", "parts": ["A"],
  "model_stand_in": "127.0.0.1:9", "clock": "real"}' "$port" >"$work/other.json"
expect 2 "a server of another protocol" -- "$toolwire" check --target "$work/other.json"
expect_text 'answered 501, not 201 (SES-1), with a body that is not JSON: <!DOCTYPE HTML>\\x0A<html' \
  "$work/err" "another protocol's page, escaped once"
kill "$other" 2>/dev/null
wait "$other" 2>/dev/null
expect 2 "a directory as the profile" -- "$toolwire" check --target "$work"
expect_text "is a directory; a target profile is a JSON file" "$work/err" "directory profile"
expect 2 "a negative seed" -- "$toolwire" check "${few[@]}" --seed -1
expect 2 "a negative seed to explore" -- "$toolwire" explore --seed -1 --programs 1
# explore --json: the summary a script reads (bench/explore_power does), clean and found.
expect 0 "explore --json, clean" -- "$toolwire" explore --programs 20 --progress none --json "$work/clean.json"
expect_text '"outcome": "no_divergence"' "$work/clean.json" "explore --json outcome"
expect_text '"programs": 20,' "$work/clean.json" "explore --json programs"
expect_text '"median": [1-9]' "$work/clean.json" "explore --json requests per program"
expect_text '"total": [1-9][0-9]*' "$work/clean.json" "explore --json coverage"
expect 1 "explore --json, a divergence" -- "$toolwire" explore --fault put_merges_tools --programs 2000 \
  --jobs 2 --triage 1 --progress none --out "$work/explore" --json "$work/found.json"
expect_text '"outcome": "divergence"' "$work/found.json" "explore --json divergence"
expect_text '"jobs": 2,' "$work/found.json" "explore --json jobs"
expect_text "\"written\": \"$work/explore/explore-seed[0-9]*.yaml\"" "$work/found.json" "explore --json written"
expect_text '"TOOLS-[0-9]*"' "$work/found.json" "explore --json rules"
# --jobs above 64 is for programs at once against a real-clock --target only: as processes,
# it is bad usage, named.
expect 2 "explore --jobs 65 as processes" -- "$toolwire" explore --bundled --jobs 65 --programs 1
expect_text "toolwire explore: --jobs 65: at most 64 searches run as processes; more (up to 512) only as programs at once against a --target on a real clock" \
  "$work/err" "explore --jobs 65 says why"
expect_text '"programs_at_once": 1,' "$work/found.json" "explore --json programs at once"
# --focus: a rule no life-cycle move cites is bad usage, named; a focused search says how
# many programs reached the rule, in the console and the JSON, with one job and with two.
expect 2 "explore --focus on a rule no move cites" -- "$toolwire" explore --focus AUTH-1 --programs 1
expect_text "no move of the reference's life-cycle tables cites it" "$work/err" "explore --focus AUTH-1 says why"
expect 0 "explore --focus TASK-7" -- "$toolwire" explore --focus TASK-7 --programs 40 --progress none \
  --json "$work/focus.json"
expect_text "of 40 programs reached a move citing TASK-7" "$work/out" "explore --focus console line"
expect_text '"programs_reaching": [1-9]' "$work/focus.json" "explore --focus JSON"
expect 0 "explore --focus with jobs" -- "$toolwire" explore --focus TASK-7 --jobs 2 --programs 40 \
  --progress none --json "$work/focus2.json"
expect_text '"programs_reaching": [1-9]' "$work/focus2.json" "explore --focus JSON with jobs"
# explore --shard I/N (issue 25.6): a bad shard is named; shards of one campaign search
# disjoint seeds, their parts add up to --programs, and report merge joins their summaries.
expect 2 "explore --shard 3/2" -- "$toolwire" explore --shard 3/2 --programs 1
expect_text "toolwire explore: --shard must be I/N with 1 <= I <= N, e.g. 2/4; got '3/2'" "$work/err" \
  "explore --shard 3/2 says why"
expect 2 "explore --shard with no program left" -- "$toolwire" explore --shard 3/3 --programs 2
expect_text "leaves this shard no program" "$work/err" "explore --shard with no program says why"
for i in 1 2; do
  expect 0 "explore --shard $i/2, clean" -- "$toolwire" explore --shard $i/2 --programs 20 --jobs $i \
    --progress none --json "$work/clean$i.json"
done
expect_text '"seeds": \[\s*1\s*\]' <(tr -d '\n' <"$work/clean1.json") "explore --shard 1/2 seeds"
expect_text '"seeds": \[\s*2,\s*4\s*\]' <(tr -d '\n' <"$work/clean2.json") "explore --shard 2/2 --jobs 2 seeds"
expect_text "shard 2/2, seeds 2, 4" "$work/out" "explore --shard console line"
expect 0 "report merge of clean explore shards" -- "$toolwire" report merge "$work/clean2.json" \
  "$work/clean1.json" --json "$work/merged-clean.json"
expect_text '"outcome": "no_divergence"' "$work/merged-clean.json" "merged clean outcome"
expect_text '"programs": 20,' "$work/merged-clean.json" "merged clean programs: the parts add up"
expect_text "no divergence in the campaign's 20 programs" "$work/out" "merged clean console"
expect 2 "report merge with a shard missing" -- "$toolwire" report merge "$work/clean1.json"
expect_text "shard 2/2 is missing" "$work/out" "merge names the missing shard"
expect 2 "report merge of a search that was no shard" -- "$toolwire" report merge "$work/clean1.json" \
  "$work/clean.json"
expect_text "clean.json is the summary of a search that was not a shard" "$work/err" "merge names the file"
# --shrink-budget: a duration or a clear error; at its end the smallest program so far is
# written, and the summary says shrinking did not finish. Seed 6 meets the fault at its
# third program, and shrinking that takes dozens of runs, far more than 1 ms.
expect 2 "explore --shrink-budget without a unit" -- "$toolwire" explore --shrink-budget 90 --programs 1
expect_text "toolwire explore: --shrink-budget must be a positive number and a unit (ms, s, m, h), e.g. 90s or 20m; got '90'" \
  "$work/err" "explore --shrink-budget 90 says why"
expect 1 "explore --shrink-budget 1ms" -- "$toolwire" explore --seed 6 --programs 10 \
  --fault double_result_accepted --triage 1 --progress lines --shrink-budget 1ms --out "$work/budget"
expect_text "explore: a program diverged; shrinking it (up to 1ms; --no-shrink writes it as found)" \
  "$work/err" "explore says it is shrinking"
expect_text "shrinking stopped at --shrink-budget 1ms: this is the smallest program that diverged by then" \
  "$work/out" "explore says shrinking ran out of time"
expect_text "the written scenario fails on the target and passes on the reference" "$work/out" \
  "a program shrunk for 1 ms still reproduces"
# Why seed 5: shard 1/2 (seed 5, 10 programs) runs clean and shard 2/2 (seed 6) meets the
# fault at its third program, so the merge joins a clean shard and a diverging one.
expect 0 "explore --shard 1/2 with a fault, clean" -- "$toolwire" explore --shard 1/2 --seed 5 \
  --programs 20 --fault double_result_accepted --triage 1 --progress none --out "$work/shards" \
  --json "$work/fault1.json"
expect 1 "explore --shard 2/2 with a fault, diverging" -- "$toolwire" explore --shard 2/2 --seed 5 \
  --programs 20 --fault double_result_accepted --triage 1 --progress none --out "$work/shards" \
  --json "$work/fault2.json"
expect 1 "report merge of a diverging shard" -- "$toolwire" report merge "$work/fault1.json" \
  "$work/fault2.json" --json "$work/merged.json"
expect_text '"outcome": "divergence"' "$work/merged.json" "merged outcome"
expect_text "reproduce: toolwire simulate $work/shards/explore-seed6.yaml --seed 6 --fault double_result_accepted" \
  "$work/out" "merged reproduce line"
reproduce=$(grep -o '"reproduce": "[^"]*"' "$work/merged.json" | sed 's/"reproduce": "toolwire \(.*\)"/\1/')
# shellcheck disable=SC2086 # the line is a command, split as a shell would
expect 1 "the merged reproduce line reproduces" -- "$toolwire" $reproduce
expect 2 "report merge of two campaigns" -- "$toolwire" report merge "$work/clean1.json" "$work/fault2.json"
expect_text "is of another campaign than" "$work/err" "merge refuses another campaign"
expect 2 "a negative seed to simulate" -- "$toolwire" simulate library:double_result --seed -1
expect 2 "a fault nothing is close to" -- "$toolwire" check "${few[@]}" --fault zzz
if grep -q "did you mean" "$work/err"; then
  echo "FAIL: a suggestion for a name nothing is close to" >&2
  failures=$((failures + 1))
fi

# Help: every subcommand's ends with examples, exit codes and the doc to read.
for sub in check serve simulate replay explore profile "profile init" "profile check" report \
  "report html" "report compare" "report merge"; do
  # shellcheck disable=SC2086  # "profile init" is two words on purpose
  expect 0 "$sub --help" -- "$toolwire" $sub --help
  expect_text "^Examples:" "$work/out" "$sub --help examples"
  expect_text "^Exit codes: 0" "$work/out" "$sub --help exit codes"
  expect_text "^Read: docs/" "$work/out" "$sub --help docs"
  # Its own exit codes only: the top-level ones ("1 a failure found") would contradict them.
  if [[ $(grep -c "^Exit codes:" "$work/out") -ne 1 ]] || grep -q "a failure found (a failing case" "$work/out"; then
    echo "FAIL: $sub --help shows exit codes other than its own" >&2
    failures=$((failures + 1))
  fi
done

# profile init writes the examples/ profiles (without "$schema"), which load; it does not
# overwrite a file without --force; profile check names a bad file.
examples=$(dirname "$0")/../../examples
expect 0 "profile init" -- "$toolwire" profile init "$work/init.json"
expect_text "what each field means" "$work/err" "init explains the fields"
expect 0 "profile check of what init wrote" -- "$toolwire" profile check "$work/init.json"
expect_text "valid profile 'example-virtual-clock'" "$work/out" "init's profile loads"
# Why grep, not jq: the test needs nothing the bootstrap does not install.
if ! diff <(grep -v '"\$schema"' "$examples/virtual-clock.json") "$work/init.json" >/dev/null; then
  echo "FAIL: profile init differs from examples/virtual-clock.json" >&2
  failures=$((failures + 1))
fi
expect 2 "profile init over a file" -- "$toolwire" profile init "$work/init.json"
expect_text "exists; give --force" "$work/err" "init refuses to overwrite"
expect 0 "profile init --clock real to stdout" -- "$toolwire" profile init --clock real
cp "$work/out" "$work/init-real.json"
if ! diff <(grep -v '"\$schema"' "$examples/real-clock.json") "$work/init-real.json" >/dev/null; then
  echo "FAIL: profile init --clock real differs from examples/real-clock.json" >&2
  failures=$((failures + 1))
fi
expect 0 "profile check of the examples" -- "$toolwire" profile check "$examples/virtual-clock.json" \
  "$examples/real-clock.json"
expect 2 "profile check of a bad profile" -- "$toolwire" profile check "$work/bad.json"
expect_text "bad.json" "$work/err" "profile check names the file"

# Baselines: listed failures pass the run, a listed pass fails it, --update-baseline writes.
expect 0 "update the baseline" -- "$toolwire" check "${few[@]}" --fault invalid_tool_name_accepted \
  --expected-failures "$work/baseline.txt" --update-baseline
expect_text "reg.tool-name-65-chars-rejected" "$work/baseline.txt" "baseline lists the failure"
expect 0 "listed failures" -- "$toolwire" check "${few[@]}" --fault invalid_tool_name_accepted \
  --expected-failures "$work/baseline.txt"
expect 1 "a stale baseline" -- "$toolwire" check "${few[@]}" --expected-failures "$work/baseline.txt"
expect_text "STALE BASELINE reg.tool-name-65-chars-rejected" "$work/out" "stale entry named"
printf 'call.double-result-4O9\n' >"$work/typo-baseline.txt"
expect 2 "a baseline id that names no case" -- "$toolwire" check "${few[@]}" \
  --expected-failures "$work/typo-baseline.txt"
expect_text "'call.double-result-4O9' is no case of the catalog (did you mean 'call.double-result-409'?)" \
  "$work/err" "baseline typo named with a suggestion"

# Reports are written, and the JUnit file counts the failure.
expect 1 "reports" -- "$toolwire" check "${few[@]}" --fault invalid_tool_name_accepted \
  --junit "$work/r/junit.xml" --json "$work/r/report.json" --markdown "$work/r/summary.md"
expect_text 'failures="1"' "$work/r/junit.xml" "JUnit failure count"
expect_text '"fail": 1' "$work/r/report.json" "JSON totals"
expect_text "FAILED" "$work/r/summary.md" "Markdown verdict"

# GITHUB_STEP_SUMMARY: the summary is appended after what earlier steps wrote; a file that
# cannot be written warns and leaves the exit code alone.
echo "earlier step" >"$work/step-summary.md"
expect 0 "a step summary" -- env GITHUB_STEP_SUMMARY="$work/step-summary.md" \
  "$toolwire" check "${few[@]}" --in-process --markdown "$work/s/summary.md"
if [[ "$(head -n 1 "$work/step-summary.md")" != "earlier step" ]] ||
  ! diff -q <(tail -n +2 "$work/step-summary.md") "$work/s/summary.md" >/dev/null; then
  echo "FAIL: the step summary is not the earlier line followed by summary.md" >&2
  sed 's/^/  | /' "$work/step-summary.md" >&2
  failures=$((failures + 1))
fi
expect 0 "an unwritable step summary" -- env GITHUB_STEP_SUMMARY="$work/no-such-dir/summary.md" \
  "$toolwire" check "${few[@]}" --in-process --markdown "$work/s/summary.md"
expect_text "warning: cannot append the summary to GITHUB_STEP_SUMMARY" "$work/err" \
  "an unwritable step summary warns"

# No empty verdicts: a run in which no case ran exits 2 and says why; --min-applicable.
expect 2 "a filter matching nothing says nothing was checked" -- "$toolwire" check --filter 'no-such-case*'
expect_text "nothing was checked" "$work/err" "empty filter says nothing was checked"
expect 2 "in-process, only clock cases: nothing applies" -- "$toolwire" check --in-process \
  --filter 'clock.get-now' --quiet --json "$work/na/report.json" --junit "$work/na/junit.xml"
expect_text "nothing was checked: all 1 cases were not applicable" "$work/out" "why nothing ran"
expect_text "to run them: check over HTTP (drop --in-process)" "$work/out" "the remedy"
expect_text '<skipped message="not applicable: ' "$work/na/junit.xml" "JUnit skipped reason"
expect_text '"exit_code": 2' "$work/na/report.json" "JSON exit code"
expect 1 "--min-applicable above what ran" -- "$toolwire" check --in-process \
  --filter 'clock.*' --quiet --min-applicable 90
expect_text "--min-applicable asks for 90%" "$work/out" "min-applicable names the shortfall"

# --repeat labels failures; the reproduce command carries every setting.
expect 1 "--repeat" -- "$toolwire" check "${few[@]}" --fault invalid_tool_name_accepted --repeat 2
expect_text "FAIL (consistent) reg.tool-name-65-chars-rejected" "$work/out" "repeat label"

# Preflight against a real server: a wrong key, and a profile on which nothing applies.
# Why below the kernel's ephemeral range: a port it hands to one of the run's many outgoing
# connections cannot be bound by the stand-in (found as "Address already in use" in CI).
read -r ephemeral_low _ </proc/sys/net/ipv4/ip_local_port_range
stand_in_port=$((10000 + RANDOM % (ephemeral_low > 11000 ? ephemeral_low - 10000 : 1000)))
servers=()
trap 'kill "${servers[@]}" 2>/dev/null; rm -rf "$work"' EXIT
# serve NAME CLOCK [FLAGS...]: starts `toolwire serve` with the right key and the stand-in
# port; sets $server to its pid and $base to its URL once it listens.
serve() {
  "$toolwire" serve --port 0 --api-key right-key-6b0c --model-url "http://127.0.0.1:$stand_in_port/v1" \
    --assistant-id 1 --clock "$2" "${@:3}" >"$work/$1.out" 2>&1 &
  server=$!
  servers+=("$server")
  for _ in $(seq 100); do
    grep -q "listening on" "$work/$1.out" && break
    sleep 0.05
  done
  base=$(sed -n 's/^listening on //p' "$work/$1.out")
}
serve serve virtual
# profile init --from asks the running server (issue 24.2): its test clock answers, so the
# profile says virtual, with this base_url; a real-clock server's clock route is 404.
expect 0 "profile init --from a virtual-clock server" -- "$toolwire" profile init --from "$base"
expect_text "\"clock\": \"virtual\"" "$work/out" "--from: a test clock found"
expect_text "\"base_url\": \"$base\"" "$work/out" "--from: the base_url asked"
expect_text "GET /v1/_test/clock answered 401" "$work/err" "--from says what it asked"
virtual_base=$base virtual_server=$server
serve serve-real real
expect 0 "profile init --from a real-clock server" -- "$toolwire" profile init --from "$base"
expect_text "\"clock\": \"real\"" "$work/out" "--from: no test clock found"
kill "$server"
# A stated timing tolerance narrower than a slow target's measured speed needs is said at
# the start and, once a case failed, beside the verdicts: a deadline the target met late
# would otherwise read as a SPEC violation. A window wide enough is not remarked on.
slow_timeouts=(--ack-timeout-ms 300 --result-timeout-ms 600 --interrupt-timeout-ms 900)
serve serve-slow real --variation slow_responses --variation slow_events "${slow_timeouts[@]}"
slow=(--base-url "$base" --api-key-env SERVED_KEY --parts A --model-stand-in
  "127.0.0.1:$stand_in_port" --assistant-id 1 --clock real "${slow_timeouts[@]}")
expect 1 "a deadline case in a stated window narrower than the target's speed" -- \
  env SERVED_KEY=right-key-6b0c "$toolwire" check "${slow[@]}" --timing-tolerance-ms 1 \
  --filter 'call.ack-timeout-exact'
expect_text "timing tolerance 1 ms, as the profile states; narrower than the [0-9]* ms the \
target's measured speed needs (round trip p99" "$work/err" "a narrow stated window said at the start"
expect_text "^note: the stated timing tolerance (1 ms) is narrower than" "$work/out" \
  "a narrow stated window said beside a failure"
# The failed run looked on past its end: the deadline event it missed came late, not never.
expect_text "no client_tool_failed event by then; a matching one came later, at [0-9]* ms" \
  "$work/out" "a deadline event that came after the run's end, with its time"
expect 0 "passing cases in a narrow stated window" -- env SERVED_KEY=right-key-6b0c \
  "$toolwire" check "${slow[@]}" --timing-tolerance-ms 1 --filter 'reg.tool-name-6*'
if grep -q "^note:" "$work/out"; then
  echo "FAIL: the narrow window's note printed though no case failed" >&2
  failures=$((failures + 1))
fi
expect 0 "a stated window wider than the target's speed needs" -- env SERVED_KEY=right-key-6b0c \
  "$toolwire" check "${slow[@]}" --timing-tolerance-ms 400 --filter 'reg.tool-name-6*'
expect_text "timing tolerance 400 ms, as the profile states$" "$work/err" "a wide stated window"
kill "$server"
# A target that goes away during a case (killed once the case's client pinged, while the
# case waits for the client's expiry): an error, not a SPEC failure, though no request of
# the case was refused; it only saw its event streams end.
serve serve-gone real "${slow_timeouts[@]}"
gone=(--base-url "$base" --api-key-env SERVED_KEY --parts A --model-stand-in
  "127.0.0.1:$stand_in_port" --clock real "${slow_timeouts[@]}" --no-preflight)
(
  for _ in $(seq 500); do
    grep -q "/ping 200" "$work/serve-gone.out" && break
    sleep 0.02
  done
  kill "$server"
) &
killer=$!
expect 2 "a target that goes away during a case" -- env SERVED_KEY=right-key-6b0c "$toolwire" \
  check "${gone[@]}" --filter 'life.ping-extends-ttl'
wait "$killer"
expect_text "^ERROR life.ping-extends-ttl" "$work/out" "a case cut short by its target's end"
expect_text "the target went away during the run (at [0-9]* ms: the event stream of session" \
  "$work/out" "what showed the target went away"
base=$virtual_base server=$virtual_server
expect 2 "profile init --from where nothing listens" -- "$toolwire" profile init --from \
  http://127.0.0.1:1
expect_text "nothing usable answers at http://127.0.0.1:1" "$work/err" "--from: nothing there"
profile() {  # profile KEY PARTS
  cat <<JSON
{"name": "served", "base_url": "$base", "api_key": "$1", "parts": $2, "assistant_id": 1,
 "model_stand_in": "127.0.0.1:$stand_in_port", "clock": "virtual", "request_timeout_ms": 2000}
JSON
}
profile wrong-key-SECRET '["A"]' >"$work/wrong-key.json"
expect 2 "preflight: a wrong key" -- "$toolwire" check --target "$work/wrong-key.json" "${few[@]}"
expect_text "preflight: POST /v1/sessions answered 401: is api_key right?" "$work/err" "wrong key named"
if grep -q wrong-key-SECRET "$work/out" "$work/err"; then
  echo "FAIL: the wrong API key appeared in the output" >&2
  failures=$((failures + 1))
fi
profile right-key-6b0c '["A"]' >"$work/part-a.json"
expect 2 "a profile on which nothing applies" -- "$toolwire" check --target "$work/part-a.json" \
  --filter 'task.*' --quiet
expect_text "nothing was checked" "$work/out" "nothing applies"
expect_text "implement Part B" "$work/out" "what would make it applicable"
expect 0 "preflight passes, cases run" -- "$toolwire" check --target "$work/part-a.json" "${few[@]}" \
  --settle-ms 20 --json "$work/served/report.json"
expect_text "--settle-ms 20" "$work/served/report.json" "reproduce carries --settle-ms"
# The same target from flags, the key from the environment (issue 12.6): it runs, the
# reproduce command names the variable and never the key, and wrong flags are named.
from_flags=(--base-url "$base" --api-key-env SERVED_KEY --parts A
  --model-stand-in "127.0.0.1:$stand_in_port" --assistant-id 1)
expect 0 "a profile from flags" -- env SERVED_KEY=right-key-6b0c "$toolwire" check \
  "${from_flags[@]}" "${few[@]}" --json "$work/flags/report.json"
expect_text "--base-url $base --api-key-env SERVED_KEY --parts A" "$work/flags/report.json" \
  "reproduce carries the target flags"
if grep -rq right-key-6b0c "$work/flags" "$work/out" "$work/err"; then
  echo "FAIL: the API key from the environment appeared in a report or the output" >&2
  failures=$((failures + 1))
fi
expect 2 "flags whose key variable is unset" -- env -u SERVED_KEY "$toolwire" check \
  "${from_flags[@]}" "${few[@]}"
expect_text "--api-key-env SERVED_KEY: the environment variable is not set" "$work/err" \
  "an unset key variable named"
expect 2 "flags with a wrong key" -- env SERVED_KEY=wrong-key-SECRET "$toolwire" check \
  "${from_flags[@]}" "${few[@]}"
expect_text "is the key --api-key-env names right?" "$work/err" \
  "a wrong key from flags fails the preflight, in the terms of the flags"
expect 2 "flags without --base-url" -- "$toolwire" check --api-key-env SERVED_KEY --parts A "${few[@]}"
expect_text "needs --base-url http://host:port and --model-stand-in HOST:PORT (missing 2 flags)" \
  "$work/err" "every missing flag named at once"
expect 2 "flags with a bad part" -- env SERVED_KEY=k "$toolwire" check --base-url "$base" \
  --api-key-env SERVED_KEY --parts A,C --model-stand-in "127.0.0.1:$stand_in_port" "${few[@]}"
expect_text "--parts: must be A, B or A,B, got 'A,C'" "$work/err" "a bad part named"
expect 2 "flags with a bad stand-in" -- env SERVED_KEY=k "$toolwire" check --base-url "$base" \
  --api-key-env SERVED_KEY --parts A --model-stand-in nowhere "${few[@]}"
expect_text "^toolwire check: --model-stand-in: must be host:port" "$work/err" "a bad stand-in named"
expect 2 "flags and --target" -- env SERVED_KEY=k "$toolwire" check --target "$work/part-a.json" \
  "${from_flags[@]}" "${few[@]}"
expect_text "not with --target" "$work/err" "flags and a profile file refused together"

# A filtered run says so in every report (issue 21.6): not "24 of 24 passed" alone.
expect 0 "a filtered run" -- "$toolwire" check --target "$work/part-a.json" --filter 'auth.*' \
  --quiet --json "$work/scope/report.json" --junit "$work/scope/junit.xml" \
  --markdown "$work/scope/summary.md" --html "$work/scope/report.html"
catalog_size=$("$toolwire" check --list | tail -n 1 | cut -d' ' -f1)
auth_size=$("$toolwire" check --list --filter 'auth.*' | tail -n 1 | cut -d' ' -f1)
scope="$auth_size of $catalog_size cases, selected by --filter 'auth.\*'"
expect_text "^Scope: $scope\.$" "$work/scope/summary.md" "summary.md states the scope"
escaped_scope="$auth_size of $catalog_size cases, selected by --filter &apos;auth.\*&apos;"
expect_text "<property name=\"scope\" value=\"$escaped_scope\"/>" "$work/scope/junit.xml" "JUnit states the scope"
expect_text "<dt>scope</dt><dd>$escaped_scope</dd>" "$work/scope/report.html" "the HTML report states the scope"
expect_text "\"scope\": \"$scope\"" "$work/scope/report.json" "report.json states the scope"
expect_text "^scope: $scope$" "$work/out" "the console states the scope"
kill $server 2>/dev/null

# A target that dies mid-run (issue 21.5): its cases are errors, not SPEC failures; the
# run stops with one sentence and exit 2, and the reports hold what ran.
serve dying-server virtual
dying=$server
profile right-key-6b0c '["A"]' >"$work/dying.json"
# interrupt NAME PROFILE FILTER AFTER KILL WANT WHAT: runs check in the background with its
# reports in $work/NAME/, waits until AFTER cases have finished (why poll: whatever the
# machine's speed), runs KILL (a command), and wants exit WANT.
interrupt() {
  local name=$1 profile=$2 filter=$3 after=$4 kill_command=$5 want=$6 what=$7
  "$toolwire" check --target "$profile" --filter "$filter" --progress lines \
    --json "$work/$name/report.json" --junit "$work/$name/junit.xml" \
    --markdown "$work/$name/summary.md" >"$work/$name.out" 2>"$work/$name.err" &
  checking=$!
  for _ in $(seq 600); do
    grep -q "^\[$after/" "$work/$name.err" && break
    sleep 0.05
  done
  eval "$kill_command"
  wait $checking
  local got=$?
  if [[ $got -ne $want ]]; then
    echo "FAIL: $what: exit $got, want $want" >&2
    sed 's/^/  | /' "$work/$name.out" "$work/$name.err" >&2
    failures=$((failures + 1))
  fi
}
interrupt dying "$work/dying.json" 'reg.*' 5 'kill -9 $dying' 2 "a target killed mid-run"
expect_text "^the target stopped answering at case reg\..* (.*connect.*); 3 cases in a row could not reach it, so the run stopped; the reports hold the [0-9]* cases that ran$" \
  "$work/dying.out" "the stop is one sentence with its cause"
expect_text "<error message=\"the target did not answer: " "$work/dying/junit.xml" "JUnit <error>"
expect_text "STOPPED" "$work/dying/summary.md" "summary.md says the run stopped"
# At most the one case running when the server died can read it as something else.
if (($(grep -c '^FAIL ' "$work/dying.out") > 1)); then
  echo "FAIL: a dead target read as SPEC failures" >&2
  grep '^FAIL ' "$work/dying.out" | sed 's/^/  | /' >&2
  failures=$((failures + 1))
fi

# SIGTERM mid-run (issue 21.7), as CI's job timeout sends it: complete reports of what
# finished, marked interrupted, and exit 143. A real-clock run first says how long it takes.
serve real-server real
profile right-key-6b0c '["A"]' | sed 's/"clock": "virtual"/"clock": "real"/' >"$work/real.json"
interrupt term "$work/real.json" 'call.*' 1 'kill -TERM $checking' 143 "SIGTERM mid-run"
expect_text "cases on a real clock, 16 at once: about [0-9]* min (the longest, call\..*, takes about" \
  "$work/term.err" "a real-clock run says how long it takes"
expect_text "interrupted by SIGTERM; the reports hold the [1-9][0-9]* of [0-9]* cases that had finished" \
  "$work/term.err" "an interrupted run says what the reports hold"
expect_text '"interrupted": "SIGTERM"' "$work/term/report.json" "report.json is marked interrupted"
expect_text "</testsuites>" "$work/term/junit.xml" "JUnit is complete"
expect_text "INTERRUPTED" "$work/term/summary.md" "summary.md says the run was interrupted"
kill $server 2>/dev/null

# toolwire simulate on scenario files that are wrong in ways only running them shows.
cat >"$work/loop.yaml" <<'YAML'
purpose: p
spec: [LIFE-1]
clients:
  tab: {tools: [read_form]}
model: &loop {rules: [*loop]}
YAML
expect 2 "a scenario whose alias contains itself" -- "$toolwire" simulate "$work/loop.yaml"
expect_text "loop.yaml:5: nested deeper than 128 levels" "$work/err" "the alias cycle at its line"
cat >"$work/bad-ref.yaml" <<'YAML'
purpose: p
spec: [LIFE-1]
clients:
  tab: {tools: [read_form]}
steps:
  - at: 1s
    request: {method: GET, path: "/api/tasks/{pending:t:}"}
YAML
expect 1 "a step whose reference has no number" -- "$toolwire" simulate "$work/bad-ref.yaml"
expect_text "1 step(s) could not run" "$work/out" "a step error is not an expectation"
expect_text "bad-ref.yaml:6: step 1 (request) could not run: write {pending:LABEL:N}" "$work/out" \
  "the step error at its line"

# toolwire simulate library:NAME: the scenario library by name, listed by --list, recorded
# in the trace so that replay finds the file again; builtin:NAME is gone and says where to go.
expect 0 "simulate --list" -- "$toolwire" simulate --list
expect_text "^library:tab_closes_mid_call  *LIFE-2,LIFE-4,LIFE-5,CALL-5,CALL-8$" "$work/out" \
  "--list names a library scenario with its SPEC IDs"
expect_text "^    A tab closes while its call is open;" "$work/out" "--list gives the purpose"
listed=$(grep -c '^library:' "$work/out")
library=$(dirname "$0")/../../scenarios/library
# Its folders too: browser/ is listed as library:browser/NAME.
files=$(find -L "$library" -maxdepth 2 -name '*.yaml' | wc -l)
if [[ $listed -ne $files ]]; then
  echo "FAIL: --list shows $listed scenarios, the library has $files" >&2
  failures=$((failures + 1))
fi
expect_text "^library:browser/two_tabs_of_one_app  *REG-5," "$work/out" \
  "--list names the browser scenarios by their folder"
expect 0 "a library scenario by name" -- "$toolwire" simulate library:tab_closes_mid_call \
  --seed 7 --trace "$work/library.jsonl"
expect_text '"source":"library:tab_closes_mid_call"' "$work/library.jsonl" "the trace names library:NAME"
expect 0 "replay of a library run" -- "$toolwire" replay "$work/library.jsonl"
expect_text "^identical: " "$work/out" "a library run replays identically"
# A run on the bundled server with a variation and a fault: the trace header records where
# it went, and replay goes there again (no flags repeated).
expect 0 "a bundled run with a variation" -- "$toolwire" simulate library:tab_closes_mid_call \
  --bundled --variation uuid_ids --seed 4 --trace "$work/bundled.jsonl"
expect_text '"target":{"bundled":true,"variations":\["uuid_ids"\]}' "$work/bundled.jsonl" \
  "the trace header names the bundled server and its variation"
expect 0 "replay of a bundled run" -- "$toolwire" replay "$work/bundled.jsonl"
expect_text "^identical after normalising: " "$work/out" "a bundled run replays on the bundled server"
expect 1 "an in-process run with a fault" -- "$toolwire" simulate library:tab_closes_mid_call \
  --fault vanished_calls_left_open --seed 4 --trace "$work/faulty.jsonl"
expect 0 "replay of a run with a fault" -- "$toolwire" replay "$work/faulty.jsonl"
expect_text "^identical: " "$work/out" "the fault the header names is planted again"
sed '1s/"faults":\[[^]]*\]/"faults":"all"/' "$work/faulty.jsonl" >"$work/bad-header.jsonl"
expect 2 "replay of a trace whose header is malformed" -- "$toolwire" replay "$work/bad-header.jsonl"
expect_text 'bad-header.jsonl:1: the trace header has "faults" that must be an array of strings' \
  "$work/err" "replay names the header's bad field"
# A trace of a run against a profile, replayed from elsewhere: the path it names is the one
# typed then; replay says to pass --target instead of "cannot read the file".
sed '1s/"target":"[^"]*"/"target":{"profile":"..\/acme.json"}/' "$work/library.jsonl" \
  >"$work/profile-run.jsonl"
expect 2 "replay of a profile run from another directory" -- "$toolwire" replay "$work/profile-run.jsonl"
expect_text "this trace ran against the target profile '../acme.json', which is not a file from here; pass --target FILE" \
  "$work/err" "replay names --target"
expect 1 "a library scenario a fault breaks" -- "$toolwire" simulate library:tab_closes_mid_call \
  --fault vanished_calls_left_open
expect_text "reproduce: toolwire simulate library:tab_closes_mid_call --seed 1 --fault vanished_calls_left_open" \
  "$work/out" "the reproduce line names library:NAME"
expect 2 "an unknown library scenario" -- "$toolwire" simulate library:tab_close_mid_call
expect_text "no scenario 'library:tab_close_mid_call' in the library at .* (did you mean 'library:tab_closes_mid_call'?); toolwire simulate --list lists them" \
  "$work/err" "an unknown library name gets a suggestion"
expect 2 "a path as a library name" -- "$toolwire" simulate "library:../library/double_result"
expect 2 "a bare name" -- "$toolwire" simulate no_ack_timeout
expect_text "(did you mean 'library:no_ack_timeout'?): give a FILE.yaml or library:NAME" "$work/err" \
  "a bare library name is pointed to library:NAME"
expect 2 "a removed built-in" -- "$toolwire" simulate builtin:reload_collision
expect_text "the built-in scenarios are gone; the scenario library tells this story in library:tab_reload_name_counter (toolwire simulate --list lists them)" \
  "$work/err" "a removed built-in names its library scenario"
expect 2 "an unknown built-in" -- "$toolwire" simulate builtin:x
expect_text "^toolwire simulate: 'builtin:x': the built-in scenarios are gone; run a scenario of the library as library:NAME (toolwire simulate --list lists them)$" \
  "$work/err" "builtin:NAME says the built-ins are gone"

# toolwire report compare: a clean and a faulty run of the same cases, side by side.
expect 0 "a clean run to compare" -- "$toolwire" check "${few[@]}" --in-process --json "$work/clean.json"
expect 1 "a faulty run to compare" -- "$toolwire" check "${few[@]}" --in-process \
  --fault invalid_tool_name_accepted --json "$work/faulty.json"
expect 0 "report compare" -- "$toolwire" report compare "$work/clean.json" "$work/faulty.json" \
  -o "$work/compare.html" --markdown "$work/compare.md" --differences-only
expect_text "2 runs, 1 with differing verdicts" "$work/out" "compare counts the differing case"
expect_text "| \*\*reg.tool-name-65-chars-rejected\*\* | pass | fail |" "$work/compare.md" \
  "the differing case in Markdown"
expect_text '<tr class="differs"><td>reg.tool-name-65-chars-rejected' "$work/compare.html" \
  "the differing row in HTML"
expect 2 "report compare with one report" -- "$toolwire" report compare "$work/clean.json"
expect 2 "report compare of a file that is no report" -- "$toolwire" report compare \
  "$work/clean.json" "$work/compare.md"
expect_text "is not a toolwire report.json" "$work/err" "compare names the bad file"

# toolwire report merge: two shards give exactly the verdicts of the unsharded run.
reg=(--filter 'reg.*' --quiet --in-process)
expect 0 "the unsharded run" -- "$toolwire" check "${reg[@]}" --json "$work/whole.json"
expect 0 "shard 1/2" -- "$toolwire" check "${reg[@]}" --shard 1/2 --json "$work/s1.json"
expect 0 "shard 2/2" -- "$toolwire" check "${reg[@]}" --shard 2/2 --json "$work/s2.json"
expect 0 "report merge" -- "$toolwire" report merge "$work/s2.json" "$work/s1.json" \
  --json "$work/merged.json" --junit "$work/merged.xml"
expect_text "2 shard(s), 54 cases: 54 passed" "$work/out" "merge counts every case"
expect 0 "compare the merged with the unsharded run" -- "$toolwire" report compare \
  "$work/whole.json" "$work/merged.json" -o "$work/merged-compare.html"
expect_text "54 cases in 2 runs, 0 with differing verdicts" "$work/out" "merged = unsharded"
expect_text 'tests="54"' "$work/merged.xml" "merged JUnit counts every case"
# Like check, merge appends its summary to the step summary (the merging job's page).
echo "earlier step" >"$work/merge-step-summary.md"
expect 0 "report merge with a step summary" -- env GITHUB_STEP_SUMMARY="$work/merge-step-summary.md" \
  "$toolwire" report merge "$work/s1.json" "$work/s2.json" --markdown "$work/merged.md"
if [[ "$(head -n 1 "$work/merge-step-summary.md")" != "earlier step" ]] ||
  ! diff -q <(tail -n +2 "$work/merge-step-summary.md") "$work/merged.md" >/dev/null; then
  echo "FAIL: merge's step summary is not the earlier line followed by its summary.md" >&2
  failures=$((failures + 1))
fi
expect 2 "report merge without shard 2" -- "$toolwire" report merge "$work/s1.json"
expect_text "shard(s) 2/2 missing" "$work/err" "merge names the missing shard"
expect 2 "report merge of a shard twice" -- "$toolwire" report merge "$work/s1.json" "$work/s1.json"
expect 2 "report merge of an unsharded run" -- "$toolwire" report merge "$work/s1.json" "$work/whole.json"
expect_text "is not a shard" "$work/err" "merge refuses an unsharded run"
expect 0 "shard 2/2 of another seed" -- "$toolwire" check "${reg[@]}" --shard 2/2 --seed 9 \
  --json "$work/s2-seed.json"
expect 2 "report merge across seeds" -- "$toolwire" report merge "$work/s1.json" "$work/s2-seed.json"
expect_text "another seed (9, not 1)" "$work/err" "merge refuses shards of another seed"

if ((failures > 0)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all exit-code checks passed"
