#!/bin/bash
# Hostile inputs (issue 18): each block is a reproduction of an attack that once
# crashed logdx, hung it or grew its memory without bound; each must now end in a
# clear message or a bounded cost. Memory is read from GNU time's maximum resident size.
#   hostile.sh LOGDX
set -u
logdx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
oom="$here/../golden/torchrun-oom-cascade/input.log"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "hostile: $1"; fail=$((fail + 1)); }
# peak CMD...: runs CMD; its peak resident size in KB is left in $rss
peak() { /usr/bin/time -f "%M" -o "$tmp/rss" "$@"; rc=$?; rss=$(tail -1 "$tmp/rss"); return $rc; }
have_time=0
[ -x /usr/bin/time ] && have_time=1
# memory is measured where it means something: not under a sanitizer, whose shadow memory
# and quarantine multiply it (the commands still run there, for what they find)
measured=1
[ -n "${ASAN_OPTIONS:-}${TSAN_OPTIONS:-}${UBSAN_OPTIONS:-}" ] && measured=0
small() { [ $measured = 0 ] || [ "$rss" -lt "$1" ]; }
# and the large inputs that only memory bounds need are smaller there (a sanitizer runs
# them ten times slower, for nothing the small ones do not find)
scale=1
[ $measured = 0 ] && scale=10

# 1. an archive of many members: reports stream out, memory stays flat
python3 - "$tmp/many.tar.gz" "$oom" "$scale" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w:gz") as t:
    for i in range(40000 // int(sys.argv[3])):
        t.addfile(tarfile.TarInfo("m%06d.log" % i), io.BytesIO(b""))
    t.add(sys.argv[2], arcname="zz-oom.log")  # the last member must still be found
PY
if [ $have_time = 1 ]; then
  peak "$logdx" -q "$tmp/many.tar.gz" >"$tmp/o" 2>"$tmp/e"; rc=$?
  if [ $rc = 1 ] && grep -q "zz-oom.log.*cuda_oom" "$tmp/o" && small 150000; then ok
  else bad "40,000-member tar.gz: rc $rc, ${rss} KB"; fi
fi

# 2. xz whose dictionary asks for 1.5 GiB: refused with a message, little memory
head -c 2000000 /dev/zero | xz --lzma2=dict=1536MiB -c >"$tmp/dict.xz" 2>/dev/null
if [ -s "$tmp/dict.xz" ] && [ $have_time = 1 ]; then
  peak "$logdx" "$tmp/dict.xz" "$oom" >"$tmp/o" 2>"$tmp/e"; rc=$?
  if [ $rc = 2 ] && grep -q "dict.xz.*needs 1536 MiB" "$tmp/e" && grep -q cuda_oom "$tmp/o" &&
     small 150000; then ok; else bad "xz dictionary bomb: rc $rc, ${rss} KB"; fi
  # the same inside a tar, and from a pipe
  tar cf - -C "$(dirname "$oom")" input.log | xz --lzma2=dict=1536MiB -c >"$tmp/dict.tar.xz"
  peak "$logdx" - <"$tmp/dict.tar.xz" >"$tmp/o" 2>"$tmp/e"; rc=$?
  if [ $rc = 2 ] && grep -q "needs 1536 MiB" "$tmp/e" && small 150000; then ok
  else bad "tar.xz dictionary bomb on a pipe: rc $rc, ${rss} KB"; fi
fi
# a zstd frame written with --long=31
if command -v zstd >/dev/null; then
  head -c 3000000 /dev/zero | zstd -q --long=31 -c >"$tmp/long.zst"
  "$logdx" "$tmp/long.zst" >"$tmp/o" 2>"$tmp/e"; rc=$?
  if [ $rc = 2 ] && grep -q "long.zst.*window" "$tmp/e"; then ok; else bad "zstd --long=31: rc $rc"; fi
fi
# what is not a bomb still reads: tar.xz, tar.zst and tar.gz from a file and a pipe
for z in xz zstd gzip; do
  command -v $z >/dev/null || continue
  tar cf - -C "$(dirname "$oom")" input.log | $z -c >"$tmp/a.tar.$z"
  a=$("$logdx" -q "$tmp/a.tar.$z" | head -1)
  b=$("$logdx" -q - <"$tmp/a.tar.$z" | head -1)
  case "$a$b" in *input.log*cuda_oom*input.log*cuda_oom*) ok ;; *) bad "tar.$z: '$a' '$b'" ;; esac
