#!/bin/sh
# The progress line counts bytes as they are read, not when a file ends: through one
# large file, a compressed one (its compressed bytes, against its size on disk) and a
# pipe (no total: no "of", no ETA). With --progress never, and on a pipe of stderr by
# default, nothing is drawn.
set -u
logdx=$1
gen=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1
fail=0
check() { if eval "$2"; then :; else echo "progress: FAILED: $1"; fail=1; fi; }
"$gen" 96M 7 >"$tmp/big.log"
gzip -6 -c "$tmp/big.log" >"$tmp/big.log.gz"
# the lines drawn, one a line; those before the last show the file not finished yet
lines() { tr '\r' '\n' <"$1" | sed 's/ *$//' | grep '^logdx: '; }
mid() { lines "$1" | grep '^logdx: 0/1 files' | grep -v '^logdx: 0/1 files, 0 B'; }
"$logdx" --progress always -q -j 1 "$tmp/big.log.gz" >/dev/null 2>"$tmp/gz.err"
check "a compressed file's bytes count while it is read" '[ -n "$(mid "$tmp/gz.err")" ]'
check "... against its size on disk" \
  'lines "$tmp/gz.err" | tail -1 | grep -q "^logdx: 1/1 files, \(.*\) of \1, "'
"$logdx" --progress always -q -j 2 "$tmp/big.log" >/dev/null 2>"$tmp/plain.err"
check "the last line says all of it was read" \
  'lines "$tmp/plain.err" | tail -1 | grep -q "^logdx: 1/1 files, 100.7 MB of 100.7 MB, "'
gzip -dc "$tmp/big.log.gz" | "$logdx" --progress always -q >/dev/null 2>"$tmp/pipe.err"
check "a pipe: bytes and rate, no total and no ETA" \
  'lines "$tmp/pipe.err" | tail -1 | grep -q "^logdx: 1/1 files, 100.7 MB, [0-9.]* MB/s$"'
"$logdx" --progress never -q "$tmp/big.log.gz" >/dev/null 2>"$tmp/never.err"
check "--progress never draws nothing" '[ ! -s "$tmp/never.err" ]'
"$logdx" -q "$tmp/big.log.gz" >/dev/null 2>"$tmp/auto.err"
check "stderr not a terminal: nothing drawn" '[ ! -s "$tmp/auto.err" ]'
[ $fail = 0 ] && echo "progress: all passed"
exit $fail
