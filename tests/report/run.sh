#!/bin/sh
# Golden tests of the CI formats. Each folder tests/report/<case>/ holds a log
# (input.log, fed on standard input, and/or the paths that `args` names) and the
# expected results of
#     logdx --format sarif ARGS < input.log    -> out.sarif
#     logdx --format junit ARGS < input.log    -> out.junit.xml
#     logdx --format github ARGS < input.log   -> out.github
#     the exit status (the same for all three) -> rc
# run inside the folder. `args` is read by the shell, so quotes work in it (default:
# input.log). The cases use the test rules in tests/report/rules/ (--no-default-rules),
# so that edits to the built-in rules do not change them.
#
# Every output is also checked by check.py: SARIF against the official SARIF 2.1.0
# schema (sarif-schema-2.1.0.json, beside this script) plus what GitHub code scanning
# relies on, JUnit for well-formed XML and consistent counts, github for well-formed
# workflow commands within GitHub's annotation limits. The SARIF of every golden case
# in tests/golden/ (built-in rules) is schema-checked too, without an expected file.
#
#   run.sh LOGDX            compare; exit 1 on any difference (shown as a diff)
#   run.sh LOGDX --update   rewrite the expected files; review them with git diff
set -u
logdx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
update=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
check="python3 $here/check.py $here/sarif-schema-2.1.0.json"
if ! python3 -c 'import jsonschema' 2>/dev/null; then
  echo "report: python3 with jsonschema is needed (Debian: apt-get install python3-jsonschema; or sh tests/deps.sh)"
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/expect.sh disable=SC1091
. "$here/../expect.sh"
export NO_COLOR=1
unset COLUMNS
pass=0
fail=0
checks=""
ngolden=0
for dir in "$here"/*/; do
  case=$(basename "$dir")
  [ "$case" = rules ] && continue
  cd "$dir" || exit 2
  args="input.log"
  [ -f args ] && args=$(cat args)
  in=/dev/null
  [ -f input.log ] && in=input.log
  ok=1
  rcs=""
  for f in sarif junit github; do
    out=out.$f
    [ $f = junit ] && out=out.junit.xml
    eval "set -- $args"
    "$logdx" --format $f "$@" <"$in" >"$tmp/$out" 2>/dev/null
    rcs="$rcs $?"
  done
  set -- $rcs
  echo "$1" >"$tmp/rc"
  if [ "$1" != "$2" ] || [ "$1" != "$3" ]; then
    echo "report $case: the exit status differs between formats (sarif junit github):$rcs"
    ok=0
  fi
  mkdir -p "$tmp/check/$case"
  cp "$tmp/out.sarif" "$tmp/out.junit.xml" "$tmp/out.github" "$tmp/check/$case/"
  checks="$checks --sarif $tmp/check/$case/out.sarif --junit $tmp/check/$case/out.junit.xml --github $tmp/check/$case/out.github"
  expect_files "report $case" "$update" "$tmp" out.sarif out.junit.xml out.github rc || ok=0
  if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
# The built-in rules' text in every format: each golden case's log, checked only.
golden="$here/../golden"
for dir in "$golden"/*/; do
  [ -d "$dir" ] || continue
  case=$(basename "$dir")
  cd "$dir" || exit 2
  args="input.log"
  [ -f args ] && args=$(cat args)
  in=/dev/null
  [ -f input.log ] && in=input.log
  o="$tmp/check/golden-$case"
  mkdir -p "$o"
  # shellcheck disable=SC2086
  "$logdx" --format sarif $args <"$in" >"$o/out.sarif" 2>/dev/null
  # shellcheck disable=SC2086
  "$logdx" --format junit $args <"$in" >"$o/out.junit.xml" 2>/dev/null
  # shellcheck disable=SC2086
  "$logdx" --format github $args <"$in" >"$o/out.github" 2>/dev/null
  # only scans: a case that runs a subcommand (explain, rules ...) or whose options
  # this build does not take prints no SARIF log, and golden/ checks it
  head -c 200 "$o/out.sarif" | grep -q '"\$schema"' || continue
  checks="$checks --sarif $o/out.sarif --junit $o/out.junit.xml --github $o/out.github"
  ngolden=$((ngolden + 1))
done
echo "report: checking the output of $(ls -d "$here"/*/ | grep -vc /rules/) cases here and $ngolden golden logs"
# One python for every check: loading the schema takes a while.
# shellcheck disable=SC2086
if $check $checks >"$tmp/check.out" 2>&1; then
  pass=$((pass + 1))
else
  echo "report: invalid output (the folder names the case):"
  sed "s|$tmp/check/||" "$tmp/check.out" | head -60
  fail=$((fail + 1))
fi
# A fingerprint names the failure, not the run: the same failure with other numbers, pids,
# hosts, times, hex ids and temporary folders keeps it; another failure does not.
fp() { "$logdx" --format sarif --fail-on never "$1" 2>/dev/null |
  python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"][0]["results"]; print(" ".join(sorted(x["partialFingerprints"]["logdxEvidence/v2"] for x in r)))'; }
printf '%s\n' '[2024-01-10 10:00:00,123] gpu-a100-03:1234567:1234570 [3] NCCL WARN Net : Connection closed by remote peer gpu-a100-04<51234>' \
  'RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 3; 79.15 GiB total capacity; 70.10 GiB already allocated; 1.12 GiB free; 75.00 GiB reserved in total by PyTorch) ptr 0x7f3c2a001000 /tmp/tmpk3x9ab/run.py' >"$tmp/a.log"
printf '%s\n' '[2025-06-22 23:59:58,999] dgx-h100-17:12:14 [0] NCCL WARN Net : Connection closed by remote peer dgx-h100-21<60001>' \
  'RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 39.59 GiB total capacity; 37.00 GiB already allocated; 100.00 MiB free; 38.50 GiB reserved in total by PyTorch) ptr 0x55d3 /tmp/tmpzz/run.py' >"$tmp/b.log"
printf '%s\n' 'RuntimeError: CUDA error: an illegal memory access was encountered' >"$tmp/c.log"
fa=$(fp "$tmp/a.log"); fb=$(fp "$tmp/b.log"); fc=$(fp "$tmp/c.log")
if [ -n "$fa" ] && [ "$fa" = "$fb" ] && [ "$fa" != "$fc" ]; then pass=$((pass + 1))
else echo "report: fingerprints: same failure '$fa' vs '$fb', another '$fc'"; fail=$((fail + 1)); fi
# a relative path is relative to %SRCROOT%, which the run describes
(cd "$tmp" && "$logdx" --format sarif --fail-on never a.log) >"$tmp/rel.sarif" 2>/dev/null
if python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]
al=r["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
assert al["uri"] == "a.log" and al["uriBaseId"] == "%SRCROOT%" and "%SRCROOT%" in r["originalUriBaseIds"]' "$tmp/rel.sarif"
then pass=$((pass + 1)); else echo "report: uriBaseId for a relative path"; fail=$((fail + 1)); fi
echo "report: $pass passed, $fail failed"
[ $fail = 0 ]
