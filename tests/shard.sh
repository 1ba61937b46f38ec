#!/bin/sh
# --shard K/N and --files-from (issue 20, the map step): for N = 1, 2 and 7 over the same
# folder, every input is in exactly one shard, and each file's report there is the one a
# single scan gives; a list read with --files-from (lines, or NUL-separated with -0)
# scans what it names; stdin cannot be sharded, bad K/N and unreadable lists are errors,
# and an empty shard of a folder that has inputs is no error. `logdx merge` of the N
# shards prints every format exactly as the single scan, and refuses a missing or repeated
# shard, shards of another split, version or rule set, and a shard cut short. Each shard's jsonl says
# which shard it is, how many inputs the scan found and the ruleset's digest, and its
# lines' input places put all shards' lines back in the single scan's order.
set -u
logdx=$1
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1
fail=0
check() { if eval "$2"; then :; else echo "shard: FAILED: $1"; fail=1; fi; }
dir="$root/tests/golden"
per_file() { # a jsonl report -> one line per file: path and its diagnoses, sorted
  python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "path" in r: print(json.dumps([r["path"], r["diagnoses"]], sort_keys=True))' "$1" | sort
}
"$logdx" --format jsonl --progress never "$dir" >"$tmp/all.jsonl" 2>/dev/null
all_rc=$?
per_file "$tmp/all.jsonl" >"$tmp/all"
check "the single scan found inputs" '[ "$(wc -l <"$tmp/all")" -gt 30 ]'
for n in 1 2 7; do
  : >"$tmp/union"
  worst=0
  k=0
  while [ $k -lt $n ]; do
    "$logdx" --format jsonl --progress never --shard $k/$n "$dir" >"$tmp/s$k.jsonl" 2>/dev/null
    rc=$?
    [ $rc -gt $worst ] && worst=$rc
    per_file "$tmp/s$k.jsonl" >>"$tmp/union"
    k=$((k + 1))
  done
  sort "$tmp/union" -o "$tmp/union"
  check "N=$n: every input in exactly one shard, reported as the single scan reports it" \
    'cmp -s "$tmp/union" "$tmp/all"'
  # what merge relies on: each shard's last line names its shard, the same count of inputs
  # and the same rules; the file lines' input places sort back into the single scan's order
  check "N=$n: the shards' last lines say K/N, the inputs found and one ruleset" \
    'python3 - "$tmp" $n <<"PY"
import json, sys
tmp, n = sys.argv[1], int(sys.argv[2])
single = [json.loads(l) for l in open(tmp + "/all.jsonl")]
lasts, lines = [], []
for k in range(n):
    rows = [json.loads(l) for l in open("%s/s%d.jsonl" % (tmp, k))]
    lasts.append(rows[-1])
    lines += [(r["input"], i, k, r["path"]) for i, r in enumerate(rows) if "path" in r]
assert [l["shard"]["index"] for l in lasts] == list(range(n)), lasts
assert all(l["shard"]["count"] == n for l in lasts)
assert len({l["shard"]["inputs"] for l in lasts}) == 1
assert len({l["ruleset"] for l in lasts}) == 1 and lasts[0]["ruleset"] == single[-1]["ruleset"]
assert "shard" not in single[-1]
# an input'"'"'s reports (an archive'"'"'s members) stay in their shard'"'"'s order
lines.sort(key=lambda x: (x[0], x[2], x[1]))
assert [x[3] for x in lines] == [r["path"] for r in single if "path" in r]
PY'
  # the folder holds damaged inputs (exit 2): some shard says so, as the single scan does
  check "N=$n: the worst shard exits as the single scan ($all_rc)" '[ $worst = $all_rc ]'
done
# logdx merge: the shards printed as one scan, byte for byte, in every format, with its exit status
for n in 1 2 7; do
  set --
  k=0
  while [ $k -lt $n ]; do set -- "$@" "$tmp/s$n-$k.jsonl"; k=$((k + 1)); done
  k=0
  while [ $k -lt $n ]; do
    "$logdx" --format jsonl --progress never --shard $k/$n "$dir" >"$tmp/s$n-$k.jsonl" 2>/dev/null
    k=$((k + 1))
  done
  for f in text json jsonl sarif junit html github; do
    "$logdx" --format $f --progress never "$dir" >"$tmp/one.$f" 2>/dev/null
    one_rc=$?
    "$logdx" merge --format $f "$@" >"$tmp/merged.$f" 2>/dev/null
    merged_rc=$?
    check "merge of $n shards, --format $f: the single scan's bytes and exit status" \
      'cmp -s "$tmp/one.$f" "$tmp/merged.$f" && [ $one_rc = $merged_rc ]'
  done
  # the shards given in another order change nothing
  if [ $n = 7 ]; then
    "$logdx" merge --format json "$tmp/s7-6.jsonl" "$tmp/s7-3.jsonl" "$tmp/s7-0.jsonl" "$tmp/s7-5.jsonl" \
      "$tmp/s7-1.jsonl" "$tmp/s7-4.jsonl" "$tmp/s7-2.jsonl" >"$tmp/shuffled.json" 2>/dev/null
    check "merge: the order the shards are given in does not matter" 'cmp -s "$tmp/one.json" "$tmp/shuffled.json"'
  fi
