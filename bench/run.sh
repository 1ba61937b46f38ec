#!/bin/sh
# bench/run.sh [SIZE]: logdx's speed and memory against rg, grep, cat and the
# decompressors, on a generated training log of SIZE bytes (default 1G; 64M, 512K ...).
#
# Environment:
#   LOGDX=path      the binary to measure (default: build/logdx, else one built in build-bench/)
#   REPEAT=3        runs per measurement; the best wall time counts
#   SLOW=30         after a run longer than this many seconds, no more repeats of it
#   GREP_SLICE=4M   grep -E is timed on the log's first GREP_SLICE bytes and scaled
#   SEED=1          the generator's seed
#   BENCH_TMP=dir   where the logs go (default: a new folder under $TMPDIR or /tmp)
#   KEEP=1          keep that folder
#   BIG=4G          peak memory is also taken on a log this big, streamed from the
#                   generator through a pipe (about 30 s a GiB, the generator's pace);
#                   BIG=0 skips it
#   CORPUS=dir      real logs (*.log, any depth) for the real-shape rows: the corpus's
#                   text with its digits changed, with numbers of random lengths, and
#                   with an id on every line (bench/reshape.c); default ../shared/corpus
#                   beside the checkout; the rows are left out where there is none
#   SHAPE_SIZE=256M the size of each real-shape log (at most SIZE)
set -u

SIZE=${1:-1G}
REPEAT=${REPEAT:-3}
SLOW=${SLOW:-30}
GREP_SLICE=${GREP_SLICE:-4M}
SEED=${SEED:-1}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")

say() { printf '%s\n' "$*" >&2; }
die() { say "bench: $*"; exit 2; }

bytes() { # 64M -> 67108864
    awk -v s="$1" 'BEGIN { n = s + 0; u = toupper(substr(s, length(s)));
        if (u == "K") n *= 1024; else if (u == "M") n *= 1048576; else if (u == "G") n *= 1073741824;
        printf "%.0f\n", n }'
}
SIZE_B=$(bytes "$SIZE")
[ "$SIZE_B" -gt 0 ] 2>/dev/null || die "SIZE must be a number of bytes with an optional K, M or G, not '$SIZE'"
GREP_B=$(bytes "$GREP_SLICE")

# ---- tools --------------------------------------------------------------------------
need_pkg() { # need_pkg COMMAND DEBIAN-PACKAGE
    command -v "$1" >/dev/null 2>&1 && return 0
    say "bench: installing $2 for $1"
    if [ "$(id -u)" = 0 ]; then apt-get install -y "$2" >/dev/null 2>&1
    else sudo apt-get install -y "$2" >/dev/null 2>&1; fi
    command -v "$1" >/dev/null 2>&1
}
need_pkg rg ripgrep || say "bench: no rg (Debian package 'ripgrep'): its rows will be n/a"
need_pkg gzip gzip || die "needs gzip"
have_zstd=1; command -v zstd >/dev/null 2>&1 || have_zstd=0
CC=${CC:-cc}

if [ -z "${LOGDX:-}" ]; then
    if [ -x "$root/build/logdx" ]; then
        LOGDX=$root/build/logdx
    else
        say "bench: building logdx in build-bench/"
        { cmake -S "$root" -B "$root/build-bench" >/dev/null &&
          cmake --build "$root/build-bench" --target logdx -j2 >/dev/null; } || die "build failed"
        LOGDX=$root/build-bench/logdx
    fi
fi
[ -x "$LOGDX" ] || die "no logdx binary at $LOGDX"

T=${BENCH_TMP:-$(mktemp -d "${TMPDIR:-/tmp}/logdx-bench.XXXXXX")}
mkdir -p "$T" || die "cannot create $T"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$T"' EXIT INT TERM

$CC -std=c11 -O2 -o "$T/gen_log" "$here/gen_log.c" || die "cannot compile gen_log.c"
$CC -std=c11 -O2 -o "$T/reshape" "$here/reshape.c" || die "cannot compile reshape.c"
$CC -std=c11 -O2 -o "$T/runtime" "$here/runtime.c" || die "cannot compile runtime.c"
have_inflate=1
$CC -std=c11 -O2 -o "$T/inflate" "$here/inflate.c" -lz 2>/dev/null || have_inflate=0

