#!/usr/bin/env bash
# The documented flows work as written (issue 24.1, 24.4, 24.7). In README.md and docs/,
# a fenced block preceded by a marker line is run against loopback, as a user would paste
# it, with this build's toolwire first on PATH:
#   <!-- runnable -->                 the next ```sh block runs in bash -euo pipefail
#   <!-- output -->                   each line of the next block must appear in the output
#                                     of the runnable block before it (… matches anything)
#   <!-- file: PATH -->               the next block is written to PATH first
#   <!-- runnable: gitlab-script -->  the `script:` items of the next GitLab job run as one
#                                     shell script (before_script, the install, does not)
# Then the steps of action.yml that run without GitHub (start the server, wait for its
# port, check), with a profile and with flags.
# The blocks of one document share a directory and run in order; each block's processes
# (servers it started in the background) are stopped after it.
# Usage: doc_flows.sh TOOLWIRE SOURCE_DIR
set -uo pipefail
toolwire=$(readlink -f "$1")
src=$2
bin=$(dirname "$toolwire")
docs=("$src/README.md" "$src"/docs/*.md)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 blocks=0

# The flows use the ports the docs show (a profile written by `profile init` names them).
for port in 8080 18080; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "SKIP: port $port is in use here; the documented flows use it as written"
    exit 77
  fi
done

# Splits a document into numbered parts: NNN.sh (runnable), NNN.out (output), NNN.file
# with NNN.path (a file to write), NNN.gitlab (a GitLab job's YAML).
split_doc() {
  awk -v dir="$2" '
    function part(kind) { n++; name = sprintf("%s/%03d.%s", dir, n, kind); return name }
    /^<!-- runnable -->$/ { want = "sh"; next }
    /^<!-- output -->$/ { want = "out"; next }
    /^<!-- runnable: gitlab-script -->$/ { want = "gitlab"; next }
    /^<!-- file: .* -->$/ {
      want = "file"; path = $0; sub(/^<!-- file: /, "", path); sub(/ -->$/, "", path); next
    }
    inside && /^```/ { inside = 0; close(target); next }
    inside { print > target; next }
    want != "" && /^```/ {
      target = part(want); inside = 1
      if (want == "file") { print path > sprintf("%s/%03d.path", dir, n) }
      want = ""; printf "" > target; next
    }
  ' "$1"
}

# The `script:` items of a GitLab job, one shell line each (continuation lines joined).
gitlab_script() {
  awk '
    /^  script:/ { on = 1; next }
    on && /^  [^ ]/ { on = 0 }
    on && /^    - / { if (item != "") print item; item = substr($0, 7); next }
    on && /^      +[^ #]/ { line = $0; sub(/^ +/, "", line); item = item " " line; next }
    END { if (item != "") print item }
  ' "$1"
}

# Runs script $1 in directory $2; its output goes to $3. It gets 5 minutes, and every
# server it started is stopped afterwards.
run_script() {
  (cd "$2" && PATH="$bin:$PATH" ACME_KEY=doc-flow-key setsid timeout 300 \
    bash -euo pipefail "$1" >"$3" 2>&1) &
  local pid=$!
  wait "$pid"
  local status=$?
  # What it left running (a server started with &) is found by the directory it runs in.
  for p in $(pgrep -f "toolwire serve" || true); do
    [[ $(readlink "/proc/$p/cwd" 2>/dev/null) == "$2" ]] && kill "$p" 2>/dev/null
  done
  sleep 0.3
  return "$status"
}

# Whether every line of expected output $1 appears in output $2 (… matches anything).
output_matches() {
  local line pattern missing=0
  while IFS= read -r line; do
    [[ -z $line ]] && continue
    pattern=$(printf '%s' "$line" | sed -e 's/[][\.*^$/+?(){}|]/\\&/g' -e 's/…/.*/g')
    if ! grep -Eq -- "$pattern" "$2"; then
      echo "    missing: $line"
      missing=1
    fi
  done <"$1"
  return "$missing"
}

