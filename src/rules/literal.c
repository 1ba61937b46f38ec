/* Pattern hygiene: how long a fixed string every match of a pattern must contain. A
 * prefilter (Vectorscan) is fast when it can look for such a literal and slow when a
 * pattern is all classes and quantifiers; `logdx rules lint --perf` warns below 3. */
#include <string.h>

#include "ruleset_int.h"

size_t ldxi_re_class_end(const char *p, size_t n, size_t i)
{
    i++;
    if (i < n && p[i] == '^') i++;
    if (i < n && p[i] == ']') i++;
    while (i < n && p[i] != ']') i += p[i] == '\\' ? 2 : 1;
    return i < n ? i : n;
}

/* Skips a quantifier after an atom that is not a literal (\d+, [a-z]*, .{2,5}). */
static size_t skip_quant(const char *b, size_t n, size_t i)
{
    while (i < n && (b[i] == '?' || b[i] == '*' || b[i] == '+')) i++;
    if (i < n && b[i] == '{') {
        size_t j = i + 1;
        while (j < n && ((b[j] >= '0' && b[j] <= '9') || b[j] == ',')) j++;
        if (j < n && b[j] == '}' && j > i + 1) i = j + 1;
    }
    while (i < n && (b[i] == '?' || b[i] == '+')) i++;
    return i;
}

/* The longest run of literal characters in one alternative (an estimate: a group's
 * inner alternatives are read as runs of their own). */
static size_t branch_literal(const char *b, size_t n)
{
    size_t best = 0, run = 0, i = 0;
    while (i < n) {
        char c = b[i];
        if (c == '\\') {
            char e = i + 1 < n ? b[i + 1] : '\0';
            i += 2;
            if (!e || (e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9')) {
                run = 0; /* \d, \s, \w, \b, \1...: not a literal character */
                i = skip_quant(b, n, i);
                continue;
            }
        } else if (c == '[') {
            i = skip_quant(b, n, ldxi_re_class_end(b, n, i) + 1);
            run = 0;
            continue;
        } else if (c == '(' && i + 1 < n && b[i + 1] == '?') {
            size_t j = i + 2; /* (?: (?= (?! (?> (?<name> (?<= (?<! (?i) */
            if (j < n && strchr(":=!>", b[j])) {
                j++;
            } else if (j + 1 < n && b[j] == '<' && (b[j + 1] == '=' || b[j + 1] == '!')) {
                j += 2;
            } else if (j < n && (b[j] == '<' || b[j] == 'P')) {
                while (j < n && b[j] != '>') j++;
                j++;
            } else {
                while (j < n && b[j] != ')' && b[j] != ':') j++;
                j++;
            }
            i = j;
            run = 0;
            continue;
        } else if (strchr("()|^$.", c)) {
            i = skip_quant(b, n, i + 1);
            run = 0;
            continue;
        } else {
            i++;
        }
        /* the character just read: optional or repeated? */
        if (i < n && strchr("?*{", b[i])) {
            run = 0;
            i = skip_quant(b, n, i);
            continue;
        }
        run++;
        if (run > best) best = run;
        if (i < n && b[i] == '+') run = 0;
    }
    return best;
}

size_t ldxi_pattern_literal(const char *p)
{
    /* the weakest top-level alternative decides */
    size_t n = strlen(p), start = 0, best = SIZE_MAX;
    int depth = 0;
    for (size_t i = 0; i <= n; i++) {
        char c = i < n ? p[i] : '|';
        if (c == '\\' && i + 1 < n) {
            i++;
            continue;
        }
        if (c == '[') {
            i = ldxi_re_class_end(p, n, i);
            continue;
        }
        if (c == '(') depth++;
        if (c == ')') depth--;
        if (c == '|' && depth <= 0) {
            size_t l = branch_literal(p + start, i - start);
            if (l < best) best = l;
            start = i + 1;
        }
    }
    return best == SIZE_MAX ? 0 : best;
}
