#!/bin/sh
# A design rule (issue 13): the core's rule files and protocol/ name no fault. Faults live in
# reference_server/faults/ and reach the core only through src/policy.hpp's decision points,
# the router's wire_faults, and event_faults. Files whose faults are still to be moved out
# are listed below; the test fails when one of them becomes clean too, so that the list
# only shrinks.
# Usage: rules_name_no_fault.sh PROJECT_SOURCE_DIR
set -u
root=${1:?usage: rules_name_no_fault.sh PROJECT_SOURCE_DIR}
not_yet_moved="calls.cpp core.cpp core_state.hpp router.cpp turns.cpp"
identifiers='fault::|_by_fault|has_fault|quirk'
status=0
for file in "$root"/reference_server/src/*.cpp "$root"/reference_server/src/*.hpp; do
  name=$(basename "$file")
  case " $not_yet_moved " in
    *" $name "*)
      if ! grep -qE "$identifiers" "$file"; then
        echo "$file names no fault any more: remove it from not_yet_moved in $0"
        status=1
      fi
      continue ;;
  esac
  if grep -nE "$identifiers" "$file"; then
    echo "$file names a fault (above); give the rule a decision point in src/policy.hpp"
    status=1
  fi
done
if grep -rnE "$identifiers" "$root/protocol"; then
  echo "protocol/ names a fault (above); faults belong to reference_server/faults/"
  status=1
fi
exit $status
