#!/bin/bash
# Faults: each input or output problem gets a clear message naming the input, the
# other inputs are still scanned, JSON stays valid with the problem in "errors", the
# exit status is 2, and nothing crashes.
#   run.sh LOGDX
set -u
logdx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../golden/torchrun-oom-cascade/input.log"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "faults: $1"; fail=$((fail + 1)); }
json_ok() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }

# a read error in the middle of a file (/proc/self/mem cannot be read at offset 0)
"$logdx" --format json /proc/self/mem "$corpus" >"$tmp/o.json" 2>"$tmp/e"; rc=$?
if [ $rc = 2 ] && json_ok "$tmp/o.json" && grep -q "/proc/self/mem" "$tmp/e" &&
   python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
where = [e for e in d["errors"] if e.get("path") == "/proc/self/mem"] + \
        [e for f in d["files"] if f["path"] == "/proc/self/mem" for e in f["errors"]]
assert where and any(f["diagnoses"] for f in d["files"])' "$tmp/o.json"; then ok; else bad "read error: rc $rc"; fi

# a missing file among good ones
"$logdx" --format json "$tmp/missing.log" "$corpus" >"$tmp/o.json" 2>"$tmp/e"; rc=$?
if [ $rc = 2 ] && json_ok "$tmp/o.json" && grep -q "missing.log" "$tmp/e" &&
   python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["errors"] and d["files"][0]["diagnoses"]' "$tmp/o.json"; then ok; else bad "missing file: rc $rc"; fi

# a directory where a file was expected
"$logdx" --baseline "$tmp" "$corpus" >/dev/null 2>"$tmp/e"; rc=$?
if [ $rc = 2 ] && grep -q "$tmp" "$tmp/e"; then ok; else bad "directory as baseline: rc $rc"; fi

# a FIFO
mkfifo "$tmp/fifo"
(cat "$corpus" >"$tmp/fifo") &
"$logdx" -q "$tmp/fifo" >"$tmp/o" 2>"$tmp/e"; rc=$?
wait
if [ $rc = 1 ] && grep -q "cuda_oom" "$tmp/o"; then ok; else bad "fifo: rc $rc"; fi

# a truncated gzip: what was read is still diagnosed
gzip -c "$corpus" >"$tmp/full.gz"
head -c $(($(wc -c <"$tmp/full.gz") * 2 / 3)) "$tmp/full.gz" >"$tmp/cut.gz"
"$logdx" --format json "$tmp/cut.gz" >"$tmp/o.json" 2>"$tmp/e"; rc=$?
if [ $rc = 2 ] && json_ok "$tmp/o.json" && grep -q "cut.gz" "$tmp/e"; then ok; else bad "truncated gzip: rc $rc"; fi

# binary junk: no crash, valid JSON
head -c 200000 /dev/urandom >"$tmp/junk.bin"
"$logdx" --format json "$tmp/junk.bin" >"$tmp/o.json" 2>"$tmp/e"; rc=$?
if [ $rc -lt 128 ] && json_ok "$tmp/o.json"; then ok; else bad "binary junk: rc $rc"; fi

# a file that shrinks while it is read
for i in $(seq 1 3000); do cat "$corpus"; done >"$tmp/big.log"
("$logdx" --format json "$tmp/big.log" >"$tmp/o.json" 2>"$tmp/e"; echo $? >"$tmp/rc") &
sleep 0.05
: >"$tmp/big.log"
wait
rc=$(cat "$tmp/rc")
if [ "$rc" -lt 128 ] && json_ok "$tmp/o.json"; then ok; else bad "shrinking file: rc $rc"; fi

# a closed pipe on stdout: no noise, status 2. The reports (30 x ~5 KB) exceed what a
# pipe buffers, so logdx meets the closed pipe however late head exits.
for i in $(seq 1 200); do cat "$corpus"; done >"$tmp/mid.log"
# shellcheck disable=SC2046
"$logdx" $(for i in $(seq 1 30); do echo "$tmp/mid.log"; done) 2>"$tmp/e" | head -1 >/dev/null
rc=${PIPESTATUS[0]}
if [ "$rc" = 2 ] && [ ! -s "$tmp/e" ]; then ok; else bad "closed pipe: rc $rc, stderr: $(head -c 200 "$tmp/e")"; fi

# disk full on output
if [ -w /dev/full ]; then
  "$logdx" --format json "$corpus" >/dev/full 2>"$tmp/e"; rc=$?
  if [ $rc = 2 ] && grep -qi "write" "$tmp/e"; then ok; else bad "disk full: rc $rc"; fi
fi

echo "faults: $pass passed, $fail failed"
[ $fail = 0 ]
