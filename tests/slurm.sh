#!/bin/sh
# A real Slurm job array (issue 20): starts a one-node cluster on this machine (munged,
# slurmctld and slurmd from Debian's slurm-wlm and munge, with a slurm.conf for this host
# written here), submits examples/slurm/submit.sh over a folder of a few hundred logs and
# archives (N array tasks, then the merge with --dependency=afterok), waits, and checks the
# merged JSON is byte for byte the single-process scan of the same folder. Stops the
# daemons at the end.
#   slurm.sh LOGDX       skips (77) where the daemons cannot start; under CI=true, fails
set -u
logdx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
skip() {
  echo "slurm: skipped: $*"
  if [ "${CI:-}" = true ]; then echo "slurm: FAILED: CI must run this test"; exit 1; fi
  exit 77
}
for c in munged slurmctld slurmd sbatch squeue scontrol; do
  command -v "$c" >/dev/null 2>&1 || skip "$c is not installed (sh tests/deps.sh installs slurm-wlm and munge)"
done
tmp=$(mktemp -d)
pids=""
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null; done
  sleep 1
  for p in $pids; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
export NO_COLOR=1
fail=0
check() { if eval "$2"; then :; else echo "slurm: FAILED: $1"; fail=1; fi; }

# -- munge, with a key of its own and its socket here
mkdir -p "$tmp/munge" && chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$tmp/munge/munge.key"
munged --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" \
  --seed-file="$tmp/munge/munged.seed" 2>"$tmp/munged.err" || skip "munged does not start: $(head -c 300 "$tmp/munged.err")"
sleep 1
[ -f "$tmp/munge/munged.pid" ] && pids="$pids $(cat "$tmp/munge/munged.pid")"

# -- slurm.conf for this host, on free ports
host=$(hostname -s)
user=$(id -un)
port=$((20000 + $$ % 20000))
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/out"
cat >"$tmp/slurm.conf" <<EOF
ClusterName=logdx-test
SlurmctldHost=$host
SlurmUser=$user
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/munge.socket
CryptoType=crypto/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MaxArraySize=1001
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -f "$SLURM_CONF" -i 2>"$tmp/ctld.err" || skip "slurmctld does not start: $(head -c 300 "$tmp/ctld.err")"
sleep 1
[ -f "$tmp/slurmctld.pid" ] && pids="$pids $(cat "$tmp/slurmctld.pid")"
slurmd -f "$SLURM_CONF" 2>"$tmp/slurmd.err" || skip "slurmd does not start (it needs root): $(head -c 300 "$tmp/slurmd.err")"
sleep 1
[ -f "$tmp/slurmd.pid" ] && pids="$pids $(cat "$tmp/slurmd.pid")"
up=0
for _ in $(seq 1 30); do
  if sinfo -h -o %T 2>/dev/null | grep -q idle; then up=1; break; fi
  sleep 1
done
[ $up = 1 ] || skip "the node did not come up: $(tail -c 400 "$tmp/slurmd.log" 2>/dev/null)"

# -- a few hundred logs and archives: the golden cases' inputs (logs, tar.gz, zip, damaged
# gzip), and the real-log corpus beside the repository where it is there
data="$tmp/archive"
mkdir -p "$data"
for i in 1 2 3 4 5 6; do
  mkdir -p "$data/copy$i"
  for d in "$root"/tests/golden/*/; do
    c=$(basename "$d")
    mkdir -p "$data/copy$i/$c"
    for f in "$d"*; do
      case $(basename "$f") in args | env | out.* | rc) ;; *) [ -f "$f" ] && cp "$f" "$data/copy$i/$c/" ;; esac
    done
  done
done
[ -d "$root/../shared/corpus/dev" ] && cp -r "$root/../shared/corpus/dev" "$data/corpus"
ninputs=$(find "$data" -type f | wc -l)
check "the folder holds a few hundred inputs ($ninputs)" '[ "$ninputs" -ge 200 ]'

# -- the single-process scan, and the job array
"$logdx" --format json --progress never "$data" >"$tmp/single.json" 2>/dev/null
single_rc=$?
n=7
jobs=$(LOGDX="$logdx" sh "$root/examples/slurm/submit.sh" "$data" "$tmp/out" $n \
  --format json -o json="$tmp/out/merged.json" 2>"$tmp/submit.err") ||
  skip "sbatch refused the jobs: $(head -c 300 "$tmp/submit.err")"
merge_job=${jobs#* }
done_=0
for _ in $(seq 1 180); do
  state=$(scontrol show job "$merge_job" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  case $state in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) done_=1; break ;; esac
  sleep 1
done
check "the array and the merge ran (merge job $merge_job: $state)" '[ $done_ = 1 ]'
check "every array task wrote its shard" '[ "$(ls "$tmp/out"/shard-*.jsonl 2>/dev/null | wc -l)" = $n ]'
check "the merged JSON is the single scan's, byte for byte" 'cmp -s "$tmp/single.json" "$tmp/out/merged.json"'
# the merge job exits as the single scan would (2 here: the folder holds damaged inputs)
mrc=$(scontrol show job "$merge_job" 2>/dev/null | sed -n 's/.*ExitCode=\([0-9]*\):.*/\1/p')
check "the merge job exits as the single scan ($single_rc, got $mrc)" '[ "$mrc" = "$single_rc" ]'
if [ $fail != 0 ]; then
  echo "--- slurmctld.log"; tail -20 "$tmp/slurmctld.log" 2>/dev/null
  echo "--- outputs"; ls -la "$tmp/out"; cat "$tmp/out"/logdx-*.out 2>/dev/null | tail -20
fi
[ $fail = 0 ] && echo "slurm: all passed ($ninputs inputs, $n shards)"
exit $fail
