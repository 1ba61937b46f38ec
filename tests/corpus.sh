#!/bin/sh
# Scores logdx on the labelled real-log corpus in ../shared (beside the repository):
# at least 90% top-1 class accuracy and no medium-or-worse diagnosis on a healthy log.
# Skipped (77) where the corpus is not present.
set -eu
logdx=$1
root=$(cd "$(dirname "$0")/.." && pwd)
index="$root/../shared/corpus/dev/INDEX.tsv"
score="$root/../shared/tools/corpus-score"
if [ ! -f "$index" ] || [ ! -x "$score" ]; then
  echo "corpus not found at $index: skipped"
  exit 77
fi
exec "$score" "$logdx" "$index" --min-top1 0.9 --max-fp 0 --show