done
# merge refuses what is not one scan, naming the file
"$logdx" merge "$tmp/s7-0.jsonl" "$tmp/s7-1.jsonl" >/dev/null 2>"$tmp/e"
check "merge: a missing shard is an error that names it" '[ $? = 2 ] && grep -q "shard 2/7 is missing" "$tmp/e"'
"$logdx" merge "$tmp/s2-0.jsonl" "$tmp/s2-1.jsonl" "$tmp/s2-1.jsonl" >/dev/null 2>"$tmp/e"
check "merge: a shard given twice is an error" '[ $? = 2 ] && grep -q "shard 1/2 is given twice" "$tmp/e"'
"$logdx" merge "$tmp/s2-0.jsonl" "$tmp/s7-1.jsonl" >/dev/null 2>"$tmp/e"
check "merge: shards of two splits are not one scan" '[ $? = 2 ] && grep -q "not one scan" "$tmp/e"'
head -n 3 "$tmp/s2-0.jsonl" >"$tmp/cut.jsonl"
"$logdx" merge "$tmp/cut.jsonl" "$tmp/s2-1.jsonl" >/dev/null 2>"$tmp/e"
check "merge: a shard cut before its last line is an error naming it" \
  '[ $? = 2 ] && grep -q "cut.jsonl: does not end with the line" "$tmp/e"'
sed 's/"version":"[^"]*"/"version":"0.0.1"/' "$tmp/s2-0.jsonl" >"$tmp/old.jsonl"
"$logdx" merge "$tmp/old.jsonl" "$tmp/s2-1.jsonl" >/dev/null 2>"$tmp/e"
check "merge: a shard of another logdx version is an error" '[ $? = 2 ] && grep -q "old.jsonl: written by logdx 0.0.1" "$tmp/e"'
mkdir "$tmp/extra"
sed 's/^id: .*/id: extra-rule-for-merge/' "$root/rules/memory/cuda-oom-pytorch.yaml" >"$tmp/extra/extra-rule-for-merge.yaml"
"$logdx" merge --rules "$tmp/extra" "$tmp/s2-0.jsonl" "$tmp/s2-1.jsonl" >/dev/null 2>"$tmp/e"
check "merge: shards scanned with other rules are an error" '[ $? = 2 ] && grep -q "scanned with other rules" "$tmp/e"'
"$logdx" merge "$tmp/all.jsonl" "$tmp/s2-1.jsonl" >/dev/null 2>"$tmp/e"
check "merge: a whole scan and a shard do not mix" '[ $? = 2 ] && grep -q "a whole scan: not one scan" "$tmp/e"'
"$logdx" merge "$tmp/all.jsonl" >"$tmp/m.json" 2>/dev/null
check "merge of one whole scan prints it again" '[ -s "$tmp/m.json" ]'
"$logdx" merge >/dev/null 2>"$tmp/e"
check "merge without files is an error" '[ $? = 2 ] && grep -q "merge takes" "$tmp/e"'
# more shards than inputs: the empty ones are no error
mkdir "$tmp/one"
cp "$root/tests/golden/torchrun-oom-cascade/input.log" "$tmp/one/a.log"
empty=0
k=0
while [ $k -lt 8 ]; do
  "$logdx" -q --shard $k/8 "$tmp/one" >"$tmp/o" 2>"$tmp/e"
  rc=$?
  if [ ! -s "$tmp/o" ]; then [ $rc = 0 ] && empty=$((empty + 1)); fi
  k=$((k + 1))
done
check "an empty shard exits 0, the others find the file once" '[ $empty = 7 ]'
# --files-from: lines, CRLF lines, NUL-separated
find "$dir" -name input.log | sort | head -6 >"$tmp/list"
"$logdx" --format jsonl --files-from "$tmp/list" >"$tmp/l.jsonl" 2>/dev/null
check "--files-from FILE scans the files it lists" '[ "$(per_file "$tmp/l.jsonl" | wc -l)" = 6 ]'
sed 's/$/\r/' "$tmp/list" | "$logdx" --format jsonl --files-from - >"$tmp/l2.jsonl" 2>/dev/null
check "--files-from - reads the list from stdin, CRLF too" 'cmp -s "$tmp/l.jsonl" "$tmp/l2.jsonl"'
tr '\n' '\0' <"$tmp/list" | "$logdx" --format jsonl --files-from - -0 >"$tmp/l3.jsonl" 2>/dev/null
check "-0: NUL-separated names, as find -print0 writes" 'cmp -s "$tmp/l.jsonl" "$tmp/l3.jsonl"'
# errors
echo 'x' | "$logdx" --shard 0/2 >/dev/null 2>"$tmp/e"
check "stdin cannot be sharded" '[ $? = 2 ] && grep -q "standard input cannot be split" "$tmp/e"'
for bad in 2/2 -1/2 a/2 1/0 3 1/2/3; do
  "$logdx" --shard "$bad" "$dir" >/dev/null 2>"$tmp/e"
  check "--shard $bad is refused" '[ $? = 2 ] && grep -q "takes K/N" "$tmp/e"'
done
"$logdx" --files-from "$tmp/none" >/dev/null 2>"$tmp/e"
check "an unreadable list is an error" '[ $? = 2 ] && grep -q -- "--files-from" "$tmp/e"'
[ $fail = 0 ] && echo "shard: all passed"
exit $fail
