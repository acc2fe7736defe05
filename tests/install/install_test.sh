#!/usr/bin/env bash
# `cmake --install` as a user meets it: the installed binary runs from any directory and
# reads the catalog and the scenario library installed beside it, not the source tree it
# was built from.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
unset GITHUB_STEP_SUMMARY  # the checks below must not write to a real CI job's summary

fail() {
  echo "FAIL: $1" >&2
  [[ $# -gt 1 ]] && sed 's/^/  | /' "$2" >&2
  failures=$((failures + 1))
}

prefix="$work/prefix"
if ! cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  fail "cmake --install failed" "$work/install.log"
  exit 1
fi
for path in bin/toolwire share/toolwire/catalog/reg share/toolwire/scenarios \
  share/toolwire/schemas/profile.schema.json share/toolwire/schemas/scenario.schema.json; do
  [[ -e "$prefix/$path" ]] || fail "nothing installed at $path" "$work/install.log"
done
installed_cases=$(find "$prefix/share/toolwire/catalog" -name '*.yaml' | wc -l)
source_cases=$(find "$source/conformance/catalog" -name '*.yaml' | wc -l)
((installed_cases == source_cases)) || fail "installed $installed_cases cases, the source has $source_cases"
# The library's browser/ is a symlink to the catalog's browser cases in the source tree;
# installed, it must be a directory of real files, not a link that dangles.
browser_scenarios=$(find "$prefix/share/toolwire/scenarios/browser" -type f -name '*.yaml' 2>/dev/null | wc -l)
browser_cases=$(find "$source/conformance/catalog/browser" -name '*.yaml' | wc -l)
((browser_scenarios == browser_cases)) && [[ ! -L "$prefix/share/toolwire/scenarios/browser" ]] ||
  fail "installed $browser_scenarios browser scenarios as files, the catalog has $browser_cases" "$work/install.log"

# From a directory with no catalog in sight.
mkdir -p "$work/elsewhere"
cd "$work/elsewhere" || exit 1
if ! "$prefix/bin/toolwire" --version >"$work/version" 2>&1; then
  fail "--version failed" "$work/version"
fi
grep -q "^toolwire [0-9]" "$work/version" || fail "--version has no toolwire version" "$work/version"
grep -q "^catalog $source_cases cases, content [0-9a-f]\{12\} ($prefix/share/toolwire/catalog)$" \
  "$work/version" || fail "--version does not name the installed catalog and its version" "$work/version"

"$prefix/bin/toolwire" check --in-process --filter 'reg.tool-name-6*' --progress none \
  --json report.json >"$work/out" 2>&1
status=$?
((status == 0)) || fail "installed check exited $status, want 0" "$work/out"
grep -q '"catalog": "'"$prefix"'/share/toolwire/catalog"' report.json ||
  fail "the run did not read the installed catalog" report.json
grep -q '"pass": 2' report.json || fail "the run did not pass the 2 cases" report.json

# An explicit --catalog still wins over the installed one.
cp -r "$prefix/share/toolwire/catalog" "$work/copy"
"$prefix/bin/toolwire" check --catalog "$work/copy" --in-process --filter 'reg.tool-name-6*' \
  --progress none --json copy.json >"$work/out" 2>&1 || fail "--catalog copy failed" "$work/out"
grep -q '"catalog": "'"$work"'/copy"' copy.json || fail "--catalog did not win over the installed one" copy.json

# The scenario library by name: the installed binary reads the installed one.
installed_scenarios=$(find "$prefix/share/toolwire/scenarios" -name '*.yaml' | wc -l)
# -L: the source library's browser/ is a symlink to the catalog's browser cases.
source_scenarios=$(find -L "$source/scenarios/library" -name '*.yaml' | wc -l)
((installed_scenarios == source_scenarios)) ||
  fail "installed $installed_scenarios library scenarios, the source has $source_scenarios"
"$prefix/bin/toolwire" simulate --list >"$work/out" 2>&1 || fail "installed simulate --list failed" "$work/out"
(($(grep -c '^library:' "$work/out") == source_scenarios)) ||
  fail "installed simulate --list does not list the library" "$work/out"
"$prefix/bin/toolwire" simulate library:double_result >"$work/out" 2>&1 ||
  fail "installed simulate library:double_result failed" "$work/out"
"$prefix/bin/toolwire" simulate library:no_such_scenario >"$work/out" 2>&1
grep -q "in the library at $prefix/share/toolwire/scenarios" "$work/out" ||
  fail "the installed binary does not read the installed library" "$work/out"
"$build/cli/toolwire" simulate library:no_such_scenario >"$work/out" 2>&1
grep -q "in the library at $source/scenarios/library" "$work/out" ||
  fail "the build tree's binary does not read the source library" "$work/out"

# The build tree's binary has no share/ beside it: it reads the source tree's catalog.
"$build/cli/toolwire" --version >"$work/build-version" 2>&1
grep -q "($source/conformance/catalog)$" "$work/build-version" ||
  fail "the build tree's binary does not read the source catalog" "$work/build-version"
diff <(sed -n 's/ (.*//p' "$work/version") <(sed -n 's/ (.*//p' "$work/build-version") >/dev/null ||
  fail "the installed catalog's version differs from the source's" "$work/version"

if ((failures > 0)); then
  echo "$failures install check(s) failed" >&2
  exit 1
fi
echo "all install checks passed"
