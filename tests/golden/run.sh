#!/bin/sh
# Golden CLI tests. Each folder tests/golden/<case>/ holds a log (input.log, or what
# `args` names) and the expected results of
#     logdx ARGS < input.log            -> out.txt, out.err, rc
#     logdx --format json ARGS < ...    -> out.json
# run inside the folder, where ARGS is the content of `args` (default: input.log), with
# the variables that `env` sets (NAME=VALUE words; none by default, COLUMNS unset).
#
#   run.sh LOGDX            compare; exit 1 on any difference (shown as a diff)
#   run.sh LOGDX --update   rewrite the expected files; review them with git diff
set -u
logdx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
update=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/expect.sh disable=SC1091
. "$here/../expect.sh"
export NO_COLOR=1
unset COLUMNS
pass=0
fail=0
for dir in "$here"/*/; do
  case=$(basename "$dir")
  cd "$dir" || exit 2
  args="input.log"
  [ -f args ] && args=$(cat args)
  envs=
  [ -f env ] && envs=$(cat env)
  in=/dev/null
  [ -f input.log ] && in=input.log
  # shellcheck disable=SC2086
  env $envs "$logdx" $args <"$in" >"$tmp/out.txt" 2>"$tmp/out.err"
  echo $? >"$tmp/rc"
  # shellcheck disable=SC2086
  env $envs "$logdx" --format json $args <"$in" >"$tmp/out.json" 2>/dev/null
  # the rule set's digest changes with every rule edited: kept out of the comparison
  for f in out.txt out.json; do
    sed 's/"ruleset":"[0-9a-f]\{16\}"/"ruleset":"(digest)"/' "$tmp/$f" >"$tmp/$f.n" && mv "$tmp/$f.n" "$tmp/$f"
  done
  ok=1
  expect_files "golden $case" "$update" "$tmp" out.txt out.err out.json rc || ok=0
  if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "golden: $pass passed, $fail failed"
[ $fail = 0 ]
