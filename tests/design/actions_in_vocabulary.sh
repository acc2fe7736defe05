#!/bin/sh
# A design rule (issue 23): scripted actions are spelled once, in the scenario vocabulary's
# table (scenarios/src/vocabulary.cpp); code dispatches on vocabulary::action_id
# (scripted_step::performs, action_named, name_of), so a misspelt action is a compile
# error, not a comparison that silently never matches. What is caught is an action's
# name compared as a string: `action == "put_tools"`, `owner != "create_task"`.
# Tests, benches and fuzz harnesses may spell them; comments are skipped.
# Usage: actions_in_vocabulary.sh PROJECT_SOURCE_DIR
set -u
root=${1:?usage: actions_in_vocabulary.sh PROJECT_SOURCE_DIR}
names='register|ping|put_tools|delete|vanish|reconnect|ack|result|error_result|post_message|create_task|poll|tool_results|request|advance'
found=$(find "$root" \( -path "$root/build*" -o -path "$root/tests" -o -path "$root/bench" \
                        -o -path "$root/fuzz" -o -path "$root/.git" \) -prune -o \
                     -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print |
        grep -v "^$root/scenarios/src/vocabulary.cpp$" | sort |
        xargs awk -v names="(action[a-z_]*|owner) *[!=]= *\"($names)\"" \
          '{ code = $0; sub(/[[:space:]]\/\/.*$|^[[:space:]]*\/\/.*$/, "", code) }
           code ~ names { print FILENAME ":" FNR ": " $0 }')
if [ -n "$found" ]; then
  echo "$found"
  echo "a scripted action is compared as a string above; use scenarios/vocabulary.hpp (action_id, scripted_step::performs)"
  exit 1
fi
exit 0
