#!/bin/sh
# Builds logdx (warnings are errors) and runs every test: unit tests, golden CLI
# tests, lint messages, the rules' own examples and the real-log corpus.
set -eu
cd "$(dirname "$0")/.."
sh tests/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOGDX_WERROR=ON >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)"
cd build && ctest --output-on-failure -j 2
