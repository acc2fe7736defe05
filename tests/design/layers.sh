#!/bin/bash
# A design rule (DESIGN.md, docs/architecture.md): dependencies point one way, protocol <-
# reference core <- scenarios <- actors <- {explore, conformance} <- reports/cli. Each
# folder below may include the public headers of the folders listed for it and no other
# (cli/, tests/, bench/ and fuzz/ sit on top and may include any). Issue 23 found
# scenarios/explore/ using actors/ while actors/ used scenarios/: a folder-level cycle,
# which this test now keeps out.
# Usage: layers.sh PROJECT_SOURCE_DIR
set -u
root=${1:?usage: layers.sh PROJECT_SOURCE_DIR}
core='protocol/|reference_server/[a-z_]+\.hpp'  # the reference core, not web/ or variations/
# folder : the include prefixes (under toolwire/) its files may use, as an extended regex
layers=(
  "protocol:protocol/"
  "reference_server/include:$core"
  "reference_server/src:$core"
  "reference_server/faults:$core|reference_server/faults/"
  "reference_server/web:$core|reference_server/web/"
  "reference_server/variations:$core|reference_server/web/|reference_server/variations/"
  "scenarios:$core|scenarios/"
  "actors:$core|scenarios/|actors/"
  "explore:$core|scenarios/|actors/|explore/"
  "conformance/remote:$core|scenarios/|actors/|conformance/[a-z_]+\.hpp"
  "conformance/runner:$core|reference_server/web/|reference_server/variations/|scenarios/|actors/|conformance/"
  "reports:$core|conformance/|reports/"
)
failures=0
for layer in "${layers[@]}"; do
  folder=${layer%%:*}
  allowed=${layer#*:}
  [[ -d $root/$folder ]] || { echo "layers.sh: no folder $folder (update this list)"; failures=1; continue; }
  found=$(grep -rnE '^[[:space:]]*#include "toolwire/' "$root/$folder" --include='*.cpp' --include='*.hpp' |
          grep -vE "#include \"toolwire/($allowed)")
  if [[ -n $found ]]; then
    echo "$found"
    echo "$folder includes a folder above it (or beside it) above; it may use: $allowed"
    failures=1
  fi
done
exit $failures
