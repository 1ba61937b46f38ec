#!/bin/sh
# One shard of a logdx scan: scan-shard.sh K N ARCHIVE OUTDIR
# Scans the inputs of ARCHIVE whose path hashes to K of N (logdx --shard K/N) into
# OUTDIR/shard-K.jsonl. Exits 0 when the shard's file is whole (its last line written),
# even if some input could not be read (the merge reports it); 1 when the shard must be
# rerun. The Slurm array (slurm/scan-archive.sbatch) and the Kubernetes Indexed Job
# (k8s/scan-archive.yaml, which carries a copy of this script) both run it.
set -u
k=$1
n=$2
archive=$3
outdir=$4
logdx=${LOGDX:-logdx}
out="$outdir/shard-$k.jsonl"
# --fail-on never: a shard that found failures in the logs did its job; logdx merge decides
# the exit status of the whole scan
"$logdx" --shard "$k/$n" --format jsonl --fail-on never --progress never "$archive" >"$out.part"
rc=$?
if [ $rc -le 2 ] && tail -n 1 "$out.part" | grep -q '"summary"'; then
  mv "$out.part" "$out"
  exit 0
fi
echo "logdx: shard $k/$n failed (exit $rc); rerun it alone" >&2
exit 1
