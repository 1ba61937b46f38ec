#!/bin/sh
# Scores logdx on the labelled real-log corpus in ../shared (beside the repository):
# at least 90% top-1 class accuracy and no medium-or-worse diagnosis on a healthy log;
# then the same failed logs hard-wrapped as a terminal's scroll-back gives them
# (corpus_wrapped.py): at 80 and 120 columns few may change their first class.
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
"$score" "$logdx" "$index" --min-top1 0.9 --max-fp 0 --show
python3 "$root/tests/corpus_wrapped.py" "$logdx" "$index" 80 12
python3 "$root/tests/corpus_wrapped.py" "$logdx" "$index" 120 8
