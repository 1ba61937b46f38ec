#!/bin/sh
# Builds the libFuzzer targets with clang (ASan+UBSan, in build-fuzz/) and runs each
# for a while, starting from its seed corpus (corpus/<target>/) and its saved crashes
# (regressions/<target>/). Neither folder is written to: inputs found along the way go
# to a temporary folder, crashes to build-fuzz/artifacts/<target>/.
#
#   sh tests/fuzz/run.sh [TARGET...]     targets: rules cond reader scan pattern (default: all)
#
#   LOGDX_FUZZ_SECONDS  seconds per target (default 60)
#   LOGDX_FUZZ_JOBS     targets run at once (default: the CPUs, at most 4)
#   LOGDX_FUZZ_BUILD    build folder (default build-fuzz)
#
# Exit status 1 if any target crashed; each crash is printed with how to reproduce it.
# A crash becomes a regression test: minimise it, then save it (named for what it is)
# in tests/fuzz/regressions/<target>/, where ctest replays it (fuzz_replay_<target>).
set -eu
cd "$(dirname "$0")/../.."
root=$(pwd)
seconds=${LOGDX_FUZZ_SECONDS:-60}
build=${LOGDX_FUZZ_BUILD:-build-fuzz}
ncpu=$(nproc 2>/dev/null || echo 2)
jobs=${LOGDX_FUZZ_JOBS:-$ncpu}
[ "$jobs" -gt 4 ] && jobs=4
[ "$jobs" -ge 1 ] || jobs=1
targets=${*:-rules cond reader scan pattern}

command -v clang >/dev/null 2>&1 || { echo "fuzz: clang not found (sh tests/deps.sh)" >&2; exit 2; }
CC=clang cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOGDX_FUZZ=ON \
  -DLOGDX_SANITIZE=ON -DLOGDX_WERROR=OFF >/dev/null
fuzzers=""
for t in $targets; do fuzzers="$fuzzers fuzz_$t"; done
# shellcheck disable=SC2086
cmake --build "$build" -j "$ncpu" --target $fuzzers >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# Leaks are crashes too; a UBSan report stops the run like an ASan one.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# One target: a fresh working corpus seeded with the saved inputs, then fuzz.
fuzz_one() {
  t=$1
  art="$root/$build/artifacts/$t"
  mkdir -p "$tmp/$t" "$art"
  dict=""
  [ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"
  set -- "$tmp/$t" "tests/fuzz/corpus/$t"
  [ -d "tests/fuzz/regressions/$t" ] && set -- "$@" "tests/fuzz/regressions/$t"
  # -timeout: one input taking 10 s is a finding (a hang), not a slow machine
  # shellcheck disable=SC2086
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 \
    -max_len=16384 -print_final_stats=1 -artifact_prefix="$art/" $dict "$@" \
    >"$tmp/$t.log" 2>&1
}

report() {
  t=$1
  rc=$2
  stats=$(grep -E '^stat::(number_of_executed_units|new_units_added|peak_rss_mb)' "$tmp/$t.log" |
    sed 's/^stat:://' | tr '\n' ' ')
  cov=$(grep -E '^#[0-9]+.*(DONE|cov:)' "$tmp/$t.log" | tail -1 | sed 's/ *corp.*//')
  if [ "$rc" = 0 ]; then
    echo "fuzz $t: ok, ${seconds}s: $cov $stats"
    return 0
  fi
  echo "fuzz $t: FAILED (exit $rc); the end of its log:"
  tail -60 "$tmp/$t.log"
  for f in "$root/$build/artifacts/$t"/*; do
    [ -f "$f" ] || continue
    echo "  reproduce:  $build/tests/fuzz/fuzz_$t $f"
    echo "  minimise:   $build/tests/fuzz/fuzz_$t -minimize_crash=1 -max_total_time=60 -exact_artifact_path=min.bin $f"
    echo "  keep:       cp min.bin tests/fuzz/regressions/$t/<what-it-is>"
  done
  return 1
}

failed=0
batch=""
n=0
run_batch() {
  for t in $batch; do
    wait "$(cat "$tmp/$t.pid")" && rc=0 || rc=$?
    report "$t" "$rc" || failed=1
  done
  batch=""
  n=0
}
echo "fuzz: $targets, ${seconds}s each, $jobs at a time"
for t in $targets; do
  rm -rf "${root:?}/$build/artifacts/$t"
  fuzz_one "$t" &
  echo $! >"$tmp/$t.pid"
  batch="$batch $t"
  n=$((n + 1))
  [ "$n" -ge "$jobs" ] && run_batch
done
run_batch
exit $failed