# ---- the timer: best wall time of REPEAT runs and the largest peak RSS ---------------
# timeit NAME CMD...   (CMD's stdout goes to /dev/null) sets NAME_s and NAME_mib.
# bench/runtime.c measures the command's own wall time and peak RSS.
timeit() {
    name=$1; shift
    best=; peak=0; i=0
    while [ "$i" -lt "$REPEAT" ]; do
        i=$((i + 1))
        "$T/runtime" "$T/time.out" "$@" || die "cannot run $*"
        read -r s kib rc <"$T/time.out"
        if [ "$rc" -ge 2 ]; then
            say "bench: '$*' exited with $rc:"; head -n 5 "$T/time.out.err" >&2
        fi
        best=$(awk -v a="$best" -v b="$s" 'BEGIN { r = (a == "" || b + 0 < a + 0) ? b : a; print r }')
        [ "$kib" -gt "$peak" ] && peak=$kib
        awk -v s="$s" -v lim="$SLOW" 'BEGIN { exit !(s > lim) }' && break
    done
    mib=$(awk -v k="$peak" 'BEGIN { printf "%.1f", k / 1024 }')
    eval "${name}_s=\$best ${name}_mib=\$mib"
    say "  $name: $best s, $mib MiB peak"
}
mbps() { awk -v b="$1" -v s="$2" 'BEGIN { if (s + 0 <= 0) s = 0.005; printf "%.1f", b / s / 1e6 }'; }

# ---- inputs -------------------------------------------------------------------------
say "bench: generating a $SIZE log (seed $SEED) in $T"
"$T/gen_log" "$SIZE_B" "$SEED" >"$T/train.log" || die "gen_log failed"
"$T/gen_log" 10K "$SEED" >"$T/small.log"
"$T/gen_log" 1M "$SEED" >"$T/m1.log"
# the 64 MiB point only when it lies between 1 MiB and SIZE
[ "$SIZE_B" -gt 67108864 ] && "$T/gen_log" 64M "$SEED" >"$T/m64.log"
head -c "$GREP_B" "$T/train.log" >"$T/slice.log"
GREP_B=$(wc -c <"$T/slice.log")
cat "$T/train.log" >/dev/null # into the page cache

# the patterns: logdx's own export, or the rule files' when that subcommand is missing
pat_note="from 'logdx rules patterns'"
if ! "$LOGDX" rules patterns >"$T/patterns.pcre" 2>/dev/null || ! [ -s "$T/patterns.pcre" ]; then
    pat_note="from rules/*.yaml by bench/patterns.py ('logdx rules patterns' is not there yet)"
    python3 "$here/patterns.py" yaml "$root/rules" >"$T/patterns.pcre" || die "cannot read the rule files"
fi
NPAT=$(grep -c . "$T/patterns.pcre")
NRULES=$(find "$root/rules" -name '*.yaml' -not -path '*/tables/*' | wc -l)
python3 "$here/patterns.py" rust <"$T/patterns.pcre" >"$T/patterns.rust" 2>"$T/rust.note"
python3 "$here/patterns.py" ere <"$T/patterns.pcre" >"$T/patterns.ere" 2>"$T/ere.note"

# 4x rules: the rule folder three more times, every id renamed (and its file, as a
# rule's file is named after its id)
for k in 2 3 4; do
    rm -rf "$T/rules$k"
    mkdir -p "$T/rules$k"
    find "$root/rules" -name '*.yaml' -not -path '*/tables/*' | while read -r f; do
        sed -E "s/^id:[[:space:]]*(.*[^[:space:]])[[:space:]]*\$/id: \\1-copy$k/" "$f" \
            >"$T/rules$k/$(basename "$f" .yaml)-copy$k.yaml"
    done
done
"$LOGDX" --fail-on never -q --rules "$T/rules2" --rules "$T/rules3" --rules "$T/rules4" "$T/small.log" \
    >/dev/null 2>"$T/x4.err"
[ $? -lt 2 ] || { say "bench: logdx rejected the copied rules:"; head -n 5 "$T/x4.err" >&2; }

# 4x distinct rules: the rule folder three more times, every pattern P made (?:P)|<a
# literal no log holds>: the same lines hit, but no pattern equal to a built-in one, so
# nothing is shared with the built-in rules (bench/distinct_rules.py)
for k in 2 3 4; do
    rm -rf "$T/distinct$k"
    python3 "$here/distinct_rules.py" "$root/rules" "$T/distinct$k" "$k" 2>/dev/null ||
        die "cannot make the distinct rules"
