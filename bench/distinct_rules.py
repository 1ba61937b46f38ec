#!/usr/bin/env python3
"""distinct_rules.py SRC DST K: a copy of the rule folder SRC in DST whose rules are
distinct from the built-in ones but match the same lines.

Every rule gets a new id (and file name) ending in -distinctK, and every single-quoted
signal pattern P becomes (?:P)|<a literal no log holds, different for each pattern>: the
same matches as P, so the copy hits the same lines and records the same evidence, but
no two patterns of the built-in and copied sets are equal, so the scanner shares neither
their PCRE2 runs nor their recorded hits (twins). This is what a user adding rules of
their own beside the built-in ones costs, where bench/run.sh's plain copies measure
rules that repeat the built-in ones.
"""
import os
import re
import sys

PATTERN = re.compile(r"^(\s+pattern: )'(.*)'\s*$")
ID = re.compile(r"^id:\s*(\S.*?)\s*$")


def letters(i):
    """i written in the letters a-z (0 -> 'a', 26 -> 'ba')."""
    out = ""
    while True:
        out = chr(ord("a") + i % 26) + out
        i //= 26
        if not i:
            return out


def main():
    if len(sys.argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    src, dst, k = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(dst, exist_ok=True)
    n = 0
    for top, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith(".yaml") or os.path.basename(top) == "tables":
                continue
            out = []
            with open(os.path.join(top, name), encoding="utf-8") as f:
                for line in f:
                    m = ID.match(line)
                    if m:
                        line = "id: %s-distinct%s\n" % (m.group(1), k)
                    m = PATTERN.match(line)
                    if m:
                        n += 1
                        # letters only: a digit in the literal would make every copied
                        # pattern one that reads digits, which the built-in ones mostly
                        # are not (the line memo runs such patterns on every line)
                        never = "zq-logdx-bench-never-%s-%s-zq" % (letters(int(k)), letters(n))
                        line = "%s'(?:%s)|%s'\n" % (m.group(1), m.group(2), never)
                    out.append(line)
            base = name[: -len(".yaml")]
            with open(os.path.join(dst, "%s-distinct%s.yaml" % (base, k)), "w", encoding="utf-8") as f:
                f.writelines(out)
    sys.stderr.write("distinct_rules: %d patterns made distinct in %s\n" % (n, dst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
