#!/bin/sh
# formats.sh LOGDX: the numeric readers across loop formats. tests/formats/gen.py writes a
# constructed log per (scenario, format); each must get the class tests/formats/expect.tsv
# names as its first medium-or-higher diagnosis ("-": none). A "-" under a failure scenario
# is a known gap: a format whose loss is not on its step line, or has no name. Closing one
# makes this test fail until expect.tsv says so (like a golden file).
set -eu
LOGDX=${1:?usage: formats.sh LOGDX}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/formats/gen.py" "$tmp"
python3 - "$LOGDX" "$tmp" "$here/formats/expect.tsv" <<'PY'
import json, os, subprocess, sys
logdx, logs, expect_path = sys.argv[1:4]
expect = {}
for line in open(expect_path):
    if line.startswith("#") or not line.strip():
        continue
    name, klass = line.rstrip("\n").split("\t")
    expect[name] = klass
bad = 0
names = sorted(f[:-4] for f in os.listdir(logs) if f.endswith(".log"))
for name in names:
    out = subprocess.run([logdx, "--format", "json", os.path.join(logs, name + ".log")],
                         capture_output=True, text=True).stdout
    ds = [d for f in json.loads(out)["files"] for d in f["diagnoses"]
          if d["severity"] in ("medium", "high", "critical")]
    got = ds[0]["class"] if ds else "-"
    want = expect.get(name)
    if want is None:
        print(f"formats: {name}: no expectation (got {got}); add it to expect.tsv")
        bad += 1
    elif got != want:
        print(f"formats: {name}: expected {want}, got {got}")
        bad += 1
for name in sorted(set(expect) - set(names)):
    print(f"formats: {name}: in expect.tsv but not generated")
    bad += 1
print(f"formats: {len(names) - bad} of {len(names)} as expected")
sys.exit(1 if bad else 0)
PY