for doc in "${docs[@]}"; do
  name=${doc#"$src/"}
  parts="$work/parts/$name"
  dir="$work/run/$name"
  mkdir -p "$parts" "$dir"
  split_doc "$doc" "$parts"
  last_run=""
  for part in $(find "$parts" -type f ! -name '*.path' | sort); do
    case $part in
      *.file)
        path=$(cat "${part%.file}.path")
        mkdir -p "$(dirname "$dir/$path")"
        cp "$part" "$dir/$path"
        ;;
      *.sh | *.gitlab)
        blocks=$((blocks + 1))
        script=$part
        if [[ $part == *.gitlab ]]; then
          script="$part.sh"
          gitlab_script "$part" >"$script"
          [[ -s $script ]] || {
            echo "FAIL: $name: a gitlab-script block without script: items" >&2
            failures=$((failures + 1))
            continue
          }
        fi
        last_run="$part.log"
        if ! run_script "$script" "$dir" "$last_run"; then
          echo "FAIL: $name: this block failed (exit $?):" >&2
          sed 's/^/  > /' "$script" >&2
          sed 's/^/  | /' "$last_run" | tail -n 30 >&2
          failures=$((failures + 1))
        fi
        ;;
      *.out)
        if [[ -z $last_run ]]; then
          echo "FAIL: $name: an output block with no runnable block before it" >&2
          failures=$((failures + 1))
        elif ! output_matches "$part" "$last_run" >"$part.missing"; then
          echo "FAIL: $name: the output shown is not what the block printed:" >&2
          cat "$part.missing" >&2
          sed 's/^/  | /' "$last_run" | tail -n 30 >&2
          failures=$((failures + 1))
        fi
        ;;
    esac
  done
done

# The GitHub action's own steps, as far as they run without GitHub (issue 24.4): the `run:`
# script of the step named $1 in action.yml.
action_step() {
  awk -v step="$1" '
    /^    - name: / { in_step = (substr($0, 13) == step); in_run = 0; next }
    in_step && /^      run: \|/ { in_run = 1; next }
    in_step && in_run && /^        / { print substr($0, 9); next }
    in_step && in_run && /^ {0,7}[^ ]/ { in_run = 0 }
  ' "$src/action.yml"
}
# action_run NAME PROFILE WAIT_FOR ARGS: the server start and the check steps with these
# inputs, the server being the reference one; wants exit-code=0 and all four reports.
action_run() {
  local name=$1 dir="$work/action/$1"
  mkdir -p "$dir/ci" "$dir/runner"
  cat >"$dir/ci/acme.json" <<'JSON'
{"name": "acme", "base_url": "http://127.0.0.1:8080", "api_key_env": "ACME_KEY",
 "parts": ["A", "B"], "model_stand_in": "127.0.0.1:18080", "assistant_id": 1,
 "clock": "virtual"}
JSON
  for step in "Start the server under test" "toolwire check"; do
    action_step "$step" >"$dir/step.sh"
    if [[ ! -s $dir/step.sh ]]; then
      echo "FAIL: action.yml has no step '$step' with a run: script" >&2
      failures=$((failures + 1))
      return
    fi
    blocks=$((blocks + 1))
    (cd "$dir" && PATH="$bin:$PATH" ACME_KEY=doc-flow-key RUNNER_TEMP="$dir/runner" \
      GITHUB_OUTPUT="$dir/github_output" REPORT_DIR=toolwire-reports START_TIMEOUT=30 \
      SERVER_COMMAND='toolwire serve --port 8080 --api-key "$ACME_KEY" --clock virtual --model-url http://127.0.0.1:18080/v1' \
      PROFILE=$2 WAIT_FOR=$3 ARGS=$4 BASELINE="" timeout 300 bash "$dir/step.sh" \
      >>"$dir/log" 2>&1) || {
      echo "FAIL: action.yml ($name): the step '$step' failed:" >&2
      sed 's/^/  | /' "$dir/log" | tail -n 20 >&2
      failures=$((failures + 1))
    }
  done
  kill "$(cat "$dir/runner/toolwire-server.pid" 2>/dev/null)" 2>/dev/null
  for p in $(pgrep -f "toolwire serve" || true); do
    [[ $(readlink "/proc/$p/cwd" 2>/dev/null) == "$dir" ]] && kill "$p" 2>/dev/null
  done
  sleep 0.3
  grep -qx "exit-code=0" "$dir/github_output" 2>/dev/null || {
    echo "FAIL: action.yml ($name): the check did not pass:" >&2
    sed 's/^/  | /' "$dir/log" | tail -n 20 >&2
    failures=$((failures + 1))
  }
  for report in junit.xml report.json summary.md report.html; do
    [[ -s $dir/toolwire-reports/$report ]] || {
      echo "FAIL: action.yml ($name): no $report among the reports it uploads" >&2
      failures=$((failures + 1))
    }
  done
}
action_run profile ci/acme.json "" "--filter reg.*"
action_run flags "" 127.0.0.1:8080 "--base-url http://127.0.0.1:8080 --api-key-env ACME_KEY \
--parts A,B --model-stand-in 127.0.0.1:18080 --assistant-id 1 --filter ses.*"

# A check that checked nothing is not green: the docs must hold runnable blocks.
if ((blocks < 5)); then
  echo "FAIL: only $blocks runnable blocks found in README.md and docs/" >&2
  failures=$((failures + 1))
fi
if ((failures > 0)); then
  echo "$failures documented flow(s) broken" >&2
  exit 1
fi
echo "documented flows: $blocks blocks ran as written"
