# Shared by the browser tests (tab_in_chromium.sh, demo_in_chromium.sh): sourced after the
# test sets $here; the test then defines a fail() that names its own logs. Defines: the
# set-up (browser_test_setup), the skip rule, child clean-up, until_ok, js,
# listening/has_url, and the driver (start_driver, drive).
browser_dir=$(cd "$here/../../browser" && pwd)

# browser_test_setup TOOLWIRE OUTDIR [SERVE ARGS...]: sets $toolwire, $serve_extra, skips
# without a browser, and enters a fresh OUTDIR (then $out, absolute).
browser_test_setup() {
  toolwire=$1
  out=$2
  shift 2
  serve_extra=("$@")
  need_browser
  rm -rf "$out" && mkdir -p "$out" || exit 1
  cd "$out" && out=$(pwd) || exit 1
}

# missing WHAT: skips the test (77) outside CI; in CI a missing piece is a failure.
missing() {
  if [ -n "${CI:-}" ]; then
    echo "FAIL: $1 (CI is set, so the browser test may not be skipped; run scripts/bootstrap --browser)"
    exit 1
  fi
  echo "$1: skipped (install it with scripts/bootstrap --browser)"
  exit 77
}

# need_browser: chromium, node and playwright-core, or missing.
need_browser() {
  chromium=$(command -v chromium) || missing "chromium not installed"
  command -v node >/dev/null 2>&1 || missing "node not installed"
  [ -f "$browser_dir/node_modules/playwright-core/package.json" ] ||
    missing "browser/node_modules has no playwright-core"
}

pids=()
cleanup() {
  exec 3>&- 2>/dev/null
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
}
trap cleanup EXIT

# until_ok SECONDS WHAT CMD...: runs CMD every 0.1 s until it succeeds; fails the test,
# naming WHAT, when it has not within SECONDS.
until_ok() {
  local limit=$1 what=$2
  shift 2
  local end=$((SECONDS + limit))
  until "$@" >/dev/null; do
    [ $SECONDS -lt $end ] || fail "$what (waited ${limit} s)"
    sleep 0.1
  done
}

# js EXPR ARGS...: prints the value of a JavaScript expression over the arguments (a[0]...),
# with JSON.parse as P; exits 1 when it throws or is false/undefined.
js() {
  node -e 'const P = JSON.parse, a = process.argv.slice(2);
    let v; try { v = eval(process.argv[1]); } catch (e) { process.stderr.write(e.message + "\n"); process.exit(1); }
    if (v === false || v === undefined || v === null) process.exit(1);
    process.stdout.write(typeof v === "string" ? v : JSON.stringify(v));' "$@"
}

# A URL printed by a child on its first stdout line ("listening on http://...").
listening() { [ -f "$1" ] && sed -n 's|^.*listening on \(http://[0-9.:]*\).*$|\1|p' "$1" | head -1; }
has_url() { [ -n "$(listening "$1")" ]; }

# start_driver: runs browser/driver/driver.mjs in the background, its commands on fd 3.
start_driver() {
  mkfifo driver.in || exit 1
  CHROMIUM=$chromium node "$browser_dir/driver/driver.mjs" <driver.in >driver.out 2>driver.err &
  pids+=($!)
  exec 3>driver.in
  sent=0
}

# drive COMMAND-JSON: sends one command and sets $reply to its answer; fails unless it is ok.
# The driver's own waits end within 15 s (30 s to launch Chromium), so 60 s here is the
# deadline of a driver that hangs.
drive() {
  sent=$((sent + 1))
  echo "$1" >&3
  until_ok 60 "the driver did not answer $1" \
    eval '[ "$(wc -l <driver.out)" -ge $sent ]'
  reply=$(sed -n "${sent}p" driver.out)
  js 'P(a[0]).ok' "$reply" >/dev/null || fail "driver: $1 -> $reply"
}
