#!/bin/sh
# Builds logdx (installing its Debian packages when missing) and diagnoses an example:
# a 4-rank torchrun job where rank 2 ran out of GPU memory and the others followed.
set -eu
cd "$(dirname "$0")/.."
sh tests/deps.sh build
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
if [ $# -eq 0 ]; then set -- examples/torchrun-oom-cascade/train.log; fi
# exit 1 only means "a failure signature was found", which is the point of the demo
rc=0
build/logdx "$@" || rc=$?
[ "$rc" -le 1 ]
