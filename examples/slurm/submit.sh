#!/bin/sh
# Submits a logdx scan of ARCHIVE as N array tasks, then the merge after all of them.
#   sh submit.sh ARCHIVE OUTDIR N [logdx merge options, e.g. --format json -o sarif=OUTDIR/scan.sarif]
# Prints the two job ids. LOGDX names the logdx binary (default: logdx on PATH).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
archive=$1
outdir=$2
n=$3
shift 3
mkdir -p "$outdir"
export LOGDX_EXAMPLES="$(dirname "$here")"
scan=$(sbatch --parsable --array="0-$((n - 1))" --chdir="$outdir" "$here/scan-archive.sbatch" "$archive" "$outdir")
merge=$(sbatch --parsable --dependency="afterok:$scan" --chdir="$outdir" "$here/merge.sbatch" "$outdir" "$@")
echo "$scan $merge"
