#!/usr/bin/env bash
# test-summary.sh LOG STATUS: after `go test -v ... | tee LOG`, print the output of the tests
# that failed (and any compile errors) when STATUS is non-zero, then the closing line
#     N passed, N failed, N skipped
# counted from LOG (subtests included). A failing run never reports 0 failed: a package that
# failed without a --- FAIL line (build failure, TestMain exit, timeout panic) counts as one.
set -euo pipefail

log="${1:?usage: test-summary.sh LOG STATUS}"
status="${2:?usage: test-summary.sh LOG STATUS}"

count() { grep -cE "$1" "$log" || true; }

passed="$(count '^\s*--- PASS: ')"
failed="$(count '^\s*--- FAIL: ')"
skipped="$(count '^\s*--- SKIP: ')"

if [ "$status" != 0 ]; then
  # Packages that failed with no failing test of their own to show for it.
  pkg_only="$(awk '
    /^\s*--- FAIL: /                  { inpkg = 1 }
    /^(FAIL|ok)[ \t]+[^ \t]+[ \t]/     { if ($1 == "FAIL" && !inpkg) n++; inpkg = 0 }
    END                               { print n + 0 }' "$log")"
  failed=$((failed + pkg_only))
  [ "$failed" -gt 0 ] || failed=1

  echo
  echo "---- output of the failing tests (full log: .test.log) ----"
  # go test -v streams each test's log lines after "=== RUN/CONT/NAME <test>" markers and
  # reports results in "--- FAIL: <test>" lines (subtests indented, after their parent):
  # collect the lines per test, print those of the failed ones. Compile errors print as is.
  awk '
    /^=== (RUN|CONT|NAME|PAUSE) /   { cur = $3; next }
    /^[ \t]*--- (PASS|SKIP): /      { delete out[$3]; next }
    /^[ \t]*--- FAIL: /             { sub(/^[ \t]+/, ""); print; if ($3 in out) printf "%s", out[$3]; delete out[$3]; next }
    /^# /                           { print; next }
    /^[^ \t]+\.go:[0-9]+:[0-9]+: /   { print; next }
    /^panic: /                      { p = 40 }
    p > 0                           { print; p--; next }
    /^(FAIL|ok|PASS|\?)([ \t]|$)/   { cur = ""; next }
    cur != ""                       { out[cur] = out[cur] $0 "\n" }
  ' "$log" | head -n 400
  echo "----"
fi

# Which real engines each package's tests ran on, from the "engine: VAR=value" lines that
# platform/testenv.URL logs (go test -v prints each package's output as one block, closed
# by its ok/FAIL line). Packages without such lines ran on the embedded default only.
echo
echo "---- engines each package ran on ----"
awk '
  / engine: VIGIL_TEST_[A-Z_]+=/ {
    match($0, /VIGIL_TEST_[A-Z]+/); name = tolower(substr($0, RSTART + 11, RLENGTH - 11))
    if (!(name in seen)) { seen[name] = 1; used = used (used == "" ? "" : ", ") name }
    next
  }
  /^ok[ \t].*\[no tests to run\]/ { used = ""; delete seen; next }
  /^(ok|FAIL)[ \t]+[^ \t]+[ \t]/ {
    printf "%-4s %-55s %s\n", $1, $2, (used == "" ? "embedded default only" : used)
    used = ""; delete seen
  }
' "$log"
echo "----"

echo "$passed passed, $failed failed, $skipped skipped"