done

# 4. a condition of 70,000 operands: an error at its file:line:col, no crash
python3 - "$tmp/chain.yaml" <<'PY'
import sys
cond = " and ".join(["(a or b)"] * 70000)
open(sys.argv[1], "w").write("""id: chain
class: cuda_oom
severity: high
title: chain
summary: chain
signals:
  a: {pattern: 'aaaa'}
  b: {pattern: 'bbbb'}
condition: %s
""" % cond)
PY
for cmd in "rules lint $tmp/chain.yaml" "--no-default-rules --rules $tmp/chain.yaml $oom" \
           "--rules $tmp/chain.yaml explain chain $oom"; do
  # shellcheck disable=SC2086
  "$logdx" $cmd >"$tmp/o" 2>"$tmp/e"; rc=$?
  if [ $rc = 2 ] && grep -q "chain.yaml:9:[0-9]*: error: condition.*too long" "$tmp/e"; then ok
  else bad "70,000-operand condition ($cmd): rc $rc: $(head -c 200 "$tmp/e")"; fi
done

# 5. links out of a folder: to /proc (hangs, and /proc/self/exe is logdx itself), to a
# folder outside (not followed unless --follow-links), a FIFO (skipped with a note)
mkdir -p "$tmp/tree/sub" "$tmp/outside"
cp "$oom" "$tmp/tree/sub/in.log"
cp "$oom" "$tmp/outside/out.log"
ln -s /proc "$tmp/tree/proc"
ln -s /proc/self/exe "$tmp/tree/exe"
ln -s "$tmp/outside" "$tmp/tree/elsewhere"
ln -s sub "$tmp/tree/again"
mkfifo "$tmp/tree/fifo"
timeout 20 "$logdx" -q "$tmp/tree" >"$tmp/o" 2>"$tmp/e"; rc=$?
if [ $rc = 1 ] && grep -q "sub/in.log.*cuda_oom" "$tmp/o" && ! grep -q "elsewhere\|exe\|proc/" "$tmp/o" &&
   grep -q "proc: note: symbolic link into a kernel file system" "$tmp/e" &&
   grep -q "exe: note: symbolic link into a kernel file system" "$tmp/e" &&
   grep -q "elsewhere: note: symbolic link to outside the folder" "$tmp/e" &&
   grep -q "fifo: note: not a regular file (a FIFO)" "$tmp/e" && [ "$(grep -c cuda_oom "$tmp/o")" = 1 ]; then ok
else bad "links out of a folder: rc $rc: $(head -c 300 "$tmp/e")"; fi
timeout 20 "$logdx" -q --follow-links "$tmp/tree" >"$tmp/o" 2>"$tmp/e"; rc=$?
if [ $rc = 1 ] && grep -q "elsewhere/out.log.*cuda_oom" "$tmp/o" && ! grep -q "exe:\|proc/" "$tmp/o"; then ok
else bad "--follow-links: rc $rc"; fi

# 9. a rule path that is a FIFO with no writer, or a device: refused at once
timeout 10 "$logdx" --rules "$tmp/tree/fifo" -q "$oom" >"$tmp/o" 2>"$tmp/e"; rc=$?
if [ $rc = 2 ] && grep -q "fifo: error: not a rule file or folder" "$tmp/e"; then ok
else bad "--rules FIFO: rc $rc"; fi
timeout 10 "$logdx" --rules /dev/zero -q "$oom" >"$tmp/o" 2>"$tmp/e"; rc=$?
if [ $rc = 2 ] && grep -q "/dev/zero: error: not a rule file or folder" "$tmp/e"; then ok
else bad "--rules /dev/zero: rc $rc"; fi

