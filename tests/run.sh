#!/bin/sh
# Builds logdx (warnings are errors) and runs every test: unit tests, golden CLI
# tests, lint messages, the rules' own examples and the real-log corpus.
set -eu
cd "$(dirname "$0")/.."
sh tests/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOGDX_WERROR=ON -DLOGDX_TESTS=ON >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)"
cd build && ctest --output-on-failure -j 2

# Reliability (docs/reliability.md): an ASan+UBSan build running this whole suite plus valgrind over
# the golden cases (tests/sanitize.sh), then each fuzzer for LOGDX_FUZZ_SECONDS
# (tests/fuzz/run.sh), and the build without the prefilter (tests/engine_off.sh). On by
# default only in CI (CI=true), to keep local runs short; LOGDX_SANITIZE=1,
# LOGDX_FUZZ_SECONDS=N and LOGDX_ENGINE_OFF=1 ask for them here, 0 turns them off.
[ -f CMakeCache.txt ] && cd ..
if [ "${CI:-}" = true ]; then
  LOGDX_SANITIZE=${LOGDX_SANITIZE:-1}
  LOGDX_FUZZ_SECONDS=${LOGDX_FUZZ_SECONDS:-40}
  LOGDX_ENGINE_OFF=${LOGDX_ENGINE_OFF:-1}
fi
if [ "${LOGDX_ENGINE_OFF:-0}" != 0 ]; then
  sh tests/engine_off.sh
fi
if [ "${LOGDX_SANITIZE:-0}" != 0 ]; then
  sh tests/sanitize.sh build/logdx
fi
if [ "${LOGDX_FUZZ_SECONDS:-0}" -gt 0 ]; then
  LOGDX_FUZZ_SECONDS=$LOGDX_FUZZ_SECONDS sh tests/fuzz/run.sh
fi
