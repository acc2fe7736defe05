#!/usr/bin/env bash
# fault-proof.sh [-j JOBS] [CASE.yaml ...]
#
# For each catalog case (default: every conformance/catalog/*/*.yaml), finds the
# reference server's injectable faults that break it: the case is run on the simulator
# (seed 1 only, for speed) once clean and once per fault of `toolwire serve
# --list-faults`. Prints one line per case, in the order given:
#
#   <case>: fault1 fault2      the faults under which the case fails (exit 1)
#   <case>: NONE               no fault breaks it (a rule no fault covers yet)
#   <case>: CLEAN-FAILS ...    the case already fails on the clean reference: fix the case
#   <case>: ERROR ...          the case does not load (exit 2), or the binary did not run
#   <case>: BROWSER ...        a browser case (kind: browser): not run here, since it needs
#                              Chromium and the wall clock, a few seconds per run; CTest
#                              browser_scenarios runs it under each fault of its breaks_with
#
# <case> is the file's `name:` (else its path). TOOLWIRE=path overrides the binary
# (default: build/cli/toolwire of this checkout); it is copied once at the start, so a
# rebuild during the run cannot mix two binaries. Exit status: 0 if every case passes
# clean, 1 otherwise. Cases run JOBS at a time (default: the number of CPUs).
set -u -o pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${TOOLWIRE:-$root/build/cli/toolwire}
jobs=$(nproc 2>/dev/null || echo 4)

if [ "${1:-}" = "-j" ]; then
  jobs=$2
  shift 2
fi
if [ ! -x "$bin" ]; then
  echo "fault-proof.sh: no toolwire binary at $bin (set TOOLWIRE=...)" >&2
  exit 2
fi

if [ $# -eq 0 ]; then
  mapfile -t cases < <(find "$root/conformance/catalog" -name '*.yaml' | sort)
else
  cases=("$@")
fi
if [ ${#cases[@]} -eq 0 ]; then
  echo "fault-proof.sh: no cases" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$bin" "$tmp/toolwire" && chmod +x "$tmp/toolwire"
bin=$tmp/toolwire
if ! "$bin" --version >/dev/null 2>&1; then
  echo "fault-proof.sh: the copied binary does not run (was it being rebuilt?)" >&2
  exit 2
fi

faults=$("$bin" serve --list-faults | awk 'NF { print $1 }')
if [ -z "$faults" ]; then
  echo "fault-proof.sh: '$bin serve --list-faults' listed no faults" >&2
  exit 2
fi
export bin faults tmp

# One case: its verdict line on stdout.
prove() {
  local file=$1 name out rc broken="" fault
  name=$(sed -n 's/^name:[[:space:]]*\([^[:space:]#]*\).*/\1/p' "$file" | head -n 1)
  name=${name:-$file}
  if grep -q '^ *kind: *browser' "$file"; then
    echo "$name: BROWSER (proven by tests/browser/browser_scenarios.sh)"
    return
  fi
  out=$("$bin" simulate "$file" --seed 1 2>&1)
  rc=$?
  if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
    echo "$name: ERROR (exit $rc) $(echo "$out" | head -n 1)"
    return
  fi
  if [ $rc -eq 1 ]; then
    echo "$name: CLEAN-FAILS $(echo "$out" | sed -n 2p)"
    return
  fi
  for fault in $faults; do
    "$bin" simulate "$file" --seed 1 --fault "$fault" >/dev/null 2>&1
    rc=$?
    if [ $rc -eq 1 ]; then
      broken="$broken $fault"
    elif [ $rc -ne 0 ]; then
      broken="$broken $fault(ERROR:exit-$rc)"
    fi
  done
  echo "$name:${broken:- NONE}"
}
export -f prove

# Cases run in parallel (xargs -P), each writing its line to a numbered file; the lines
# are then printed in the order the cases were given.
for i in "${!cases[@]}"; do printf '%s\n%s\n' "$i" "${cases[$i]}"; done |
  xargs -P "$jobs" -d '\n' -n 2 bash -c 'prove "$2" > "$tmp/$1"' _
status=0
for i in "${!cases[@]}"; do
  line=$(cat "$tmp/$i")
  echo "$line"
  case $line in *": CLEAN-FAILS"* | *": ERROR"*) status=1 ;; esac
done
exit $status
