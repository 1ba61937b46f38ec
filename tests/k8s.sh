#!/bin/sh
# The Kubernetes example (issue 20): examples/k8s/scan-archive.yaml parses; its scan is an
# Indexed Job whose pods run the very scan-shard.sh the Slurm array runs (the ConfigMap's
# copy is the same file) as shard $(JOB_COMPLETION_INDEX) of $(SHARDS), with SHARDS equal to
# its completions; its merge Job runs logdx merge over the shards' files. Run here as the pods
# would (each index, then the merge command), the result is the single scan's JSON.
set -u
logdx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1
python3 -c 'import yaml' 2>/dev/null || { echo "k8s: python3-yaml is needed (sh tests/deps.sh)"; exit 1; }
python3 - "$root" "$tmp" <<'PY' || exit 1
import sys, yaml, json
root, tmp = sys.argv[1], sys.argv[2]
docs = list(yaml.safe_load_all(open(root + "/examples/k8s/scan-archive.yaml")))
kinds = [d["kind"] for d in docs]
assert kinds == ["ConfigMap", "Job", "Job"], kinds
cm, scan, merge = docs
assert cm["data"]["scan-shard.sh"] == open(root + "/examples/scan-shard.sh").read(), "the ConfigMap's script is not examples/scan-shard.sh"
s = scan["spec"]
assert s["completionMode"] == "Indexed"
c = s["template"]["spec"]["containers"][0]
env = {e["name"]: e["value"] for e in c["env"]}
assert int(env["SHARDS"]) == s["completions"] == s["parallelism"], (env, s["completions"])
cmd = c["command"]
assert cmd[:2] == ["sh", "/opt/logdx/scan-shard.sh"] and cmd[2:4] == ["$(JOB_COMPLETION_INDEX)", "$(SHARDS)"], cmd
mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
assert mounts["script"] == "/opt/logdx" and cmd[4] == mounts["archive"] and cmd[5] == mounts["results"], (cmd, mounts)
mc = merge["spec"]["template"]["spec"]["containers"][0]["command"]
assert mc[:2] == ["sh", "-c"] and mc[2].startswith("logdx merge ") and "/results/shard-*.jsonl" in mc[2], mc
json.dump({"shards": int(env["SHARDS"]), "merge": mc[2]}, open(tmp + "/job.json", "w"))
PY
grep -q 'scan-shard.sh' "$root/examples/slurm/scan-archive.sbatch" || { echo "k8s: FAILED: the Slurm array does not run scan-shard.sh"; exit 1; }
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["shards"])' "$tmp/job.json")
merge=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["merge"])' "$tmp/job.json")
mkdir -p "$tmp/results"
archive="$root/tests/golden"
"$logdx" --format json --progress never "$archive" >"$tmp/single.json" 2>/dev/null
i=0
while [ $i -lt "$n" ]; do
  LOGDX="$logdx" sh "$root/examples/scan-shard.sh" $i "$n" "$archive" "$tmp/results" 2>/dev/null ||
    { echo "k8s: FAILED: shard $i/$n"; exit 1; }
  i=$((i + 1))
done
# the merge Job's command, with this logdx and this folder for the volume
cmd=$(printf '%s' "$merge" | sed "s#/results#$tmp/results#g; s#^logdx #\"$logdx\" #")
sh -c "$cmd" 2>/dev/null
if cmp -s "$tmp/single.json" "$tmp/results/report.json"; then
  echo "k8s: all passed ($n shards)"
else
  echo "k8s: FAILED: the merge Job's report is not the single scan's"
  exit 1
fi
