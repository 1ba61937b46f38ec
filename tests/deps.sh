#!/bin/sh
# Installs what logdx needs from Debian's packages, when missing; safe to run again.
#   sh tests/deps.sh build   what a build needs (the Quick start's demo, the CI example
#                            workflow examples/ci/logdx.yml)
#   sh tests/deps.sh         that and what the test suite needs (tests/run.sh, CI)
# The one list of logdx's packages: tests/ci_workflow.sh checks that the example
# workflow installs through this script and names no package of its own.
set -eu
mode=${1:-all}
need=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
# -- build --
command -v cc >/dev/null 2>&1 || need="$need build-essential"
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
have_pc libpcre2-8 || need="$need libpcre2-dev"
have_pc libcjson || need="$need libcjson-dev"
have_pc yaml-0.1 || need="$need libyaml-dev"
have_pc zlib || need="$need zlib1g-dev"
have_pc libhs || need="$need libvectorscan-dev"
have_pc libarchive || need="$need libarchive-dev"
have_pc liblzma || need="$need liblzma-dev"
have_pc libzstd || need="$need libzstd-dev"
if [ "$mode" != build ]; then
  # -- tests --
  command -v python3 >/dev/null 2>&1 || need="$need python3"
  python3 -c "import jsonschema" >/dev/null 2>&1 || need="$need python3-jsonschema"
  python3 -c "import yaml" >/dev/null 2>&1 || need="$need python3-yaml"
  have_pc cmocka || need="$need libcmocka-dev"
  # The Debian package (tests/package.sh): lintian clean
  command -v lintian >/dev/null 2>&1 || need="$need lintian"
  # Fuzzing (clang with its libFuzzer runtime) and valgrind: tests/fuzz/run.sh, tests/sanitize.sh
  command -v clang >/dev/null 2>&1 || need="$need clang"
  ls "$(clang --print-runtime-dir 2>/dev/null)"/libclang_rt.fuzzer-*.a >/dev/null 2>&1 ||
    need="$need libclang-rt-dev"
  command -v valgrind >/dev/null 2>&1 || need="$need valgrind"
  # Hostile-input tests (tests/faults/hostile.sh): the compressors that make the bombs,
  # and GNU time for their memory
  command -v xz >/dev/null 2>&1 || need="$need xz-utils"
  command -v zstd >/dev/null 2>&1 || need="$need zstd"
  [ -x /usr/bin/time ] || need="$need time"
  command -v zip >/dev/null 2>&1 || need="$need zip"
  # A one-node Slurm cluster for the job-array test (tests/slurm.sh)
  command -v slurmctld >/dev/null 2>&1 || need="$need slurm-wlm"
  command -v munged >/dev/null 2>&1 || need="$need munge"
  # Browser test of --format html (tests/html/run.sh), opt-in: it is a large package
  if [ "${LOGDX_BROWSER_TESTS:-0}" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
    need="$need chromium"
  fi
fi
[ -z "$need" ] && exit 0
echo "logdx: installing:$need" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
