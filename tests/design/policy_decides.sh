#!/bin/sh
# A design rule (issue 23): the core's decision points decide, and each fault is a layer of
# its own. src/policy.hpp's hooks are const and return a value: none returns void, none
# takes state it could change (a reference or pointer that is not const), so what a rule
# does stays in its rule file. The fault files (reference_server/faults/*_faults.cpp, the
# layers) ask no fault set whether a fault is on: the registry picks the layers once.
# Usage: policy_decides.sh PROJECT_SOURCE_DIR
set -u
root=${1:?usage: policy_decides.sh PROJECT_SOURCE_DIR}
policy="$root/reference_server/src/policy.hpp"
status=0
if grep -nE 'virtual +void\b' "$policy"; then
  echo "$policy: a hook returns void (above); return the decision, act in the rule file"
  status=1
fi
# Every parameter and return type spelled with & or * must be const: each hook joined onto
# one line, its return type and each of its parameters looked at alone.
hooks=$(sed 's|//.*||' "$policy" | tr '\n' ' ' | tr ';' '\n' | grep -E 'virtual +[^~]' |
  sed -E 's/.*virtual +//')
changeable=$(
  printf '%s\n' "$hooks" | while IFS= read -r hook; do
    returned=${hook%%(*}
    params=${hook#*(}
    params=${params%)*}
    printf '%s\n' "$returned" | sed 's/ *[A-Za-z_0-9]* *$//' | grep -E '[&*]' | grep -v 'const' |
      sed "s|^|returns: |"
    printf '%s\n' "$params" | tr ',' '\n' | grep -E '[&*]' | grep -vE '^ *const ' |
      sed "s|^|takes: |"
  done
)
if [ -n "$changeable" ]; then
  printf '%s\n' "$changeable"
  echo "$policy: a hook hands out something it could change (above); make it const"
  status=1
fi
for file in "$root"/reference_server/faults/*_faults.cpp; do
  case "$file" in */config_faults.cpp | */wire_faults.cpp) continue ;; esac
  if grep -nE 'has\(fault|faults?\.(count|contains)\(|[^a-z]faults_\b' "$file"; then
    echo "$file asks whether a fault is on (above); make the fault a layer (policy_layer.hpp)"
    status=1
  fi
done
exit $status
