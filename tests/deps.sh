#!/bin/sh
# Installs what logdx needs to build and test, from Debian's packages, when missing.
# Used by the README's Quick start and by CI; safe to run again.
set -eu
need=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
command -v cc >/dev/null 2>&1 || need="$need build-essential"
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
command -v python3 >/dev/null 2>&1 || need="$need python3"
python3 -c "import jsonschema" >/dev/null 2>&1 || need="$need python3-jsonschema"
have_pc libpcre2-8 || need="$need libpcre2-dev"
have_pc libcjson || need="$need libcjson-dev"
have_pc yaml-0.1 || need="$need libyaml-dev"
have_pc cmocka || need="$need libcmocka-dev"
have_pc zlib || need="$need zlib1g-dev"
[ -z "$need" ] && exit 0
echo "logdx: installing:$need" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