# 6. back references under repetition on long lines: a pattern that ran for minutes per
# line within PCRE2's match limit is matched on a line's first KiB; the rule budget then
# switches it off, with a note. timeout is only a bound on a hang, not a speed goal.
cat >"$tmp/backref.yaml" <<'Y'
id: backref
title: backref
class: cuda_oom
severity: high
summary: s
symptoms: [{symptom: a, why: b}]
root_cause: r
fix: [f]
verify: [v]
references: ['https://example.org']
signals:
  a: {pattern: '(a+)\1\1\1\1\1\1\1\1\1$'}
examples: {match: [aaaaaaaaaa], no_match: [b]}
Y
python3 -c "import sys; sys.stdout.write(('a' * 10000 + 'b\n') * 20)" >"$tmp/as.log"
timeout 120 "$logdx" --no-default-rules --rules "$tmp/backref.yaml" "$tmp/as.log" >"$tmp/o" 2>"$tmp/e"; rc=$?
if [ $rc != 124 ] && grep -q "backref.yaml:12:[0-9]*: warning: .*back reference" "$tmp/e"; then ok
else bad "back references on long lines: rc $rc"; fi
"$logdx" rules lint "$tmp/backref.yaml" >/dev/null 2>"$tmp/e"
if grep -q "back reference" "$tmp/e"; then ok; else bad "lint does not warn about a back reference"; fi

# 8. names that hold escape sequences or bytes that are not UTF-8 (a file's, an archive
# member's): no control byte reaches any output, JSON stays valid, and path_bytes gives
# the name back
mkdir -p "$tmp/names"
evil=$(printf 'evil\033]0;pwned\007\033[2J\nforged.log')
cp "$oom" "$tmp/names/$evil"
cp "$oom" "$tmp/names/$(printf 'lat\351n.log')"
python3 - "$tmp/names/members.tar" "$oom" <<'PY'
import sys, tarfile
with tarfile.open(sys.argv[1], "w") as t:
    t.add(sys.argv[2], arcname="m\x1b[31mred\x1b[0m.log")
PY
names_ok=1
for f in text json jsonl sarif junit html github; do
  "$logdx" --format $f "$tmp/names" >"$tmp/o" 2>"$tmp/e"
  if LC_ALL=C grep -q "$(printf '\033')" "$tmp/o" "$tmp/e"; then names_ok=0; echo "hostile: an ESC byte in --format $f"; fi
done
"$logdx" --format json "$tmp/names" >"$tmp/o.json" 2>/dev/null
if [ $names_ok = 1 ] && python3 - "$tmp/o.json" "$evil" <<'PY'
import base64, json, sys
d = json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))
raw = [base64.b64decode(f["path_bytes"]) for f in d["files"] if "path_bytes" in f]
assert any(r.endswith(sys.argv[2].encode()) for r in raw), raw
assert any(r.endswith(b"lat\xe9n.log") for r in raw), raw
assert any(b"m\x1b[31mred" in r for r in raw), raw
PY
then ok; else bad "hostile file and member names"; fi

# 11. a compressed log inside an archive (a .log.gz in a tar.gz, a .log.zst in a zip) is
# decoded by content, one level deep
gzip -c "$oom" >"$tmp/rank3.log.gz"
tar czf "$tmp/nested.tgz" -C "$tmp" rank3.log.gz
out=$("$logdx" -q "$tmp/nested.tgz" 2>&1)
case "$out" in *"nested.tgz:rank3.log.gz:28: high cuda_oom"*) ok ;; *) bad "a .log.gz inside a tar.gz: $out" ;; esac
if command -v zstd >/dev/null && command -v zip >/dev/null; then
  zstd -q -c "$oom" >"$tmp/r.log.zst" && (cd "$tmp" && zip -q nested.zip r.log.zst)
  out=$("$logdx" -q "$tmp/nested.zip" 2>&1)
  case "$out" in *"nested.zip:r.log.zst:28: high cuda_oom"*) ok ;; *) bad "a .log.zst inside a zip: $out" ;; esac
