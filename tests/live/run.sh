#!/bin/sh
# logdx run and logdx --follow, which golden cases cannot test (a child process, a file
# that grows while logdx watches it, a copy whose name holds a time and a pid), and the
# completions and man page against the option table.
#
#   run.sh LOGDX
set -u
logdx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
oom=$root/tests/golden/torchrun-oom-cascade/input.log
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1 TMPDIR="$tmp/keep"
unset COLUMNS
mkdir "$TMPDIR"
cd "$tmp" || exit 2
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
# Waits up to 20 s for $2 in file $1 (a loaded machine starts logdx slowly; a match returns at once).
wait_for() {
  i=0
  while [ $i -lt 200 ]; do
    grep -q -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}

# --- run: output passes through unchanged, stream by stream ---------------------------
printf 'a\rb\r\nc' >crlf.txt
"$logdx" run --keep-log saved.log -- sh -c "cat '$oom'; cat crlf.txt; echo to-stderr >&2; exit 3" >out 2>err
rc=$?
{ cat "$oom"; cat crlf.txt; } >want
check "run: exit status is the command's (3)" '[ $rc = 3 ]'
check "run: stdout is byte for byte the command's" 'cmp -s out want'
check "run: the command's stderr comes first on stderr" '[ "$(head -1 err)" = to-stderr ]'
check "run: the diagnosis is on stderr" 'grep -q "cuda-oom-pytorch" err'
check "run: it says the command's status" 'grep -q "^logdx: sh exited with status 3" err'
copy=$(sed -n 's/^logdx: the output (.*) is saved in //p' err)
check "run --keep-log: the copy is where asked and private" '[ "$copy" = saved.log ] && [ "$(stat -c %a "$copy")" = 600 ]'
# 112 lines, then a, b (\r and \r\n end lines as in the reader), to-stderr, and c, which
# has no line end and so is complete only when stdout closes
check "run: the copy has the lines in the order they were completed" \
  '[ "$(wc -l <"$copy")" = 116 ] && [ "$(sed -n 113,116p "$copy" | tr "\n" ,)" = "a,b,to-stderr,c," ]'
check "run: the report's line numbers point into the copy" \
  'grep -q "^\[rank2\]: torch.OutOfMemoryError" "$copy" && [ "$(grep -n "torch.OutOfMemoryError" "$copy" | head -1 | cut -d: -f1)" = 28 ]'

# a line split across writes is joined; stderr lines do not cut it
"$logdx" run -q --keep-log split.log -- sh -c 'printf "par"; sleep 0.2; echo err-line >&2; sleep 0.2; echo "tial"' >out 2>err
copy=$(sed -n 's/^logdx: the output (.*) is saved in //p' err)
check "run: a line written in two pieces stays one line" \
  '[ "$(cat out)" = partial ] && [ "$(tr "\n" , <"$copy")" = "err-line,partial," ]'

# without --keep-log nothing of the output is kept on disk
"$logdx" run -q -- sh -c "cat '$oom'; exit 3" >/dev/null 2>err
check "run: no copy of the output without --keep-log" '[ -z "$(ls "$TMPDIR")" ] && ! grep -q "saved in" err && grep -q cuda_oom err'
"$logdx" run -q --keep-log /nonexistent-dir/x.log -- true >/dev/null 2>err
check "run --keep-log into a missing folder: exit 2, said" '[ $? = 2 ] && grep -q "nonexistent-dir" err'

# a background child that keeps the pipes open after the command exits: logdx reports
# within its drain limit instead of waiting for the pipes to close (issue 18, item 3)
start=$(date +%s)
"$logdx" run -q -- sh -c "cat '$oom'; (while :; do echo tick; sleep 0.1; done) & exit 5" >out 2>err
rc=$?
took=$(( $(date +%s) - start ))
check "run: a writing background child does not hold the report (rc $rc, ${took}s)" \
  '[ $rc = 5 ] && [ $took -le 5 ] && grep -q cuda_oom err'
# a signal during that wait ends it at once, and the diagnosis still comes
rm -f out err # a stale copy would satisfy wait_for before this logdx has started
"$logdx" run -q -- sh -c "cat '$oom'; (while :; do echo tick; sleep 0.1; done) & exit 5" >out 2>err &
pid=$!
wait_for out tick
kill -TERM $pid
wait $pid
rc=$?
check "run: SIGTERM while draining still reports (rc $rc)" 'grep -q cuda_oom err'
# a command that ignores the signal: the second one ends logdx's wait, with the diagnosis
rm -f out err # a stale copy would satisfy wait_for before this logdx has started
"$logdx" run -q -- sh -c "trap '' INT TERM; cat '$oom'; echo started; while :; do sleep 0.05; done" >out 2>err &
pid=$!
wait_for out started
# two signals sent close together arrive as one to a process that has not run between
# them (a loaded machine): signal again until logdx is gone, as a user would
kill -TERM $pid
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 50 ]; do sleep 0.3; kill -TERM $pid 2>/dev/null; i=$((i + 1)); done
wait $pid
check "run: a second signal ends the wait for a command that ignores them" \
  'grep -q "still running" err && grep -q cuda_oom err'
