#!/usr/bin/env bash
# A design rule (issue 23): scripted actions are spelled once, in the scenario vocabulary's
# table (scenarios/src/vocabulary.cpp); code dispatches on vocabulary::action_id
# (scripted_step::performs, action_named, name_of), so a misspelt action is a compile
# error, not a comparison that silently never matches. What is caught is an action's
# name compared as a string: `action == "put_tools"`, `owner != "create_task"`.
# Tests, benches and fuzz harnesses may spell them; comments are skipped.
# Usage: actions_in_vocabulary.sh PROJECT_SOURCE_DIR
set -u
root=${1:?usage: actions_in_vocabulary.sh PROJECT_SOURCE_DIR}
source "$(dirname "$0")/code_lines.sh"
names='register|ping|put_tools|delete|vanish|reconnect|ack|result|error_result|post_message|create_task|poll|tool_results|request|advance'
found=$(code_files "$root" tests bench fuzz | grep -v "^$root/scenarios/src/vocabulary.cpp$" |
        code_lines_matching "(action[a-z_]*|owner) *[!=]= *\"($names)\"")
if [[ -n $found ]]; then
  echo "$found"
  echo "a scripted action is compared as a string above; use scenarios/vocabulary.hpp (action_id, scripted_step::performs)"
  exit 1
fi
exit 0
