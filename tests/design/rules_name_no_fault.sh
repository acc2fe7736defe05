#!/bin/sh
# A design rule (issues 13 and 23): the core's rule files, the HTTP front end
# (reference_server/web/) and protocol/ name no fault. Faults live in
# reference_server/faults/ and reach the core only as layers over src/policy.hpp's decision
# points (policy_layer.hpp), around the router (wire_faults) and in the configured timeouts
# (config_faults); the core's constructor is the one place that picks the policy.
# Usage: rules_name_no_fault.sh PROJECT_SOURCE_DIR
set -u
root=${1:?usage: rules_name_no_fault.sh PROJECT_SOURCE_DIR}
identifiers='fault::|_by_fault|has_fault|has\(fault|quirk'
status=0
for file in "$root"/reference_server/src/*.cpp "$root"/reference_server/src/*.hpp; do
  if grep -nE "$identifiers" "$file"; then
    echo "$file names a fault (above); give the rule a decision point in src/policy.hpp"
    status=1
  fi
done
if grep -rnE "$identifiers" "$root/reference_server/web"; then
  echo "reference_server/web/ names a fault (above); let the router's wire_faults act there"
  status=1
fi
if grep -rnE "$identifiers" "$root/protocol"; then
  echo "protocol/ names a fault (above); faults belong to reference_server/faults/"
  status=1
fi
exit $status