done
"$LOGDX" --fail-on never -q --rules "$T/distinct2" --rules "$T/distinct3" --rules "$T/distinct4" \
    "$T/small.log" >/dev/null 2>"$T/x4d.err"
[ $? -lt 2 ] || { say "bench: logdx rejected the distinct rules:"; head -n 5 "$T/x4d.err" >&2; }

# real shapes: the corpus's lines, reshaped three ways (bench/reshape.c)
CORPUS=${CORPUS:-$(dirname "$root")/shared/corpus}
SHAPE_B=$(bytes "${SHAPE_SIZE:-256M}")
[ "$SHAPE_B" -gt "$SIZE_B" ] && SHAPE_B=$SIZE_B
SHAPES=
if [ -d "$CORPUS" ] && find "$CORPUS" -name '*.log' -type f | grep -q .; then
    find "$CORPUS" -name '*.log' -type f | sort | while read -r f; do cat "$f"; echo; done >"$T/corpus.txt"
    for m in digits numlen ids; do
        "$T/reshape" "$m" "$SHAPE_B" "$SEED" <"$T/corpus.txt" >"$T/shape_$m.log" || die "reshape $m failed"
    done
    SHAPES="digits numlen ids"
else
    say "bench: no corpus at $CORPUS: the real-shape rows are left out"
fi

# compressed copies
gzip -1 -c "$T/train.log" >"$T/train.log.gz"
[ "$have_zstd" = 1 ] && zstd -q -3 -c "$T/train.log" >"$T/train.log.zst"

# does logdx read .zst? A log with one real error: exit 1 means it was found.
zst_ok=0
if [ "$have_zstd" = 1 ]; then
    printf 'step 1\nRuntimeError: CUDA error: an illegal memory access was encountered\n' | zstd -q -c >"$T/probe.zst"
    "$LOGDX" -q --fail-on low "$T/probe.zst" >/dev/null 2>&1
    [ $? = 1 ] && zst_ok=1
fi

# ---- measurements -------------------------------------------------------------------
say "bench: measuring (best of $REPEAT; one run when a run takes over ${SLOW}s)"
timeit cat cat "$T/train.log"
timeit j1 "$LOGDX" --fail-on never -q -j 1 "$T/train.log"
timeit j2 "$LOGDX" --fail-on never -q -j 2 "$T/train.log"
# what two cores give on this machine, measured next to -j 2 (it changes by the minute): one 'logdx -j 1' run, then two at once, side by
# side (a VM's two vCPUs may share a physical core, or be throttled by other tenants;
# on two free cores the pair takes as long as one run)
cap_log=$T/m64.log; [ -f "$cap_log" ] || cap_log=$T/train.log
timeit cap1 "$LOGDX" --fail-on never -q -j 1 "$cap_log"
timeit cap2 sh -c '"$1" --fail-on never -q -j 1 "$2" & "$1" --fail-on never -q -j 1 "$2"; wait' sh "$LOGDX" "$cap_log"
if command -v rg >/dev/null 2>&1; then
    timeit rg rg --no-unicode -c -f "$T/patterns.rust" "$T/train.log"
else rg_s=; fi
timeit grep grep -E -c -f "$T/patterns.ere" "$T/slice.log"
timeit x4 "$LOGDX" --fail-on never -q -j 1 --rules "$T/rules2" --rules "$T/rules3" --rules "$T/rules4" "$T/train.log"
timeit x4d "$LOGDX" --fail-on never -q -j 1 --rules "$T/distinct2" --rules "$T/distinct3" --rules "$T/distinct4" "$T/train.log"
for m in $SHAPES; do
    cat "$T/shape_$m.log" >/dev/null
    timeit "sh_$m" "$LOGDX" --fail-on never -q -j 1 "$T/shape_$m.log"
    if command -v rg >/dev/null 2>&1; then
        timeit "rgsh_$m" rg --no-unicode -c -f "$T/patterns.rust" "$T/shape_$m.log"
    else eval "rgsh_${m}_s="; fi