pkill -KILL -f "trap '' INT TERM; cat" 2>/dev/null # it ignores TERM: that is what it is for
pkill -f "while :; do echo tick" 2>/dev/null

# the exit status, the whole matrix: a command that failed always gives its own status;
# one that succeeded gives its own 0 without --fail-on, and logdx's 0/1 with it
# (command ok|exit 5|signal 15) x (the log: a high diagnosis | nothing) x (no --fail-on |
# --fail-on high | --fail-on critical)
printf 'step 1 loss 2.3\n' >fine.log
for cmd in ok fail sig; do
  for log in "$oom" fine.log; do
    for fo in none high critical; do
      case $cmd in
        ok) c="cat '$log'" ;;
        fail) c="cat '$log'; exit 5" ;;
        sig) c="cat '$log'; kill -TERM \$\$" ;;
      esac
      if [ $fo = none ]; then "$logdx" run -q -- sh -c "$c" >/dev/null 2>err; else
        "$logdx" run --fail-on $fo -q -- sh -c "$c" >/dev/null 2>err; fi
      got=$?
      case $cmd in
        fail) want=5 ;;
        sig) want=143 ;;
        ok) if [ $fo = high ] && [ "$log" = "$oom" ]; then want=1; else want=0; fi ;;
      esac
      check "run exit status: command $cmd, $(basename "$log"), --fail-on $fo: $want (got $got)" "[ $got = $want ]"
    done
  done
done
"$logdx" run -q -- sh -c 'kill -KILL $$' >/dev/null 2>err
check "run: killed by SIGKILL exits 137" '[ $? = 137 ] && grep -q "killed by signal 9" err'
"$logdx" run -- logdx-no-such-command >/dev/null 2>err
check "run: a command not found exits 127" '[ $? = 127 ] && grep -q "cannot run logdx-no-such-command" err'
"$logdx" run >/dev/null 2>err
check "run: without a command, exit 2" '[ $? = 2 ]'
echo from-stdin | "$logdx" run -q -- cat >out 2>err
check "run: the command reads logdx's stdin" '[ "$(cat out)" = from-stdin ]'
"$logdx" run -q -- sh -c 'echo "$PYTHONUNBUFFERED"' >out 2>err
check "run: PYTHONUNBUFFERED=1 for the command" '[ "$(cat out)" = 1 ]'

# SIGTERM to logdx reaches the command, and logdx still reports
rm -f out err # a stale copy would satisfy wait_for before this logdx has started
"$logdx" run -q -- sh -c 'trap "echo got-term; exit 7" TERM; echo started; while :; do sleep 0.05; done' >out 2>err &
pid=$!
wait_for out started
kill -TERM $pid
wait $pid
rc=$?
check "run: SIGTERM is forwarded; exit is the command's (7)" '[ $rc = 7 ] && grep -q got-term out'

# --- --follow --------------------------------------------------------------------------
head -20 "$oom" >grow.log
rm -f fout ferr # a stale copy would satisfy wait_for before this logdx has started
"$logdx" --follow grow.log >fout 2>ferr &
pid=$!
sleep 0.6
check "follow: nothing printed before a rule fires" '[ ! -s fout ]'
sed -n '21,30p' "$oom" >>grow.log
check "follow: the diagnosis appears as the lines come" 'wait_for fout "grow.log:28: high cuda_oom cuda-oom-pytorch"'
sed -n '31,$p' "$oom" >>grow.log
check "follow: later rules appear too, each once" \
  'wait_for fout "torchrun-child-failed" && [ "$(grep -c cuda-oom-pytorch fout)" = 1 ]'
: >grow.log
check "follow: a truncated file (copytruncate) is said, read from its start" \
  'wait_for ferr "shrank (truncated, as copytruncate does); reading it again from its start, keeping what was found (from line 113 on)"'
printf 'step 1 loss 2.1\nstep 2 loss 2.0\nstep 3 loss 1.9\nstep 4 loss 1.8\nstep 5 loss 1.7\n' >>grow.log
sleep 0.6
kill -INT $pid
wait $pid
rc=$?
check "follow: what was found before the truncation is kept; SIGINT gives the full diagnosis, exit 1" \
  '[ $rc = 1 ] && grep -q "^grow.log: 117 lines, 3 diagnoses" fout && [ "$(grep -c "cuda-oom-pytorch:" fout)" = 1 ]'