fi

# 1 (limits). --max-members and --max-decoded end the input with a message naming it,
# keeping what was reported before
"$logdx" -q --max-members 100 "$tmp/many.tar.gz" >"$tmp/o" 2>"$tmp/e"; rc=$?
if [ $rc = 2 ] && grep -q "many.tar.gz: error: cannot read the archive: stopped after 100 members" "$tmp/e"; then ok
else bad "--max-members: rc $rc"; fi
"$logdx" -q --max-decoded 4K "$tmp/nested.tgz" >"$tmp/o" 2>"$tmp/e"; rc=$?
if [ $rc = 2 ] && grep -q "stopped after 4096 bytes decoded" "$tmp/e"; then ok
else bad "--max-decoded: rc $rc"; fi

# 14. a file of empty lines (per-line state once made a batch of them cost 25 MB), and a
# number too long to read, which explain now names
python3 -c "import sys; sys.stdout.write('\\n' * (20000000 // $scale))" >"$tmp/empty.log"
if [ $have_time = 1 ]; then
  peak "$logdx" -q "$tmp/empty.log" >"$tmp/o" 2>"$tmp/e"; rc=$?
  if [ $rc = 0 ] && small 60000; then ok; else bad "20 M empty lines: rc $rc, ${rss} KB"; fi
fi
sed -e "s/^id: backref/id: num/" -e "s/^  a: {pattern: .*/  a: {pattern: 'loss=(?<v>[0-9]+)'}\\
condition: max(a.v) > 5/" "$tmp/backref.yaml" >"$tmp/num.yaml"
python3 -c "print('loss=' + '9' * 80)" >"$tmp/num.log"
"$logdx" --no-default-rules --rules "$tmp/num.yaml" explain num "$tmp/num.log" >"$tmp/o" 2>"$tmp/e"
if grep -q "a.v: no value (the captured text is not a number logdx reads" "$tmp/o"; then ok
else bad "explain on a number too long to read: $(head -c 300 "$tmp/o") $(head -c 200 "$tmp/e")"; fi

# 10. --redact: names by their role (MASTER_ADDR, the host of an NCCL line, pods), /root/,
# GitLab/npm/W&B keys, and what goes to stderr
cat >"$tmp/leaky.log" <<'L'
MASTER_ADDR=gpu-a100-03 torchrun --master_addr hpc-gpu-07 train.py
dgx-h100-17:2139:2250 [0] NCCL WARN NET/Socket : Connection closed by remote peer dgx-h100-18<43522>
[rank0]: RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (pod/trainer-7f9c-x2kq8, /root/work/run.py, token glpat-AbCdEfGhIjKlMnOpQrSt12)
L
"$logdx" --redact --format json "$tmp/leaky.log" /home/alice/missing.log >"$tmp/o" 2>"$tmp/e"
if ! grep -q "gpu-a100-03\|hpc-gpu-07\|dgx-h100-17\|trainer-7f9c\|/root/\|glpat-\|alice" "$tmp/o" "$tmp/e" &&
   grep -q "user-1" "$tmp/e"; then ok
else bad "--redact leaves: $(grep -o "gpu-a100-03\|hpc-gpu-07\|dgx-h100-17\|trainer-7f9c\|/root/\|glpat-[A-Za-z]*\|alice" "$tmp/o" "$tmp/e" | sort -u | tr '\n' ' ')"; fi

