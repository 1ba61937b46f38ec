#!/bin/sh
# Lint messages: for each tests/lint/<case>.yaml, the messages of
#     logdx --no-default-rules rules lint [ARGS] <case>.yaml
# must equal <case>.expected (stderr, then the exit status on the last line). ARGS come
# from a line "# lint-args: ..." in the case file (e.g. --perf).
#   run.sh LOGDX [--update]
set -u
logdx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
update=${2:-}
cd "$(dirname "$0")" || exit 2
pass=0
fail=0
for f in *.yaml; do
  case=${f%.yaml}
  args=$(sed -n 's/^# lint-args: //p' "$f" | head -n 1)
  # shellcheck disable=SC2086
  out=$("$logdx" --no-default-rules rules lint $args "$f" 2>&1; echo "exit $?")
  if [ "$update" = "--update" ]; then
    printf '%s\n' "$out" >"$case.expected"
  elif [ "$out" != "$(cat "$case.expected")" ]; then
    echo "lint $case: messages differ:"
    printf '%s\n' "$out" | diff -u "$case.expected" - | head -40
    fail=$((fail + 1))
    continue
  fi
  pass=$((pass + 1))
done
echo "lint: $pass passed, $fail failed"
[ $fail = 0 ]
