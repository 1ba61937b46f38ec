#!/bin/sh
# Memory and thread checks, three ways:
#   1. an ASan+UBSan build of everything (build-asan/, -DLOGDX_SANITIZE=ON) runs the whole
#      ctest suite: unit, golden, lint, rules, corpus, and the fuzz seeds and regressions;
#   2. valgrind --leak-check=full runs the plain logdx over every golden case, and the
#      exit status must be the case's own `rc` (logdx exits 1 for a finding, so memcheck
#      reports with 99): a memory error or a leak fails it.
#
#   sh tests/sanitize.sh [LOGDX]    LOGDX: the plain binary for valgrind (default
#                                   build/logdx; built in build-valgrind/ when missing)
#   3. a ThreadSanitizer build (build-tsan/) runs the -j agreement test and the golden
#      cases: one input's batches matched on worker threads, files scanned side by side.
#
#   LOGDX_SANITIZE_ONLY=asan|valgrind|tsan   run one part only
#   LOGDX_VALGRIND_FORMATS="text json"  formats to check under valgrind (default text)
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
ncpu=$(nproc 2>/dev/null || echo 2)
only=${LOGDX_SANITIZE_ONLY:-}
failed=0

if [ -z "$only" ] || [ "$only" = asan ]; then
  echo "sanitize: ASan+UBSan build (build-asan), whole suite"
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOGDX_SANITIZE=ON \
    -DLOGDX_WERROR=ON >/dev/null
  cmake --build build-asan -j "$ncpu" >/dev/null
  # abort_on_error: a report fails the test that hit it, with the report in its output
  (cd build-asan &&
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1} \
      UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
      ctest --output-on-failure -j 2 -E '^(report|html|live|package|slurm|k8s)$') || failed=1
  # (report validates output syntax with python, html drives a browser, live is about
  # timing, package builds and lints the .deb, slurm and k8s run the shard commands that
  # shard covers through a scheduler: none of them exercises memory handling the rest of
  # the suite does not, and CI's time goes to them)
fi

if [ -z "$only" ] || [ "$only" = tsan ]; then
  echo "sanitize: ThreadSanitizer build (build-tsan), threads on one input and on many"
  cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOGDX_TSAN=ON \
    -DLOGDX_WERROR=ON >/dev/null
  cmake --build build-tsan -j "$ncpu" --target logdx-cli >/dev/null # all the two tests run
  (cd build-tsan && TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} \
      ctest --output-on-failure -j 2 -R '^(golden|jobs)$') || failed=1
fi

if [ -z "$only" ] || [ "$only" = valgrind ]; then
  logdx=${1:-build/logdx}
  if [ ! -x "$logdx" ]; then
    cmake -S . -B build-valgrind -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOGDX_TESTS=OFF >/dev/null
    cmake --build build-valgrind -j "$ncpu" --target logdx-cli >/dev/null
    logdx=build-valgrind/logdx
  fi
  logdx=$(cd "$(dirname "$logdx")" && pwd)/$(basename "$logdx")
  command -v valgrind >/dev/null 2>&1 || { echo "sanitize: valgrind not found (sh tests/deps.sh)"; exit 2; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT INT TERM
  # PCRE2's JIT code reads words past the subject on purpose, which memcheck reports as
  # uninitialised reads it cannot attribute (frames "???"). Preloading a
  # pcre2_jit_compile that declines makes every match use the interpreter, which
  # memcheck can follow; logdx works the same without JIT, only slower.
  cat >"$tmp/nojit.c" <<'C'
#include <stdint.h>
int pcre2_jit_compile_8(void *code, uint32_t options);
int pcre2_jit_compile_8(void *code, uint32_t options) { (void)code; (void)options; return -45; }
C
  ${CC:-cc} -shared -fPIC -o "$tmp/nojit.so" "$tmp/nojit.c"
  formats=${LOGDX_VALGRIND_FORMATS:-text}
  # Under valgrind's emulated CPU the embedded Vectorscan database does not load and the
  # run-time compilation of every pattern would take minutes per case: valgrind checks
  # the PCRE2 engine; the ASan build above covers the prefilter engine natively.
  export LOGDX_ENGINE=pcre2
  echo "sanitize: valgrind memcheck of $logdx over tests/golden/*/ ($formats)"
  export NO_COLOR=1
  pass=0
  for dir in "$root"/tests/golden/*/; do
    case=$(basename "$dir")
    args="input.log"
    [ -f "$dir/args" ] && args=$(cat "$dir/args")
    in=/dev/null
    [ -f "$dir/input.log" ] && in=input.log
    want=$(cat "$dir/rc")
    for fmt in $formats; do
      rc=0
      # shellcheck disable=SC2086
      (cd "$dir" && LD_PRELOAD="$tmp/nojit.so" valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
        --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
        --log-file="$tmp/vg.log" "$logdx" --format "$fmt" $args <"$in" >/dev/null 2>&1) || rc=$?
      if [ "$rc" != "$want" ] || [ -s "$tmp/vg.log" ]; then
        echo "valgrind $case ($fmt): exit $rc, expected $want"
        head -80 "$tmp/vg.log"
        failed=1
      else
        pass=$((pass + 1))
      fi
    done
  done
  echo "valgrind: $pass clean runs"
fi
exit $failed
