#!/bin/sh
# The build without the prefilter (-DLOGDX_PREFILTER=OFF: PCRE2 on every line, no
# Vectorscan at all) compiles with warnings as errors and says what the default build
# says on the golden cases and the corpus. The default build's tests run the same engine
# through LOGDX_ENGINE=pcre2; this checks the code the option leaves out of the build.
# It is also built with -DLDX_NO_SIMD, so that the reader's portable way of finding line
# ends (memchr, where the default uses SSE2) is checked on the same cases; and so is the
# default engine (build-nosimd/), for the batches' portable code.
# Part of CI (tests/run.sh); builds in build-off/ and build-nosimd/.
#
#   sh tests/engine_off.sh
set -eu
cd "$(dirname "$0")/.."
ncpu=$(nproc 2>/dev/null || echo 2)
echo "engine_off: -DLOGDX_PREFILTER=OFF -DLDX_NO_SIMD build (build-off), golden cases and corpus"
cmake -S . -B build-off -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOGDX_PREFILTER=OFF \
  -DLOGDX_WERROR=ON -DLOGDX_TESTS=OFF -DCMAKE_C_FLAGS=-DLDX_NO_SIMD >/dev/null
cmake --build build-off -j "$ncpu" --target logdx-cli >/dev/null
if build-off/logdx rules profile /dev/null 2>/dev/null | grep -q '^prefilter (Vectorscan'; then
  echo "engine_off: build-off/logdx still has a prefilter"
  exit 1
fi
failed=0
sh tests/golden/run.sh build-off/logdx || failed=1
rc=0
sh tests/corpus.sh build-off/logdx || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 77 ] || failed=1
# the prefilter engine's portable code as well (cutting lines and making templates a
# byte at a time, counting the lines of a chunk): its unit tests and the golden cases
echo "engine_off: -DLDX_NO_SIMD build with the prefilter (build-nosimd): engines, reader, digits, memo, golden cases"
cmake -S . -B build-nosimd -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOGDX_WERROR=ON \
  -DCMAKE_C_FLAGS=-DLDX_NO_SIMD >/dev/null
cmake --build build-nosimd -j "$ncpu" --target logdx-cli test_engines test_reader test_digits test_memo >/dev/null
build-nosimd/tests/test_engines "$(pwd)/../shared/corpus/dev" >build-nosimd/engines.out 2>&1 ||
  { tail -n 20 build-nosimd/engines.out; failed=1; }
build-nosimd/tests/test_reader >build-nosimd/reader.out 2>&1 || { tail -n 20 build-nosimd/reader.out; failed=1; }
build-nosimd/tests/test_digits >build-nosimd/digits.out 2>&1 || { tail -n 20 build-nosimd/digits.out; failed=1; }
build-nosimd/tests/test_memo >build-nosimd/memo.out 2>&1 || { tail -n 20 build-nosimd/memo.out; failed=1; }
sh tests/golden/run.sh build-nosimd/logdx || failed=1
[ "$failed" = 0 ] && echo "engine_off: ok"
exit "$failed"
