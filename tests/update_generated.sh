#!/bin/sh
# Rewrites what is made from the option and command tables and kept in the repository:
# completions/ (logdx help-completion) and the README's copy of --help. tests/live/run.sh
# fails when they differ from what LOGDX writes.
#   sh tests/update_generated.sh build/logdx
set -eu
logdx=$1
root=$(cd "$(dirname "$0")/.." && pwd)
"$logdx" help-completion bash >"$root/completions/logdx.bash"
"$logdx" help-completion zsh >"$root/completions/_logdx"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$logdx" --help >"$tmp"
# the block from "usage: logdx" to its closing fence is --help
awk -v help="$tmp" '
  !inblock && /^usage: logdx/ { while ((getline l < help) > 0) print l; inblock = 1; next }
  inblock && /^```/ { inblock = 0 }
  !inblock { print }
' "$root/README.md" >"$root/README.md.new"
mv "$root/README.md.new" "$root/README.md"
