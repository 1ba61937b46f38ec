#!/bin/sh
# Makes the archives and compressed logs of the batch-* golden cases from the logs of
# other cases. Run once; the results are committed (archives are binary, so the script
# is here to show how they were made and to remake them if the source logs change).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LC_ALL=C
tarit() { tar --sort=name --mtime=2026-11-29 --owner=0 --group=0 --numeric-owner "$@"; }

# A .tar.gz holding two logs (and a folder entry, which is skipped).
mkdir -p "$tmp/run42/logs"
cp "$here/torchrun-oom-cascade/input.log" "$tmp/run42/logs/rank3.log"
cp "$here/healthy-ddp/input.log" "$tmp/run42/logs/rank0.log"
(cd "$tmp/run42" && tarit -cf - logs) | gzip -n -9 >"$here/batch-tar-gz/run42.tar.gz"

# A .zip of two logs.
mkdir -p "$tmp/zip/job"
cp "$here/folds-leak/input.log" "$tmp/zip/job/folds.log"
cp "$here/graph-capture/input.log" "$tmp/zip/job/graphs.log"
touch -d 2026-11-29 "$tmp/zip/job" "$tmp/zip/job/folds.log" "$tmp/zip/job/graphs.log"
rm -f "$here/batch-zip/job.zip"
(cd "$tmp/zip" && zip -q -X -r "$here/batch-zip/job.zip" job)

# Single compressed logs: xz, bzip2, zstd; names that do not say what they are.
xz -9 -c "$here/baseline/input.log" >"$here/batch-compressed/oom.log.xz"
bzip2 -9 -c "$here/version-advice/input.log" >"$here/batch-compressed/zero.log.bz2"
zstd -q -19 -c "$here/graph-capture/input.log" >"$here/batch-compressed/graphs.zst"
cp "$here/batch-compressed/oom.log.xz" "$here/batch-compressed/no-suffix"

# A gzip cut short after the first diagnosis' evidence: error and diagnosis, rc 2.
gzip -n -9 -c "$here/torchrun-oom-cascade/input.log" >"$tmp/full.gz"
size=$(wc -c <"$tmp/full.gz")
head -c $((size * 3 / 4)) "$tmp/full.gz" >"$here/batch-truncated-gz/train.log.gz"