done
timeit zcat zcat "$T/train.log.gz"
if [ "$have_inflate" = 1 ]; then timeit zlib sh -c "exec \"$T/inflate\" < \"$T/train.log.gz\""; else zlib_s=; fi
timeit gz "$LOGDX" --fail-on never -q -j 1 "$T/train.log.gz"
timeit gz2 "$LOGDX" --fail-on never -q -j 2 "$T/train.log.gz"
zstdc_s=; zst_s=; zst2_s=
if [ "$have_zstd" = 1 ]; then
    timeit zstdc zstd -q -dc "$T/train.log.zst"
    if [ "$zst_ok" = 1 ]; then
        timeit zst "$LOGDX" --fail-on never -q -j 1 "$T/train.log.zst"
        timeit zst2 "$LOGDX" --fail-on never -q -j 2 "$T/train.log.zst"
    fi
fi
REPEAT_SAVED=$REPEAT; REPEAT=1
timeit mem1 "$LOGDX" --fail-on never -q -j 1 "$T/m1.log"
mem64_s=; mem64_mib=
[ -f "$T/m64.log" ] && timeit mem64 "$LOGDX" --fail-on never -q -j 1 "$T/m64.log"
# the largest log the memory target names, never written to disk: logdx reads it from
# the generator as it comes
BIG=${BIG:-4G}; big_s=; big_mib=
BIG_B=$(bytes "$BIG")
if [ "$BIG_B" -gt 0 ] 2>/dev/null; then
    timeit big sh -c '"$1" "$2" "$3" | "$4" --fail-on never -q -j 1 -' sh "$T/gen_log" "$BIG_B" "$SEED" "$LOGDX"
fi
REPEAT=10
timeit start "$LOGDX" --fail-on never -q "$T/small.log"
REPEAT=$REPEAT_SAVED
# the prefilter's own speed inside logdx (one thread), as `rules profile` reports it
pf_log=$T/m64.log; [ -f "$pf_log" ] || pf_log=$T/train.log
pf_mbps=$("$LOGDX" rules profile "$pf_log" 2>/dev/null | sed -n 's/^prefilter (.*, \([0-9]*\) MB\/s;.*/\1/p')

# ---- report -------------------------------------------------------------------------
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$root" status --porcelain -- src include 2>/dev/null | head -n 1)
[ -n "$dirty" ] && commit="$commit+changes"
row() { printf '%-44s %9s %10s %9s\n' "$1" "$2" "$3" "$4"; }
cmp_row() { printf '%-44s %-22s %-16s %s\n' "$1" "$2" "$3" "$4"; }
verdict() { awk -v v="$1" -v op="$2" -v g="$3" 'BEGIN {
    if (v == "") { print "n/a"; exit }
    ok = (op == ">=") ? (v + 0 >= g + 0) : (v + 0 < g + 0);
    print ok ? "met" : "missed" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print ""; else printf "%.2f", a / b }'; }

echo
echo "logdx benchmark: $SIZE log ($SIZE_B bytes, seed $SEED), $("$LOGDX" --version 2>/dev/null) at $commit"
echo "$NRULES rules, $NPAT patterns $pat_note"
echo "rg and grep get the same patterns rewritten for their syntax: $(sed 's/^[a-z]*: //' "$T/rust.note") for rg, $(sed 's/^[a-z]*: //' "$T/ere.note") for grep"
echo "MB = 10^6 bytes; time = best wall seconds of $REPEAT runs (one when a run took over ${SLOW}s); peak = max RSS"
echo
row "command" "time s" "MB/s" "peak MiB"
row "cat log" "$cat_s" "$(mbps "$SIZE_B" "$cat_s")" "$cat_mib"
row "logdx -j 1 log" "$j1_s" "$(mbps "$SIZE_B" "$j1_s")" "$j1_mib"
row "logdx -j 2 log" "$j2_s" "$(mbps "$SIZE_B" "$j2_s")" "$j2_mib"
if [ -n "$rg_s" ]; then row "rg --no-unicode -c -f patterns log" "$rg_s" "$(mbps "$SIZE_B" "$rg_s")" "$rg_mib"
else row "rg --no-unicode -c -f patterns log" "n/a" "n/a" "n/a"; fi
grep_scaled=$(awk -v s="$grep_s" -v a="$GREP_B" -v b="$SIZE_B" 'BEGIN { printf "%.1f", s * b / a }')
row "grep -E -c -f patterns (first $GREP_SLICE, scaled)" "$grep_scaled" "$(mbps "$GREP_B" "$grep_s")" "$grep_mib"
row "logdx -j 1 with 4x the rules (copies)" "$x4_s" "$(mbps "$SIZE_B" "$x4_s")" "$x4_mib"
row "logdx -j 1 with 4x the rules (distinct)" "$x4d_s" "$(mbps "$SIZE_B" "$x4d_s")" "$x4d_mib"
for m in $SHAPES; do
    eval "a=\$sh_${m}_s am=\$sh_${m}_mib b=\$rgsh_${m}_s bm=\$rgsh_${m}_mib"
    row "logdx -j 1, real shape: $m ($(awk -v b="$SHAPE_B" 'BEGIN { printf "%.0f MiB", b / 1048576 }'))" "$a" "$(mbps "$SHAPE_B" "$a")" "$am"
    [ -n "$b" ] && row "  rg over the same" "$b" "$(mbps "$SHAPE_B" "$b")" "$bm"
