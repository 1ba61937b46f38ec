#!/usr/bin/env python3
"""Pattern lists for the benchmark: the rules' PCRE2 patterns, and the same patterns
rewritten for ripgrep's default engine and for grep -E.

  patterns.py yaml RULES_DIR...   every signal pattern of the rule files, one a line,
                                  `flags: [caseless]` written as a (?i) prefix
                                  (the fallback while `logdx rules patterns` is missing)
  patterns.py rust  < PCRE2       for `rg --no-unicode -f` (Rust regex syntax)
  patterns.py ere   < PCRE2       for `grep -E -f` (POSIX ERE with GNU \\b \\s \\w)

Neither rg's default engine nor ERE has lookaround, and ERE has no inline (?i), no
non-capturing or named groups and no lazy quantifiers. The rewrite keeps every pattern
and its literals (which is what the engines' speed depends on): lookarounds are dropped,
named back references become .*, (?i) becomes [aA] letter classes for ERE, lazy
quantifiers become greedy, atomic groups plain ones. A note on stderr says how many patterns were changed that way; the match
counts of rg and grep are therefore close to, not the same as, logdx's.
"""
import os
import re
import sys

LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")


def rule_patterns(paths):
    """(pattern, caseless) for every signal of every rule file under paths."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs.sort()
                files += [os.path.join(root, n) for n in sorted(names) if n.endswith((".yaml", ".yml"))]
        else:
            files.append(p)
    try:
        import yaml
    except ImportError:
        yaml = None
    out = []
    for f in files:
        text = open(f, encoding="utf-8").read()
        if yaml is None:
            out += scan_yaml_lines(text)
            continue
        doc = yaml.safe_load(text)
        if not isinstance(doc, dict) or not isinstance(doc.get("signals"), dict):
            continue
        for sig in doc["signals"].values():
            if isinstance(sig, dict) and isinstance(sig.get("pattern"), str):
                out.append((sig["pattern"], "caseless" in (sig.get("flags") or [])))
    return out


def scan_yaml_lines(text):
    """Without PyYAML: the rules write every pattern as `pattern: '...'` on one line and
    flags as `flags: [caseless]` in the same signal block."""
    out = []
    for block in re.split(r"\n  (?=[A-Za-z_][\w.-]*:\s*\n)", text):
        m = re.search(r"^\s+pattern:\s*'((?:[^']|'')*)'\s*$", block, re.M)
        if m:
            out.append((m.group(1).replace("''", "'"), bool(re.search(r"^\s+flags:.*caseless", block, re.M))))
    return out


class Converter:
    """A small PCRE2 tokenizer that rewrites one pattern for another dialect."""

    def __init__(self, dialect):
        self.ere = dialect == "ere"
        self.changed = 0

    def convert(self, p):
        self.caseless = False
        self.touched = False
        if p.startswith("(?i)"):
            self.caseless = True
            p = p[4:]
            if not self.ere:
                return "(?i)" + self.convert_body(p)
        r = self.convert_body(p)
        if self.touched or (self.ere and self.caseless):
            self.changed += 1
        return r

    def convert_body(self, p):
        out, i, n = [], 0, len(p)
        while i < n:
            c = p[i]
            if c == "\\" and i + 2 < n and p[i + 1] in "kg" and p[i + 2] in "<{'":
                # a named back reference: neither engine has it; what it stands for
                # is text of the line, any of it (a superset, for counting)
                close = {"<": ">", "{": "}", "'": "'"}[p[i + 2]]
                out.append(".*")
                self.touched = True
                i = p.index(close, i + 3) + 1
            elif c == "\\" and i + 1 < n:
                out.append(self.escape(p[i + 1]))
                i += 2
            elif c == "[":
                s, i = self.char_class(p, i)
                out.append(s)
            elif c == "(" and p.startswith("(?", i):
                if p.startswith(LOOKAROUND, i):
                    i = self.skip_group(p, i)
                    self.touched = True
                elif p.startswith("(?:", i):
                    out.append("(" if self.ere else "(?:")
                    i += 3
                elif p.startswith("(?>", i):  # atomic: neither engine has it; a plain group
                    out.append("(" if self.ere else "(?:")
                    self.touched = True
                    i += 3
                elif p.startswith("(?<", i) or p.startswith("(?P<", i):
                    j = p.index(">", i)
                    # rg joins all patterns with |, where a name used twice is an error;
                    # counting needs no captures anyway
                    out.append("(" if self.ere else "(?:")
                    i = j + 1
                elif p.startswith("(?i)", i):  # a mid-pattern flag: ERE cannot say it
                    out.append("" if self.ere else "(?i)")
                    self.touched |= self.ere
                    i += 4
                else:
                    out.append(c)
                    i += 1
            elif c == "{" and re.match(r"\{\d*,\d+\}", p[i:]) and \
                    int(re.match(r"\{\d*,(\d+)\}", p[i:]).group(1)) > 255:
                # a wide bounded gap (.{0,2000}): automata engines build a state per
                # count, so it goes in as the unbounded one (a superset, for counting)
                m = re.match(r"\{(\d*),\d+\}", p[i:])
                out.append("*" if m.group(1) in ("", "0") else "+")
                self.touched = True
                i += len(m.group(0))
                if i < n and p[i] in "?+":
                    i += 1
            elif c in "*+?}" and i + 1 < n and p[i + 1] in "?+":
                # lazy or possessive quantifier: only the greedy one exists everywhere
                out.append(c)
                self.touched = True
                i += 2
            elif self.ere and self.caseless and c.isalpha() and c.isascii():
                out.append("[%s%s]" % (c.lower(), c.upper()))
                i += 1
            elif not self.ere and not c.isascii():
                # rg --no-unicode refuses a non-ASCII literal; its UTF-8 bytes, grouped so
                # that a quantifier after it still applies to the whole character
                out.append("(?:" + "".join("\\x%02X" % b for b in c.encode("utf-8")) + ")")
                i += 1
            else:
                out.append(c)
                i += 1
        return "".join(out)

    def escape(self, c):
        if not self.ere:
            return "\\" + c
        if c == "d":
            return "[0-9]"
        if c == "D":
            return "[^0-9]"
        if c in "sSwWbB":
            return "\\" + c  # GNU extensions
        if c == "n":
            return "$"  # a line never holds a newline; this never matches mid-pattern either
        if c == "t":
            return "\t"
        if c in ".[]()*+?{}|^$\\":
            return "\\" + c
        return c  # GNU grep warns about a stray \ before other characters

    @staticmethod
    def skip_group(p, i):
        depth = 0
        while i < len(p):
            if p[i] == "\\":
                i += 2
                continue
            if p[i] == "[":
                i = Converter.class_end(p, i)
                continue
            if p[i] == "(":
                depth += 1
            elif p[i] == ")":
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        return i

    @staticmethod
    def class_end(p, i):
        j = i + 1
        if j < len(p) and p[j] == "^":
            j += 1
        if j < len(p) and p[j] == "]":
            j += 1
        while j < len(p) and p[j] != "]":
            j += 2 if p[j] == "\\" else 1
        return j + 1

    def char_class(self, p, i):
        end = self.class_end(p, i)
        body = p[i + 1 : end - 1]
        neg = body.startswith("^")
        if neg:
            body = body[1:]
        if not self.ere:
            # Rust regex reads an unescaped [ inside a class as a nested class, && as
            # an intersection
            body = re.sub(r"(?<!\\)((?:\\\\)*)\[", r"\1\\[", body).replace("&&", "&\\&")
            if not body.isascii():
                # a set of bytes cannot hold a multi-byte character: left out, loosely
                body = "".join(ch for ch in body if ch.isascii()) or "\\x00"
                self.touched = True
            return "[" + ("^" if neg else "") + body + "]", end
        # parse into literals, ranges and named sets, then write them back in the
        # order ERE needs: a literal ] first, a literal ^ not first, a literal - last
        elems, k = [], 0
        while k < len(body):
            ch, k = body[k], k + 1
            if ch == "\\" and k < len(body):
                e, k = body[k], k + 1
                if e in "dswDSW":
                    if e in "DSW":  # a negated set inside a set: ERE cannot; keep it loose
                        self.touched = True
                    elems.append(("set", {"d": "0-9", "s": "[:space:]", "w": "[:alnum:]_"}.get(e, "[:print:]")))
                    continue
                if e == "n":  # no line holds a newline: leave it out of the set
                    continue
                ch = "\t" if e == "t" else e
            if k + 1 < len(body) and body[k] == "-" and body[k + 1] not in "\\":
                elems.append(("range", ch, body[k + 1]))
                k += 2
            else:
                elems.append(("lit", ch))
        if not elems:  # the set held only \n
            return ("." if neg else "$^"), end
        if self.caseless:
            for el in list(elems):
                if el[0] == "lit" and el[1].isascii() and el[1].isalpha():
                    elems.append(("lit", el[1].swapcase()))
                elif el[0] == "range" and el[1].isalpha() and el[2].isalpha() and el[1].islower() == el[2].islower():
                    elems.append(("range", el[1].swapcase(), el[2].swapcase()))
        lead = "]" if ("lit", "]") in elems else ""
        tail = ("^" if ("lit", "^") in elems else "") + ("-" if ("lit", "-") in elems else "")
        mid = "".join(el[1] if el[0] != "range" else el[1] + "-" + el[2]
                      for el in elems if not (el[0] == "lit" and el[1] in "]^-"))
        if not lead and not mid and tail.startswith("^"):
            mid, tail = "-", tail[1:] if tail != "^-" else ""  # [\^] alone: rare; keep it valid
        return "[" + ("^" if neg else "") + lead + mid + tail + "]", end


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("yaml", "rust", "ere"):
        sys.stderr.write(__doc__)
        return 2
    mode = sys.argv[1]
    if mode == "yaml":
        pats = rule_patterns(sys.argv[2:])
        for p, caseless in pats:
            sys.stdout.write(("(?i)" if caseless and not p.startswith("(?i)") else "") + p + "\n")
        return 0
    # the patterns are UTF-8 whatever the locale (CI may run under C/POSIX)
    sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")
    sys.stdout.reconfigure(encoding="utf-8", errors="surrogateescape")
    conv = Converter(mode)
    n = 0
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line:
            sys.stdout.write(conv.convert(line) + "\n")
            n += 1
    sys.stderr.write("%s: %d of %d patterns rewritten approximately (lookaround, lazy "
                     "quantifier, atomic group%s)\n" % (mode, conv.changed, n, ", (?i)" if mode == "ere" else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
