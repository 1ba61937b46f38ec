#!/usr/bin/env python3
"""Checks logdx's CI outputs (used by run.sh).

    check.py SCHEMA [--sarif FILE] [--junit FILE] [--github FILE]

SARIF: valid against the official SARIF 2.1.0 JSON schema (SCHEMA), plus what GitHub
code scanning relies on: rule ids and indexes that agree, a level, a location with a
URI and a start line, and partialFingerprints. JUnit: well-formed XML whose counts
agree with its elements. github: workflow commands that GitHub's runner parses, with
at most 10 annotations of each level. Prints every problem; exits 1 if there is one.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

import jsonschema

problems = []


def bad(path, msg):
    problems.append(f"{path}: {msg}")


# RFC 3986 URI-reference characters (no spaces, no raw non-ASCII).
URI_RE = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+$")


def no_dup_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError(f"duplicate keys in {keys}")
    return dict(pairs)


def check_sarif(path, schema):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f, object_pairs_hook=no_dup_keys)
    except (ValueError, UnicodeDecodeError) as e:
        bad(path, f"not JSON in UTF-8: {e}")
        return
    v = jsonschema.Draft4Validator(schema)
    for err in sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path)):
        bad(path, f"schema: at {'/'.join(map(str, err.absolute_path))}: {err.message}")
    if doc.get("version") != "2.1.0" or len(doc.get("runs", [])) != 1:
        bad(path, "want version 2.1.0 and one run")
        return
    run = doc["runs"][0]
    drv = run["tool"]["driver"]
    if drv.get("name") != "logdx" or not drv.get("version"):
        bad(path, "tool.driver needs name logdx and a version")
    rules = drv.get("rules", [])
    ids = [r["id"] for r in rules]
    if len(ids) != len(set(ids)):
        bad(path, "duplicate rule ids in tool.driver.rules")
    for r in rules:
        for k in ("name", "shortDescription", "fullDescription", "help", "defaultConfiguration"):
            if k not in r:
                bad(path, f"rule {r['id']}: no {k}")
        if not r.get("help", {}).get("text") or not r.get("help", {}).get("markdown"):
            bad(path, f"rule {r['id']}: help needs text and markdown")
        if r.get("defaultConfiguration", {}).get("level") not in ("error", "warning", "note"):
            bad(path, f"rule {r['id']}: bad default level")
    used = set()
    for i, res in enumerate(run.get("results", [])):
        where = f"results[{i}]"
        rid, idx = res.get("ruleId"), res.get("ruleIndex")
        if not isinstance(idx, int) or idx >= len(rules) or rules[idx]["id"] != rid:
            bad(path, f"{where}: ruleIndex {idx} does not point at rule {rid}")
        used.add(rid)
        if res.get("level") not in ("error", "warning", "note"):
            bad(path, f"{where}: bad level")
        if not res.get("message", {}).get("text"):
            bad(path, f"{where}: no message text")
        locs = res.get("locations", [])
        if len(locs) != 1:
            bad(path, f"{where}: want exactly one location")
        for loc in locs + res.get("relatedLocations", []):
            pl = loc.get("physicalLocation", {})
            uri = pl.get("artifactLocation", {}).get("uri", "")
            if not URI_RE.match(uri) or uri.startswith("./"):
                bad(path, f"{where}: bad artifact uri {uri!r}")
            if pl.get("region", {}).get("startLine", 0) < 1:
                bad(path, f"{where}: no startLine")
        fp = res.get("partialFingerprints", {}).get("logdxEvidence/v2", "")
        if not re.fullmatch(r"[0-9a-f]{16}", fp):
            bad(path, f"{where}: bad partialFingerprints {fp!r}")
    if used != set(ids):
        bad(path, f"rules without results: {sorted(set(ids) - used)}")
    inv = run.get("invocations", [])
    if len(inv) != 1 or "executionSuccessful" not in inv[0]:
        bad(path, "want one invocation with executionSuccessful")


def check_junit(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        bad(path, f"not well-formed XML: {e}")
        return
    if root.tag != "testsuites":
        bad(path, "root is not <testsuites>")
        return
    suites = root.findall("testsuite")
    if len(suites) != 1:
        bad(path, "want one <testsuite>")
        return
    cases = suites[0].findall("testcase")
    want = {
        "tests": len(cases),
        "failures": sum(1 for c in cases if c.find("failure") is not None),
        "errors": sum(1 for c in cases if c.find("error") is not None),
    }
    for el in (root, suites[0]):
        for k, n in want.items():
            if el.get(k) != str(n):
                bad(path, f"<{el.tag}> {k}={el.get(k)}, but {n} counted")
    for c in cases:
        if not c.get("name") or c.get("classname") != "logdx":
            bad(path, "a testcase without name or classname logdx")
        for f in c.findall("failure"):
            if not f.get("type") or not f.get("message") or not (f.text or "").strip():
                bad(path, f"testcase {c.get('name')}: failure without type, message or body")


CMD_RE = re.compile(r"^::(error|warning|notice)(?: ([^:]*))?::(.*)$")
PROP_RE = re.compile(r"^(file|line|endLine|col|endColumn|title)=([^,:\r\n]*)$")


def check_github(path):
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except UnicodeDecodeError as e:
        bad(path, f"not UTF-8: {e}")
        return
    if text and not text.endswith("\n"):
        bad(path, "no line end at the end")
    lines = text.split("\n")[:-1] if text else []
    count = {"error": 0, "warning": 0, "notice": 0}
    for n, line in enumerate(lines, 1):
        m = CMD_RE.match(line)
        if not m or "\r" in line:
            bad(path, f"line {n}: not a workflow command: {line[:80]!r}")
            continue
        count[m.group(1)] += 1
        props = m.group(2).split(",") if m.group(2) else []
        kv = {}
        for p in props:
            m2 = PROP_RE.match(p)
            if not m2:
                bad(path, f"line {n}: bad property {p[:60]!r}")
            else:
                kv[m2.group(1)] = m2.group(2)
        if "line" in kv and "file" not in kv:
            bad(path, f"line {n}: line= without file=")
        if "line" in kv and (not kv["line"].isdigit() or int(kv["line"]) < 1):
            bad(path, f"line {n}: bad line={kv['line']}")
        # %XX is the only escape the runner knows; a lone % must have been escaped
        if re.search(r"%(?![0-9A-F]{2})", line):
            bad(path, f"line {n}: unescaped %")
    for level, c in count.items():
        if c > 10:
            bad(path, f"{c} {level} annotations: GitHub shows only 10 per step")


def main(argv):
    schema_path, rest = argv[1], argv[2:]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    for flag, path in zip(rest[::2], rest[1::2]):
        {"--sarif": lambda p: check_sarif(p, schema), "--junit": check_junit,
         "--github": check_github}[flag](path)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
