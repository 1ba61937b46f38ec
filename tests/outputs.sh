#!/bin/sh
# --output FORMAT=PATH: one scan writes several reports, each the same bytes as a scan
# in that format alone; stdout keeps the --format report unless an --output names "-";
# bad specifications and paths fail before the scan with exit 2 and a message.
set -u
logdx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
log=$root/tests/golden/torchrun-oom-cascade/input.log
dir=$root/tests/golden/batch-folder
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1
unset COLUMNS
cd "$tmp" || exit 2
fail=0
check() { # name, condition
  if eval "$2"; then :; else echo "outputs: FAILED: $1"; fail=1; fi
}

for input in "$log" "$dir"; do
  "$logdx" --progress never "$input" -o sarif=o.sarif -o junit=o.xml --output json=o.json \
    -o jsonl=o.jsonl -o github=o.gh -o html=o.html -o text=o.txt >stdout.txt 2>stderr.txt
  echo $? >rc
  "$logdx" --progress never "$input" >alone.txt 2>/dev/null
  echo $? >rc.alone
  check "exit status as a scan alone ($input)" 'cmp -s rc rc.alone'
  check "stdout keeps the text report ($input)" 'cmp -s stdout.txt alone.txt'
  check "a text --output is the text report ($input)" 'cmp -s o.txt alone.txt'
  for f in sarif:o.sarif junit:o.xml json:o.json jsonl:o.jsonl github:o.gh html:o.html; do
    fmt=${f%%:*}
    "$logdx" --progress never --format "$fmt" "$input" >alone 2>/dev/null
    check "--output $fmt equals --format $fmt ($input)" "cmp -s ${f#*:} alone"
  done
done

# "-" takes stdout's place
"$logdx" "$log" -o json=- -o sarif=o.sarif >stdout.json 2>/dev/null
"$logdx" --format json "$log" >alone.json 2>/dev/null
check "-o json=- replaces stdout's report" 'cmp -s stdout.json alone.json && [ -s o.sarif ]'

# errors: exit 2, a message, nothing scanned or written
for spec in "json" "=x" "json=" "bogus=x"; do
  rm -f stdout.txt
  "$logdx" "$log" -o "$spec" >stdout.txt 2>err
  echo $? >rc
  check "-o '$spec' is refused" 'grep -qx 2 rc && grep -q -- "--output" err && [ ! -s stdout.txt ]'
done
"$logdx" "$log" -o json=same -o sarif=same >stdout.txt 2>err
check "two reports for one path are refused" '[ $? = 2 ] && grep -q "two reports for same" err'
"$logdx" "$log" -o json=- -o sarif=- >stdout.txt 2>err
check "two reports for stdout are refused" '[ $? = 2 ] && grep -q "only one report" err'
"$logdx" "$log" -o sarif=o2.sarif -o json=missing/dir/x.json >stdout.txt 2>err
check "an unwritable path stops the scan" '[ $? = 2 ] && grep -q "cannot write missing/dir/x.json" err && [ ! -s stdout.txt ]'

# logdx run: the report on stderr and the files from the same pass
"$logdx" run -q --fail-on low -o sarif=run.sarif -o junit=run.xml -- cat "$log" >passed 2>err
check "run writes its --output files" '[ $? = 1 ] && cmp -s passed "$log" && [ -s run.sarif ] && grep -q "<testsuites" run.xml && grep -q cuda_oom err'
n1=$(grep -c '"ruleId"' run.sarif)
n2=$("$logdx" --format sarif "$log" 2>/dev/null | grep -c '"ruleId"')
check "run's SARIF holds the scan's results" '[ "$n1" = "$n2" ]'
"$logdx" run -q --fail-on low -o sarif=missing/dir/r.sarif -- cat "$log" >/dev/null 2>err
check "run: an unwritable --output is an error, the report still printed" '[ $? = 2 ] && grep -q cuda_oom err && grep -q "cannot write" err'

[ $fail = 0 ] && echo "outputs: all passed"
exit $fail
