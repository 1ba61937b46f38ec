#!/bin/sh
# The json/jsonl contract (docs/json.md): every golden case's committed out.json, the
# json and jsonl of every golden case's input, and (where it is beside the repository)
# of the whole real-log corpus are valid against docs/schema/ and their counts agree;
# a document with a field taken out, one added and a wrong count is refused.
set -u
logdx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if ! python3 -c 'import jsonschema' 2>/dev/null; then
  echo "json: python3 with jsonschema is needed (Debian: apt-get install python3-jsonschema; or sh tests/deps.sh)"
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1
set --
n=0
for dir in "$root"/tests/golden/*/; do
  case=$(basename "$dir")
  [ -f "$dir/out.json" ] && head -c 100 "$dir/out.json" | grep -q schema_version &&
    set -- "$@" --json "$dir/out.json"
  args="input.log"
  [ -f "$dir/args" ] && args=$(cat "$dir/args")
  in=/dev/null
  [ -f "$dir/input.log" ] && in="$dir/input.log"
  # shellcheck disable=SC2086
  (cd "$dir" && "$logdx" --format jsonl $args <"$in" >"$tmp/$case.jsonl" 2>/dev/null)
  grep -q schema_version "$tmp/$case.jsonl" && set -- "$@" --jsonl "$tmp/$case.jsonl"
  n=$((n + 1))
done
corpus="$root/../shared/corpus/dev"
if [ -d "$corpus" ]; then
  "$logdx" --format json --progress never "$corpus" >"$tmp/corpus.json" 2>/dev/null
  "$logdx" --format jsonl --progress never "$corpus" >"$tmp/corpus.jsonl" 2>/dev/null
  set -- "$@" --json "$tmp/corpus.json" --jsonl "$tmp/corpus.jsonl"
fi
fail=0
python3 "$here/check.py" "$root/docs/schema" "$@" || fail=1
# the check can fail: a diagnosis without its rule, with a field the schema does not
# name, and a summary that miscounts
"$logdx" --format json "$root/tests/golden/torchrun-oom-cascade/input.log" >"$tmp/ok.json" 2>/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); g=d["files"][0]["diagnoses"][0]
g.pop("rule"); g["undocumented"]=1; d["summary"]["files"]+=1; json.dump(d,open(sys.argv[2],"w"))' \
  "$tmp/ok.json" "$tmp/bad.json"
out=$(python3 "$here/check.py" "$root/docs/schema" --json "$tmp/bad.json")
for want in "'rule' is a required property" "'undocumented' was unexpected" "summary says"; do
  case $out in
  *"$want"*) ;;
  *) echo "json: a broken document passed ($want not reported)"; fail=1 ;;
  esac
done
[ $fail = 0 ] && echo "json: all passed ($n golden cases)"
exit $fail
