#!/usr/bin/env bash
# A design rule (issue 13): the SES-4 event names are spelled once, in protocol/ (events.cpp's
# name table). Every other C++ source names an event through protocol::event_type and its
# to_string, so a misspelt name does not compile instead of silently comparing false.
# Tests, YAML and docs may spell them (they quote the SPEC); comments are skipped, since
# a comment that shows a YAML form compares nothing.
# Usage: event_names_in_protocol.sh PROJECT_SOURCE_DIR
set -u
root=${1:?usage: event_names_in_protocol.sh PROJECT_SOURCE_DIR}
source "$(dirname "$0")/code_lines.sh"
names='client_registered|client_tools_updated|client_unregistered|turn_started|client_tool_dispatched|client_tool_completed|client_tool_failed|turn_completed|turn_failed|stream_gap'
found=$(code_files "$root" tests protocol | code_lines_matching "\"($names)\"")
if [[ -n $found ]]; then
  echo "$found"
  echo "an event name is spelled as a literal above; use protocol::event_type (protocol/events.hpp)"
  exit 1
fi
exit 0
