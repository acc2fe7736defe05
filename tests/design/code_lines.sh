# Sourced by the design tests (tests/design/*.sh): where in the project's C++ a form is
# written. One place for the walk and the comment rule, so each test states only what it
# looks for and where that form may live.

# code_files ROOT [DIR...]: the C++ sources under ROOT, sorted, leaving out build*/, .git/
# and each ROOT/DIR given (tests/, bench/, ... whose files may spell what the rule keeps out).
code_files() {
  local root=$1
  shift
  local prune=(-path "$root/build*" -o -path "$root/.git")
  local dir
  for dir in "$@"; do prune+=(-o -path "$root/$dir"); done
  find "$root" \( "${prune[@]}" \) -prune -o \
    -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print | sort
}

# code_lines_matching REGEX: of the files named on standard input, the lines whose code
# (the line without a // comment) matches the extended REGEX, as FILE:LINE: TEXT. Why
# comments are skipped: a comment that shows a YAML form or a path compares nothing.
code_lines_matching() {
  xargs -r awk -v pattern="$1" \
    '{ code = $0; sub(/[[:space:]]\/\/.*$|^[[:space:]]*\/\/.*$/, "", code) }
     code ~ pattern { print FILENAME ":" FNR ": " $0 }'
}
