#!/bin/sh
# Differential test of the two engines on whole logs: the prefilter (Vectorscan over a
# batch of lines, PCRE2 on the lines it hit) must find every match PCRE2 alone finds.
# Each signal's match count (`rules profile`) and the diagnoses must be identical on a
# generated training log (bench/gen_log.c: thousands of lines of many kinds in one
# batch, where one pattern can disturb another inside Vectorscan), on the real-log
# corpus as one input, and on the small logs in tests/engines/; and the gate in front of PCRE2
# turns away no line a pattern matches. test_engines compares diagnoses log by log and example by example.
#
#   engines.sh LOGDX GEN_LOG
set -u
logdx=$1
gen=$2
root=$(cd "$(dirname "$0")/.." && pwd)
corpus="$root/../shared/corpus/dev"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1
fail=0
say() { echo "engines: $*"; fail=1; }

"$logdx" rules profile /dev/null 2>/dev/null | grep -q '^prefilter (Vectorscan' || {
  echo "engines: built without the prefilter; nothing to compare"
  exit 77
}
"$gen" 2M 7 >"$tmp/gen.log" || { echo "engines: $gen failed"; exit 1; }
inputs="$tmp/gen.log"
# small logs that once made the engines disagree (tests/engines/*.log)
for f in "$root"/tests/engines/*.log; do [ -f "$f" ] && inputs="$inputs $f"; done
if [ -d "$corpus" ]; then
  find "$corpus" -type f -name '*.log' | LC_ALL=C sort | while read -r f; do cat "$f"; echo; done >"$tmp/corpus.log"
  inputs="$inputs $tmp/corpus.log"
fi

# rule.signal (or rule) and its matches, for every row that matched
matches() {
  awk 'NR > 3 && !/^ / { rule = $1; if ($3 > 0) print rule, $3; next }
       NR > 3 && /^  \./ { if ($3 > 0) print rule $1, $3 }' "$1" | LC_ALL=C sort
}
for log in $inputs; do
  name=$(basename "$log")
  "$logdx" rules profile "$log" >"$tmp/fast" 2>&1 || say "$name: rules profile failed"
  LOGDX_ENGINE=pcre2 "$logdx" rules profile "$log" >"$tmp/plain" 2>&1 ||
    say "$name: rules profile (PCRE2 alone) failed"
  matches "$tmp/fast" >"$tmp/fast.m"
  matches "$tmp/plain" >"$tmp/plain.m"
  case $name in gen.log | corpus.log) [ -s "$tmp/plain.m" ] || say "$name: PCRE2 alone matched nothing" ;; esac
  if ! cmp -s "$tmp/fast.m" "$tmp/plain.m"; then
    say "$name: matches per signal differ (< prefilter, > PCRE2 alone):"
    diff "$tmp/fast.m" "$tmp/plain.m" | grep '^[<>]' | head -n 20
  fi
  "$logdx" --fail-on never -f json "$log" >"$tmp/fast.json" 2>&1
  LOGDX_ENGINE=pcre2 "$logdx" --fail-on never -f json "$log" >"$tmp/plain.json" 2>&1
  cmp -s "$tmp/fast.json" "$tmp/plain.json" || {
    say "$name: diagnoses differ:"
    diff "$tmp/fast.json" "$tmp/plain.json" | head -n 20
  }
  # the gate in front of PCRE2 (rules/required.c) turns away no line a pattern matches:
  # with every signal run on every line, each line it turns away is matched all the same
  # (LOGDX_GATE_CHECK aborts on a match there), and the diagnoses are PCRE2 alone's
  LOGDX_ENGINE=pcre2 LOGDX_GATE_CHECK=1 "$logdx" --fail-on never -f json "$log" >"$tmp/gate.json" 2>"$tmp/gate.err" ||
    say "$name: gate check failed: $(head -c 400 "$tmp/gate.err")"
  LOGDX_ENGINE=pcre2 LOGDX_NO_GATE=1 "$logdx" --fail-on never -f json "$log" >"$tmp/nogate.json" 2>&1
  cmp -s "$tmp/gate.json" "$tmp/nogate.json" || say "$name: diagnoses differ with the gate off"
done
exit $fail
