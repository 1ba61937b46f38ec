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
[ $fail = 0 ] && echo "jobs: -j 1, 2 and 8 agree on $(ls "$dir" | wc -l) files"
exit $fail