# 13. a pattern whose counted repeats nest to a million copies is refused before it is
# compiled; many rules load in memory that grows with their number (the prefilter is
# compiled in parts; each part is checked against a bounded set of example lines)
sed -e "s/^id: backref/id: big/" -e "s/^  a: {pattern: .*/  a: {pattern: 'x(a{1000}){1000}'}/" \
  "$tmp/backref.yaml" >"$tmp/big.yaml"
"$logdx" rules lint "$tmp/big.yaml" >"$tmp/o" 2>"$tmp/e"; rc=$?
if [ $rc = 2 ] && grep -q "big.yaml:12:[0-9]*: error: .*counted repeats nest to 1000000 copies" "$tmp/e"; then ok
else bad "(a{1000}){1000}: rc $rc: $(head -c 200 "$tmp/e")"; fi
mkdir -p "$tmp/manyrules"
python3 - "$tmp/backref.yaml" "$tmp/manyrules" "$scale" <<'PY'
import sys
t = open(sys.argv[1]).read()
for i in range(2000 // int(sys.argv[3])):
    k = "%05d" % i
    r = t.replace("id: backref", "id: r" + k)
    r = r.replace("(a+)\\1\\1\\1\\1\\1\\1\\1\\1\\1$", "uniq_%s_tok failed with code (?<code>[0-9]+)" % k)
    r = r.replace("match: [aaaaaaaaaa]", "match: ['uniq_%s_tok failed with code 3']" % k)
    open("%s/r%s.yaml" % (sys.argv[2], k), "w").write(r)
PY
if [ $have_time = 1 ]; then
  XDG_CACHE_HOME="$tmp/cache" peak "$logdx" --no-default-rules --rules "$tmp/manyrules" -q "$oom" >"$tmp/o" 2>"$tmp/e"; rc=$?
  if [ $rc = 0 ] && small 400000 && ! grep -q error "$tmp/e"; then ok
  else bad "2,000 rules: rc $rc, ${rss} KB: $(head -c 200 "$tmp/e")"; fi
fi

# binary files inside a folder (an executable, random bytes) are skipped with a word; a
# log with some NUL padding, a compressed log and a binary named on the command line
# are scanned
mkdir -p "$tmp/bins"
cp "$oom" "$tmp/bins/a.log"
python3 -c "import sys; d=open(sys.argv[1],'rb').read(); open(sys.argv[2],'wb').write(d[:3000]+b'\\0'*500+d[3000:])" "$oom" "$tmp/bins/padded.log"
head -c 20000 /dev/urandom >"$tmp/bins/model.bin"
cp "$logdx" "$tmp/bins/exe"
gzip -c "$oom" >"$tmp/bins/a.log.gz"
"$logdx" -q "$tmp/bins" >"$tmp/o" 2>"$tmp/e"; rc=$?
if [ $rc = 1 ] && grep -q "2 binary files in the folders skipped" "$tmp/e" && grep -q "padded.log:.*cuda_oom" "$tmp/o" &&
   grep -q "a.log.gz:.*cuda_oom" "$tmp/o" && ! grep -q "exe:\|model.bin:" "$tmp/o"; then ok
else bad "binary files in a folder: rc $rc: $(head -c 200 "$tmp/e")"; fi
"$logdx" "$tmp/bins" >"$tmp/o" 2>"$tmp/e"
if grep -q "^Summary: 3 files, 3 with a diagnosis, 0 without; 2 binary files skipped$" "$tmp/o"; then ok
else bad "the batch summary does not count the binary files skipped: $(grep Summary "$tmp/o")"; fi
"$logdx" -q "$tmp/bins/model.bin" >"$tmp/o" 2>"$tmp/e"; rc=$?
if [ $rc = 0 ] && ! grep -q "skipped" "$tmp/e"; then ok; else bad "a binary named on the command line: rc $rc"; fi

echo "hostile: $pass passed, $fail failed"
[ $fail = 0 ]
