#!/usr/bin/env bash
# A design rule (issue 23): the routes are spelled once, in protocol/'s route table
# (protocol/src/routes.cpp). The router, the wire faults, the remote harness, the script
# actions, the preflight and the reports ask it (match_route, route_path, route_shown), so a
# new route is one row there, and a path nobody updated cannot silently miss.
# Tests, benches, fuzz harnesses, YAML and docs may spell paths (they quote the SPEC), and
# so may prose ("POST /api/tasks" in a help text); what is caught is a literal that starts
# with a path, the form code builds requests and compares paths with. Comments are skipped.
# Usage: routes_in_protocol.sh PROJECT_SOURCE_DIR
set -u
root=${1:?usage: routes_in_protocol.sh PROJECT_SOURCE_DIR}
source "$(dirname "$0")/code_lines.sh"
paths='/v1/sessions|/api/tasks|/v1/_test/clock'
found=$(code_files "$root" tests bench fuzz | grep -v "^$root/protocol/src/routes.cpp$" |
        code_lines_matching "\"($paths)")
if [[ -n $found ]]; then
  echo "$found"
  echo "a route's path is spelled as a literal above; use protocol/routes.hpp (route_path, match_route)"
  exit 1
fi
exit 0
