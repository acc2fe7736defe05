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
