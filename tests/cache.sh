#!/bin/sh
# The cache of compiled user-rule databases: a second run loads what the first compiled
# and says the same; a damaged cache file is compiled over; LOGDX_NO_CACHE=1 writes none.
set -u
logdx=$1
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LOGDX_CACHE_DIR="$tmp/cache" NO_COLOR=1
fail=0
"$logdx" rules profile /dev/null 2>/dev/null | grep -q '^prefilter (Vectorscan' || {
  echo "cache: built without the prefilter; no database to cache"
  exit 77
}
# user rules: copies of two built-in rules under other ids, with a pattern changed so
# that the embedded database cannot serve them
mkdir -p "$tmp/rules"
for r in cuda-oom-pytorch nccl-watchdog-collective-timeout; do
  f=$(find "$root/rules" -name "$r.yaml")
  sed -e "s/^id: .*/id: $r-user/" -e 's/CUDA out of memory/CUDA out of memory/' \
      -e "s/pattern: '/pattern: '(?:)/" "$f" >"$tmp/rules/$r-user.yaml"
done
log="$root/examples/torchrun-oom-cascade/train.log"
run() { "$logdx" --rules "$tmp/rules" --format json "$log" 2>&1; echo "exit $?"; }
run >"$tmp/1.out"
n=$(ls "$tmp/cache" 2>/dev/null | wc -l)
[ "$n" = 1 ] || { echo "cache: expected 1 file after the first run, found $n"; fail=1; }
run >"$tmp/2.out"
cmp -s "$tmp/1.out" "$tmp/2.out" || { echo "cache: the second run (from the cache) differs:"; diff "$tmp/1.out" "$tmp/2.out" | head -20; fail=1; }
grep -q 'cuda-oom-pytorch-user' "$tmp/1.out" || { echo "cache: the user rule did not fire"; fail=1; }
f=$(ls "$tmp/cache"/* | head -n 1)
printf 'LDX6 damaged' >"$f"
run >"$tmp/3.out"
cmp -s "$tmp/1.out" "$tmp/3.out" || { echo "cache: a damaged cache file changed the result"; fail=1; }
[ "$(head -c 4 "$f")" = LDX6 ] && [ "$(wc -c <"$f")" -gt 100 ] || { echo "cache: the damaged file was not rewritten"; fail=1; }
rm -rf "$tmp/cache"
LOGDX_NO_CACHE=1 run >"$tmp/4.out"
cmp -s "$tmp/1.out" "$tmp/4.out" || { echo "cache: LOGDX_NO_CACHE=1 changed the result"; fail=1; }
[ ! -d "$tmp/cache" ] || [ -z "$(ls "$tmp/cache")" ] || { echo "cache: LOGDX_NO_CACHE=1 still wrote a file"; fail=1; }
[ $fail = 0 ] && echo "cache: compiled once, loaded after, damaged files recompiled, off on request"
exit $fail
