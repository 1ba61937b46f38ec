#!/bin/sh
# -j N gives the same report and exit status as -j 1: on the folder of real logs in
# ../shared/corpus/dev (beside the repository), in json, jsonl and text. Skipped (77)
# where the corpus is not present.
set -u
logdx=$1
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/../shared/corpus/dev"
if [ ! -d "$dir" ]; then
  echo "corpus not found at $dir: skipped"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1
fail=0
for fmt in json jsonl text; do
  "$logdx" --format $fmt -j 1 --progress never "$dir" >"$tmp/1.out" 2>"$tmp/1.err"
  echo $? >>"$tmp/1.out"
  for j in 2 8; do
    "$logdx" --format $fmt -j $j --progress never "$dir" >"$tmp/$j.out" 2>"$tmp/$j.err"
    echo $? >>"$tmp/$j.out"
    if ! cmp -s "$tmp/1.out" "$tmp/$j.out" || ! cmp -s "$tmp/1.err" "$tmp/$j.err"; then
      echo "jobs: --format $fmt -j $j differs from -j 1:"
      diff -u "$tmp/1.out" "$tmp/$j.out" | head -40
      fail=1
    fi
  done
done
# one big input: its batches are matched by -j threads side by side
find "$dir" -type f | sort | while read -r f; do cat "$f"; done >"$tmp/all.log"
"$logdx" --format json -j 1 "$tmp/all.log" >"$tmp/a1.out" 2>&1
echo $? >>"$tmp/a1.out"
for j in 2 3 8; do
  "$logdx" --format json -j $j "$tmp/all.log" >"$tmp/a$j.out" 2>&1
  echo $? >>"$tmp/a$j.out"
  if ! cmp -s "$tmp/a1.out" "$tmp/a$j.out"; then
    echo "jobs: one input of $(wc -c <"$tmp/all.log") bytes, -j $j differs from -j 1:"
    diff -u "$tmp/a1.out" "$tmp/a$j.out" | head -40
    fail=1
  fi
done
# and with collapsed templates from the first line (src/scan/memo.h), each thread its own
for j in 1 3; do
  LOGDX_MEMO_COLLAPSE=always "$logdx" --format json -j $j "$tmp/all.log" >"$tmp/c$j.out" 2>&1
  echo $? >>"$tmp/c$j.out"
  if ! cmp -s "$tmp/a1.out" "$tmp/c$j.out"; then
    echo "jobs: one input, collapsed templates, -j $j differs from -j 1 without them:"
    diff -u "$tmp/a1.out" "$tmp/c$j.out" | head -40
    fail=1
  fi
done
# compressed: decoded ahead on a thread of its own when there are threads to spare
gzip -1 -c "$tmp/all.log" >"$tmp/all.log.gz"
zstd -q -1 -c "$tmp/all.log" >"$tmp/all.log.zst" 2>/dev/null || cp "$tmp/all.log.gz" "$tmp/all.log.zst"
for z in gz zst; do
  "$logdx" --format json -j 1 "$tmp/all.log.$z" >"$tmp/z1.out" 2>&1
  echo $? >>"$tmp/z1.out"
  for j in 2 3; do
    "$logdx" --format json -j $j "$tmp/all.log.$z" >"$tmp/z$j.out" 2>&1
    echo $? >>"$tmp/z$j.out"
    if ! cmp -s "$tmp/z1.out" "$tmp/z$j.out"; then
      echo "jobs: all.log.$z, -j $j differs from -j 1:"
      diff -u "$tmp/z1.out" "$tmp/z$j.out" | head -40
      fail=1
    fi
  done
done
[ $fail = 0 ] && echo "jobs: -j 1, 2 and 8 agree on $(ls "$dir" | wc -l) files, and -j 1, 2, 3, 8 on all of them as one input, plain, gzip and zstd"
exit $fail