done
row "zcat log.gz (gzip -1)" "$zcat_s" "$(mbps "$SIZE_B" "$zcat_s")" "$zcat_mib"
[ -n "$zlib_s" ] && row "bare zlib inflate loop (bench/inflate.c)" "$zlib_s" "$(mbps "$SIZE_B" "$zlib_s")" "$zlib_mib"
row "logdx -j 1 log.gz" "$gz_s" "$(mbps "$SIZE_B" "$gz_s")" "$gz_mib"
row "logdx -j 2 log.gz (decoding on its own thread)" "$gz2_s" "$(mbps "$SIZE_B" "$gz2_s")" "$gz2_mib"
if [ "$have_zstd" = 1 ]; then
    row "zstd -dc log.zst" "$zstdc_s" "$(mbps "$SIZE_B" "$zstdc_s")" "$zstdc_mib"
    if [ -n "$zst_s" ]; then
        row "logdx -j 1 log.zst" "$zst_s" "$(mbps "$SIZE_B" "$zst_s")" "$zst_mib"
        row "logdx -j 2 log.zst" "$zst2_s" "$(mbps "$SIZE_B" "$zst2_s")" "$zst2_mib"
    else row "logdx -j 1 log.zst" "n/a" "n/a" "n/a"; fi
fi
row "logdx 1 MiB log" "$mem1_s" "" "$mem1_mib"
[ -n "$mem64_s" ] && row "logdx 64 MiB log" "$mem64_s" "" "$mem64_mib"
[ -n "$big_s" ] && row "gen_log $BIG | logdx - (the generator's pace)" "$big_s" "" "$big_mib"
row "logdx 10 KB log (best of 10)" "$start_s" "" "$start_mib"
[ "$have_zstd" = 1 ] && [ -z "$zst_s" ] && echo "(logdx did not diagnose a zstd-compressed log: no .zst support yet, so n/a)"

echo
cmp_row "target" "measured" "goal" "verdict"
v=$(ratio "$rg_s" "$j1_s")
cmp_row "1 thread vs rg, same patterns" "${v:-n/a}x rg's speed" ">= 4x" "$(verdict "$v" '>=' 4)"
v=$(mbps "$SIZE_B" "$j2_s")
cmp_row "2 threads, one file" "$v MB/s" ">= 2000 MB/s" "$(verdict "$v" '>=' 2000)"
v=$(ratio "$x4_s" "$j1_s")
cmp_row "4x the rules (copies)" "${v}x the time" "<= 1.5x" "$(verdict "$v" '<' 1.5001)"
v=$(ratio "$x4d_s" "$j1_s")
cmp_row "4x the rules (distinct, same lines)" "${v}x the time" "<= 1.5x" "$(verdict "$v" '<' 1.5001)"
fast=; slow=
for m in $SHAPES; do
    eval "a=\$sh_${m}_s b=\$rgsh_${m}_s"
    v=$(ratio "$b" "$a")
    cmp_row "1 thread vs rg, real shape: $m" "${v:-n/a}x rg's speed" ">= 4x" "$(verdict "$v" '>=' 4)"
    fast=$(awk -v f="$fast" -v a="$a" 'BEGIN { print (f == "" || a + 0 < f + 0) ? a : f }')
    slow=$(awk -v f="$slow" -v a="$a" 'BEGIN { print (f == "" || a + 0 > f + 0) ? a : f }')