# rotation by rename (logrotate without copytruncate): the new file is read too
head -40 "$oom" >rot.log
rm -f fout ferr # a stale copy would satisfy wait_for before this logdx has started
"$logdx" --follow rot.log >fout 2>ferr &
pid=$!
wait_for fout "cuda-oom-pytorch"
mv rot.log rot.log.1
printf 'step 1 loss 2.1\n' >rot.log
check "follow: a rotated file is said and the new one read" 'wait_for ferr "is a new file now (rotated or recreated); reading it too"'
kill -INT $pid
wait $pid
rc=$?
check "follow: after a rotation the diagnosis is kept, exit 1" '[ $rc = 1 ] && grep -q "^rot.log: 41 lines" fout && grep -q cuda_oom fout'

# an interrupt right after lines were written: they are in the report
head -40 "$oom" >int.log
rm -f fout ferr # a stale copy would satisfy wait_for before this logdx has started
"$logdx" --follow int.log >fout 2>ferr &
pid=$!
wait_for fout "cuda-oom-pytorch"
printf 'step 1 loss 2.1\nstep 2 loss 2.0\n' >>int.log
kill -INT $pid
wait $pid
check "follow: an interrupt reads what the file holds by then (42 lines)" 'grep -q "^int.log: 42 lines" fout'

# the file deleted: the end
printf 'x\n' >gone.log
rm -f fout ferr # a stale copy would satisfy wait_for before this logdx has started
"$logdx" --follow --format json gone.log >fout 2>ferr &
pid=$!
sleep 0.5
sed -n '1,40p' "$oom" >>gone.log
wait_for ferr "cuda-oom-pytorch"
rm gone.log
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
wait $pid
rc=$?
check "follow: a deleted file ends it; live lines go to stderr for json" \
  '[ $rc = 1 ] && grep -q "gone.log was deleted" ferr && grep -q "gone.log:29: high cuda_oom" ferr'
command -v python3 >/dev/null &&
  check "follow: the final report is one JSON document with 41 lines" \
  'python3 -c "import json,sys; d=json.load(open(\"fout\")); sys.exit(d[\"files\"][0][\"lines\"] != 41)"'

# standard input: followed until it ends
rm -f fout ferr # a stale copy would satisfy wait_for before this logdx has started
{ head -30 "$oom"; sleep 2; } | "$logdx" --follow -q >fout 2>ferr &
pid=$!
check "follow: a pipe's lines are diagnosed as they come" 'wait_for fout cuda-oom-pytorch && kill -0 $pid'
wait $pid
rc=$?
check "follow -q: a pipe is followed to its end; each diagnosis is printed once" \
  '[ $rc = 1 ] && [ "$(grep -c cuda-oom-pytorch fout)" = 1 ]'
{ head -30 "$oom"; } | "$logdx" --follow >fout 2>ferr
check "follow: without -q the full report comes at the end too" \
  '[ $? = 1 ] && grep -q "cuda-oom-pytorch" fout && grep -q "^most likely cause" fout'
"$logdx" --follow a b >/dev/null 2>&1
check "follow: two files is an error" '[ $? = 2 ]'

# --pid: ends once the process has exited, with what it wrote last in the report
head -20 "$oom" >pid.log
sh -c 'sleep 1; sed -n "21,40p" "$0" >>pid.log' "$oom" &
writer=$!
rm -f fout ferr # a stale copy would satisfy wait_for before this logdx has started
"$logdx" --follow -q --pid $writer pid.log >fout 2>ferr &
pid=$!
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 60 ]; do sleep 0.1; i=$((i + 1)); done
check "follow --pid: ends by itself when the process has exited" '! kill -0 $pid 2>/dev/null'
wait $pid
rc=$?
check "follow --pid: the process's last lines are in the report, exit 1" \
  '[ $rc = 1 ] && grep -q "pid.log:28: high cuda_oom" fout && grep -q "process $writer has exited" ferr'
# --idle: ends after that long without new bytes, on a file and on a quiet pipe
head -40 "$oom" >idle.log
"$logdx" --follow --idle 0.5 idle.log >fout 2>ferr
check "follow --idle: a file that stops growing ends the watch, with the full report" \
  '[ $? = 1 ] && grep -q "nothing new for 0.5 s" ferr && grep -q "^most likely cause" fout'
rm -f fout ferr # a stale copy would satisfy wait_for before this logdx has started
{ head -30 "$oom"; sleep 3; } | { "$logdx" --follow -q --idle 0.5 >fout 2>ferr; echo $? >idle.rc; date +%s >idle.end; } &
start=$(date +%s)
wait
check "follow --idle: a quiet pipe ends it before the pipe closes" \
  '[ "$(cat idle.rc)" = 1 ] && [ $(($(cat idle.end) - start)) -lt 3 ] && grep -q cuda-oom-pytorch fout'
