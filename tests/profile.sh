#!/bin/sh
# `logdx rules profile LOG`: the prefilter's own line and the per-rule PCRE2 table agree
# with each other and with the log (every PCRE2 run was a pair the prefilter handed
# over; the rule that fires on the log ran and matched), and PCRE2 alone says so.
set -u
logdx=$1
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1
fail=0
say() { echo "profile: $*"; fail=1; }
# a real OOM cascade, repeated so that it fills several batches of lines
log="$tmp/train.log"
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  cat "$root/examples/torchrun-oom-cascade/train.log"
done >"$log"
"$logdx" rules profile "$log" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] || say "exit $rc on a good log: $(head -n 3 "$tmp/err")"
lines=$(wc -l <"$log")
head -n 1 "$tmp/out" | grep -q "^$log: $lines lines; PCRE2 time [0-9.]* ms in all$" ||
  say "first line: $(head -n 1 "$tmp/out")"
pf=$(sed -n 2p "$tmp/out")
runs=$(awk 'NR > 3 && !/^ / { s += $2 } END { print s + 0 }' "$tmp/out")
# a rule of several signals lists them under it ("  .name"), and their runs add up to its
awk 'NR > 3 && !/^ / { if (rule != "" && nsig > 0 && sum != runs) bad = bad " " rule;
                       rule = $1; runs = $2; sum = 0; nsig = 0; next }
     NR > 3 && /^  \./ { sum += $2; nsig++ }
     END { if (rule != "" && nsig > 0 && sum != runs) bad = bad " " rule; if (bad != "") { print bad; exit 1 } }' \
  "$tmp/out" >"$tmp/sig" || say "signal runs do not add up to their rule's:$(cat "$tmp/sig")"
grep -q '^  \.' "$tmp/out" || say "no rule listed its signals"
case $pf in
"prefilter (Vectorscan, every pattern at once): "*)
  pairs=$(echo "$pf" | sed -n 's/.*; \([0-9]*\) (line, signal) pairs handed to PCRE2\(; .*\)\{0,1\}$/\1/p')
  [ -n "$pairs" ] || say "prefilter line: $pf"
  # the tail signals run on the log's last lines, after the prefilter
  tail_runs=$(echo "$pf" | sed -n 's/.*; tail signals: \([0-9]*\) runs on the last [0-9]* lines$/\1/p')
  [ -n "$tail_runs" ] || say "no tail signals ran: $pf"
  runs=$((runs - ${tail_runs:-0}))
  [ -n "$pairs" ] && [ "$runs" -gt "$pairs" ] && say "$runs PCRE2 runs, but only $pairs pairs handed over"
  # the log is one example twenty times: the memo knows every line of the last 19
  # copies by its template (digits aside, it is the same line), so the prefilter scans
  # no more than the first copy (each line it does not know twice at most: as itself,
  # and as its template for the signals that read digits)
  known=$(echo "$pf" | sed -n "s/.*; \([0-9]*\) of $lines lines known by their template .*/\1/p")
  [ -n "$known" ] && [ "$known" -ge $((lines * 19 / 20)) ] ||
    say "lines known by their template: $pf"
  size=$(wc -c <"$log")
  kb=$(echo "$pf" | sed -n 's/.*: \([0-9.]*\) kB in .*/\1/p')
  [ -n "$kb" ] && awk -v k="$kb" -v s="$size" 'BEGIN { exit !(k * 1000 < s / 200 || k * 1000 > s / 20 * 2.2) }' &&
    say "the prefilter scanned $kb kB of a $size byte log (20 copies of one)" ;;
"prefilter: not in use"*) ;; # a build without Vectorscan
*) say "second line: $pf" ;;
esac
grep -q '^cuda-oom-pytorch  *[1-9][0-9]*  *[1-9][0-9]* ' "$tmp/out" ||
  say "cuda-oom-pytorch did not run and match: $(grep cuda-oom "$tmp/out")"
# user rules alone: one database of their own, so the text is scanned once (the built-in
# database is not scanned for nothing)
mkdir "$tmp/rules"
# patterns the built-in database does not have, and no references to built-in rules
sed -e "s/pattern: '/pattern: '(?:)/" -e '/^related:/d' \
  "$(find "$root/rules" -name cuda-oom-pytorch.yaml)" >"$tmp/rules/cuda-oom-pytorch.yaml"
"$logdx" --no-default-rules --rules "$tmp/rules" rules profile "$log" >"$tmp/user" 2>"$tmp/user.err" ||
  say "user rules alone: exit $?: $(head -n 2 "$tmp/user.err")"
case $(sed -n 2p "$tmp/user") in
"prefilter (Vectorscan"*)
  kb=$(sed -n '2s/.*: \([0-9.]*\) kB in .*/\1/p' "$tmp/user")
  awk -v k="$kb" -v s="$(wc -c <"$log")" 'BEGIN { exit !(k * 1000 > s * 1.1) }' &&
    say "user rules alone: the prefilter scanned $kb kB of a $(wc -c <"$log") byte log" ;;
esac
LOGDX_ENGINE=pcre2 "$logdx" rules profile "$log" >"$tmp/plain" 2>&1
sed -n 2p "$tmp/plain" | grep -q '^prefilter: not in use (PCRE2 alone)' ||
  say "PCRE2 alone: $(sed -n 2p "$tmp/plain")"
"$logdx" rules profile >/dev/null 2>"$tmp/usage"
rc=$?
[ $rc = 2 ] && grep -q 'usage: logdx rules profile LOG' "$tmp/usage" || say "without LOG: exit $rc"
[ $fail = 0 ] && echo "profile: prefilter and PCRE2 figures agree with the log and with each other"
exit $fail
