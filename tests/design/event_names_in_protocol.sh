#!/bin/sh
# A design rule (issue 13): the SES-4 event names are spelled once, in protocol/ (events.cpp's
# name table). Every other C++ source names an event through protocol::event_type and its
# to_string, so a misspelt name does not compile instead of silently comparing false.
# Tests, YAML and docs may spell them (they quote the SPEC); comment lines are skipped, since
# a comment that shows a YAML form compares nothing.
# Usage: event_names_in_protocol.sh PROJECT_SOURCE_DIR
set -u
root=${1:?usage: event_names_in_protocol.sh PROJECT_SOURCE_DIR}
names='client_registered|client_tools_updated|client_unregistered|turn_started|client_tool_dispatched|client_tool_completed|client_tool_failed|turn_completed|turn_failed|stream_gap'
found=$(find "$root" \( -path "$root/build*" -o -path "$root/tests" -o -path "$root/protocol" \
                        -o -path "$root/.git" \) -prune -o \
                     -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print |
        sort | xargs grep -nE "\"($names)\"" /dev/null | grep -vE '^[^:]*:[0-9]+:[[:space:]]*//')
if [ -n "$found" ]; then
  echo "$found"
  echo "an event name is spelled as a literal above; use protocol::event_type (protocol/events.hpp)"
  exit 1
fi
exit 0
