#!/bin/sh
# The example CI workflow (examples/ci/logdx.yml) must build logdx as shipped: it installs
# through tests/deps.sh's build list (the one list of packages, the Quick start's too),
# names no package of its own, and builds with the flags the project has.
#   ci_workflow.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
python3 - "$root/examples/ci/logdx.yml" "$root/tests/deps.sh" "$root/CMakeLists.txt" <<'PY'
import re, sys, yaml
wf, deps, cmake = (open(p).read() for p in sys.argv[1:4])
doc = yaml.safe_load(wf)
runs = [s.get("run", "") for job in doc["jobs"].values() for s in job["steps"]]
script = "\n".join(runs)
bad = []
if not re.search(r"(^|\s)sh \S*tests/deps\.sh build(\s|$)", script, re.M):
    bad.append("the workflow does not install through tests/deps.sh build")
if re.search(r"apt(-get)? install", script):
    bad.append("the workflow installs packages of its own")
# every -dev package the build needs is in deps.sh's build part
build_part = deps.split("# -- tests --")[0]
pkgs = set(re.findall(r'need="\$need ([\w.+-]+)"', build_part))
# (a QUIET check is optional: the tests' cmocka, built only where it is installed)
for quiet, lib in re.findall(r"pkg_check_modules\(\w+ (QUIET )?(?:REQUIRED )?(?:IMPORTED_TARGET )?([\w.+-]+)", cmake):
    if not quiet and not re.search(r"have_pc %s\b" % re.escape(lib), build_part):
        bad.append("CMakeLists.txt needs %s, which tests/deps.sh build does not install" % lib)
for flag in re.findall(r"-D(LOGDX_\w+)=", script):
    if not re.search(r"(option\(%s\b|set\(%s \S+ CACHE)" % (flag, flag), cmake):
        bad.append("the workflow sets -D%s, which CMakeLists.txt does not define" % flag)
for b in bad:
    print("ci_workflow: " + b)
print("ci_workflow: %d problem(s), %d build packages listed" % (len(bad), len(pkgs)))
sys.exit(1 if bad else 0)
PY