"$logdx" --follow --idle 0.3 never.log >fout 2>ferr
check "follow --idle: a log that never appeared is an error, with no report" \
  '[ $? = 2 ] && grep -q "never.log never appeared" ferr && [ ! -s fout ]'
"$logdx" --follow --pid abc idle.log >/dev/null 2>ferr
check "follow --pid: not a pid is refused" '[ $? = 2 ] && grep -q "takes a process id" ferr'
"$logdx" --idle 1 idle.log >/dev/null 2>ferr
check "--idle without --follow is refused" '[ $? = 2 ] && grep -q "goes with --follow" ferr'

# --- completions, man page and README against the option table -----------------------
# completions/ is what `logdx help-completion` writes from the tables
for sh in bash:logdx.bash zsh:_logdx; do
  "$logdx" help-completion "${sh%%:*}" >comp.out
  cmp -s comp.out "$root/completions/${sh#*:}" ||
    bad "completions/${sh#*:} differs from logdx help-completion ${sh%%:*} (sh tests/update_generated.sh LOGDX)"
done
opts=$("$logdx" --help | sed -n 's/^ *\(-., \)\{0,1\}--\([a-z-]*\).*/\2/p')
check "help lists options" '[ -n "$opts" ]'
"$logdx" help-man | sed 's/\\-/-/g' >man.txt
for o in $opts; do
  grep -q -- "--$o" "$root/completions/logdx.bash" || bad "completions/logdx.bash lacks --$o"
  grep -q -- "--$o" "$root/completions/_logdx" || bad "completions/_logdx lacks --$o"
  grep -q -- "--$o" man.txt || bad "help-man lacks --$o"
done
# every command of --help is in the man page's synopsis and the README
"$logdx" --help | sed -n 's/^\(usage:\)\{0,1\} *logdx \([a-z]* \{0,1\}[a-z]*\).*/\2/p' |
  sed 's/ *$//; s/\[scan\]/scan/' >cmds
check "help lists commands" '[ "$(wc -l <cmds)" -ge 10 ]'
while read -r c; do
  grep -q "^\.B logdx \[*$c" man.txt || bad "man page synopsis lacks logdx $c"
  grep -q "logdx $c\|logdx \[$c\]" "$root/README.md" || bad "README lacks logdx $c"
done <cmds
# the README's copy of --help is --help
sed -n '/^usage: logdx/,/^```/p' "$root/README.md" | sed '$d' >readme.help
"$logdx" --help >help.txt
check "README's options block is logdx --help" 'cmp -s readme.help help.txt'
check "bash completion loads" 'bash -c ". \"$root/completions/logdx.bash\" && complete -p logdx" >/dev/null'
# what it offers, with the built logdx on PATH for the rule ids
mkdir -p bin && ln -sf "$logdx" bin/logdx
comp() { # words... (the last is being completed): the candidates, one a line
  PATH="$PWD/bin:$PATH" bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _logdx; printf "%s\n" "${COMPREPLY[@]}"' \
    "$root/completions/logdx.bash" "$@"
}
check "completion: --format offers every format" '[ "$(comp logdx --format "" | sort | tr "\n" " ")" = "$("$logdx" --help | sed -n "s/.*--format FMT.*text (default), \(.*\)/text \1/p" | tr -d , | sed "s/ or / /" | tr " " "\n" | sort | tr "\n" " ")" ]'
check "completion: -o offers FORMAT=" 'comp logdx -o sa | grep -qx "sarif="'
check "completion: -o FORMAT= offers paths" 'touch out.sarif && comp logdx -o sarif=out.s | grep -qx "sarif=out.sarif"'
check "completion: rules commands" 'comp logdx rules "" | grep -qx profile && comp logdx rules "" | grep -qx classes'
check "completion: rules show offers rule ids" 'comp logdx rules show cuda-oom-py | grep -qx cuda-oom-pytorch'
check "completion: explain RULE then files" 'comp logdx explain cuda-oom-py | grep -qx cuda-oom-pytorch && comp logdx explain cuda-oom-pytorch out.s | grep -qx out.sarif'
check "completion: --fail-on severities" 'comp logdx --fail-on h | grep -qx high'
if command -v zsh >/dev/null; then
  check "zsh completion parses" 'zsh -n "$root/completions/_logdx"'
fi
if command -v groff >/dev/null; then
  "$logdx" help-man >logdx.1
  check "man page renders without warnings" '[ -z "$(groff -man -ww -z logdx.1 2>&1)" ]'
fi

[ $fail = 0 ] && echo "live: all passed"
exit $fail
