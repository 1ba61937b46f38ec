#!/bin/sh
# bench/patterns.py turns logdx's patterns into what rg and grep -E accept: both must
# take the whole converted set (a construct one of them lacks fails the set, not a
# pattern), so that bench/run.sh can compare against them.
set -u
logdx=$1
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
command -v python3 >/dev/null 2>&1 || { echo "bench_patterns: no python3, skipped"; exit 77; }
"$logdx" rules patterns >"$tmp/p.pcre" || { echo "bench_patterns: rules patterns failed"; exit 1; }
python3 "$root/bench/patterns.py" ere <"$tmp/p.pcre" >"$tmp/p.ere" 2>/dev/null || fail=1
python3 "$root/bench/patterns.py" rust <"$tmp/p.pcre" >"$tmp/p.rust" 2>/dev/null || fail=1
[ "$(wc -l <"$tmp/p.ere")" = "$(wc -l <"$tmp/p.pcre")" ] || { echo "bench_patterns: ERE set has a different count"; fail=1; }
printf 'step 1\n' >"$tmp/log"
grep -E -c -f "$tmp/p.ere" "$tmp/log" >/dev/null 2>"$tmp/grep.err"
[ $? -le 1 ] || { echo "bench_patterns: grep -E refuses the set: $(head -c 300 "$tmp/grep.err")"; fail=1; }
engines="grep -E"
if command -v rg >/dev/null 2>&1; then
  engines="grep -E and rg"
  rg --no-unicode -c -f "$tmp/p.rust" "$tmp/log" >/dev/null 2>"$tmp/rg.err"
  [ $? -le 1 ] || { echo "bench_patterns: rg refuses the set: $(grep -m 1 '^error' "$tmp/rg.err")"; fail=1; }
fi
[ $fail = 0 ] && echo "bench_patterns: $engines take all $(wc -l <"$tmp/p.pcre") converted patterns"
exit $fail
