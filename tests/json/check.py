#!/usr/bin/env python3
"""Checks logdx's json and jsonl output against the schemas in docs/schema/ (the
contract docs/json.md describes), and that the counts in it agree.

    check.py SCHEMA_DIR [--json FILE]... [--jsonl FILE]...

Prints every problem; exits 1 if there is one.
"""
import json
import sys

import jsonschema

try:  # jsonschema 4.18 and later resolve $ref through a registry
    from referencing import Registry, Resource
except ImportError:  # Debian 12's 4.10: a resolver with a store
    Registry = None

problems = []


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main(argv):
    sdir = argv[1]
    report = load(f"{sdir}/report.schema.json")
    lines = load(f"{sdir}/lines.schema.json")
    cls = jsonschema.Draft202012Validator
    cls.check_schema(report)
    cls.check_schema(lines)
    if Registry:
        reg = Registry().with_resources(
            [(s["$id"], Resource.from_contents(s)) for s in (report, lines)])
        vrep = cls(report, registry=reg)
        vline = cls(lines, registry=reg)
    else:
        store = {s["$id"]: s for s in (report, lines)}
        vrep = cls(report, resolver=jsonschema.RefResolver.from_schema(report, store=store))
        vline = cls(lines, resolver=jsonschema.RefResolver.from_schema(lines, store=store))

    def validate(v, doc, where):
        for e in sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            problems.append(f"{where}: at /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")

    def counts(files, summary, where):
        diagnosed = sum(1 for f in files if f["diagnoses"])
        if summary["files"] != len(files) or summary["diagnosed"] != diagnosed:
            problems.append(f"{where}: summary says {summary['files']} files, {summary['diagnosed']} "
                            f"diagnosed; the report has {len(files)} and {diagnosed}")
        by = {}
        for f in files:
            if f["diagnoses"]:
                k = f["diagnoses"][0]["class"]
                by[k] = by.get(k, 0) + 1
        if by != summary["by_class"]:
            problems.append(f"{where}: summary.by_class {summary['by_class']} is not {by}")

    args = argv[2:]
    n = 0
    for kind, path in zip(args[::2], args[1::2]):
        n += 1
        try:
            if kind == "--json":
                doc = load(path)
                validate(vrep, doc, path)
                if isinstance(doc, dict) and "files" in doc and "summary" in doc:
                    counts(doc["files"], doc["summary"], path)
            else:
                with open(path, encoding="utf-8") as f:
                    recs = [json.loads(l) for l in f if l.strip()]
                for i, r in enumerate(recs):
                    validate(vline, r, f"{path}:{i + 1}")
                if not recs or "path" in recs[-1]:
                    problems.append(f"{path}: the last line is not the summary line")
                else:
                    counts(recs[:-1], recs[-1]["summary"], path)
        except (ValueError, UnicodeDecodeError, KeyError, TypeError) as e:
            problems.append(f"{path}: {e}")
    for p in problems:
        print(p)
    print(f"json: {n} outputs checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