done
if [ -n "$SHAPES" ]; then
    v=$(ratio "$slow" "$fast")
    cmp_row "slowest real shape vs fastest" "${v}x the time" "<= 2x" "$(verdict "$v" '<' 2.0001)"
fi
base_s=${zlib_s:-$zcat_s}; base_name=zlib; [ -n "$zlib_s" ] || base_name=zcat
v=$(ratio "$base_s" "$gz2_s")
cmp_row "gzip (-j 2): share of $base_name inflate speed" "$(awk -v v="$v" 'BEGIN { printf "%.0f%%", v * 100 }')" ">= 80%" "$(verdict "$v" '>=' 0.8)"
if [ "$have_zstd" = 1 ] && [ -n "$zst_s" ]; then
    v=$(ratio "$zstdc_s" "$zst2_s")
    cmp_row "zstd (-j 2): share of zstd -dc speed" "$(awk -v v="$v" 'BEGIN { printf "%.0f%%", v * 100 }')" ">= 80%" "$(verdict "$v" '>=' 0.8)"
else
    cmp_row "zstd: share of zstd -dc speed" "n/a (no .zst input)" ">= 80%" "n/a"
fi
# the ruleset's own memory is what logdx holds on a 10 KB log
v=$(awk -v a="$j1_mib" -v b="$start_mib" 'BEGIN { printf "%.1f", a - b }')
cmp_row "peak memory beyond the ruleset ($SIZE)" "$v MiB (+${start_mib})" "< 64 MiB" "$(verdict "$v" '<' 64)"
v=$(awk -v a="$j1_mib" -v b="$mem1_mib" -v c="${mem64_mib:-0}" 'BEGIN { m = a > c ? a : c; printf "%.1f", m - b }')
cmp_row "memory growth 1 MiB -> $SIZE" "+$v MiB" "flat: < 8 MiB" "$(verdict "$v" '<' 8)"
if [ -n "$big_s" ]; then
    v=$(awk -v a="$big_mib" -v b="$mem1_mib" 'BEGIN { printf "%.1f", a - b }')
    cmp_row "memory growth 1 MiB -> $BIG (piped)" "+$v MiB" "flat: < 8 MiB" "$(verdict "$v" '<' 8)"
fi
v=$(awk -v s="$start_s" 'BEGIN { printf "%.0f", s * 1000 }')
cmp_row "start-up: 10 KB log, all rules" "$v ms" "< 20 ms" "$(verdict "$v" '<' 20)"

# what bounds the throughput targets, from the same run
echo
echo "bounds (same run):"
j1_mbps=$(mbps "$SIZE_B" "$j1_s")
if [ -n "$pf_mbps" ] && [ -n "$rg_s" ]; then
    echo "  the prefilter alone (Vectorscan, every pattern, one thread, 'logdx rules profile'): $pf_mbps MB/s;"
    echo "  4x rg would need $(awk -v r="$(mbps "$SIZE_B" "$rg_s")" 'BEGIN { printf "%.0f", 4 * r }') MB/s end to end"
fi
bound() { # bound NAME DECODER-SECONDS: both jobs shared over two cores (c of them here)
    awk -v n="$1" -v d="$2" -v j="$j1_mbps" -v b="$SIZE_B" -v c="${cap:-2}" 'BEGIN {
        if (d == "" || j + 0 == 0) exit; dm = b / d / 1e6;
        m2 = 2 / (1 / j + 1 / dm); m = c / (1 / j + 1 / dm);
        printf "  %s on 2 cores: at most 2 / (1/scan + 1/decode) = %.0f MB/s, %.0f%% of the decoder alone (with the %sx two cores give here: %.0f MB/s, %.0f%%)\n", n, m2, 100 * m2 / dm, c, m, 100 * m / dm }'
}
cap=$(awk -v a="$cap1_s" -v b="$cap2_s" 'BEGIN { if (b + 0 > 0) printf "%.2f", 2 * a / b }')
[ -n "$cap" ] && echo "  two cores here: two one-thread runs side by side do ${cap}x the work of one in the same time (2.00 on two free cores), so -j 2 can be expected near $(awk -v c="$cap" -v j="$j1_mbps" 'BEGIN { printf "%.0f", c * j }') MB/s"
bound "gzip ($base_name)" "$base_s"
[ "$have_zstd" = 1 ] && bound "zstd" "$zstdc_s"
