/* Pattern hygiene: how long a fixed string every match of a pattern must contain. A
 * prefilter (Vectorscan) is fast when it can look for such a literal and slow when a
 * pattern is all classes and quantifiers; `logdx rules lint --perf` warns below 3. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ruleset_int.h"

size_t ldxi_re_escape_end(const char *p, size_t n, size_t i)
{
    char e = i + 1 < n ? p[i + 1] : '\0';
    i += 2;
    if (e == 'c') return i < n ? i + 1 : n; /* \cX, a control character, takes the X */
    if (e == 'Q') { /* quoted up to \E: brackets in there are text */
        while (i + 1 < n && !(p[i] == '\\' && p[i + 1] == 'E')) i++;
        return i + 1 < n ? i + 2 : n;
    }
    if (e && strchr("xopPNgk", e) && i < n &&
        (p[i] == '{' || ((e == 'k' || e == 'g') && (p[i] == '<' || p[i] == '\'')))) {
        char close = p[i] == '{' ? '}' : p[i] == '<' ? '>' : '\'';
        i++;
        while (i < n && p[i] != close) i++;
        i++;
    } else if (e == 'x') { /* \xHH: up to two hex digits are the escape's, not text */
        for (int k = 0; k < 2 && i < n && p[i] && strchr("0123456789abcdefABCDEF", p[i]); k++) i++;
    } else if (e == '0') { /* \0oo: octal */
        for (int k = 0; k < 2 && i < n && p[i] >= '0' && p[i] <= '7'; k++) i++;
    } else if (e >= '1' && e <= '9') { /* \12: a back reference or octal, digits and all */
        while (i < n && p[i] >= '0' && p[i] <= '9') i++;
    } else if (e == 'g') { /* \g1, \g-1, \g+2 */
        if (i < n && (p[i] == '-' || p[i] == '+')) i++;
        while (i < n && p[i] >= '0' && p[i] <= '9') i++;
    } else if ((e == 'p' || e == 'P') && i < n) { /* \pL: a one-letter property */
        i++;
    }
    return i < n ? i : n;
}

size_t ldxi_re_class_end(const char *p, size_t n, size_t i)
{
    i++;
    if (i < n && p[i] == '^') i++;
    if (i < n && p[i] == ']') i++;
    while (i < n && p[i] != ']') {
        if (p[i] == '\\') {
            /* in a class, \g and \k are no references: nothing after them is theirs */
            char e = i + 1 < n ? p[i + 1] : '\0';
            i = e == 'g' || e == 'k' ? i + 2 : ldxi_re_escape_end(p, n, i);
        } else if (p[i] == '[' && i + 1 < n && p[i + 1] == ':') {
            /* a POSIX class, [:alpha:], ends at its own ":]" */
            size_t j = i + 2;
            while (j < n && ((p[j] >= 'a' && p[j] <= 'z') || p[j] == '^')) j++;
            i = j + 1 < n && p[j] == ':' && p[j + 1] == ']' ? j + 2 : i + 1;
        } else {
            i++;
        }
    }
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

/* What a piece of a pattern guarantees about the literal text of its matches: the
 * longest fixed run inside every match (best), the run every match starts with (head)
 * and ends with (tail), and whether the piece is nothing but one fixed string (whole,
 * of length best). Groups are looked into, so that "\): (?<xid>31), " counts as the
 * seven characters it always is, and a group of alternatives counts for its weakest
 * one ("(?:Ch |channel 0x)" guarantees 3, not 10). */
typedef struct {
    size_t best, head, tail;
    bool whole;
} lit_info;

#define LIT_DEPTH 16 /* deeper groups count for nothing */

static lit_info alternatives_literal(const char *p, size_t n, int depth);

size_t ldxi_re_group_end(const char *p, size_t n, size_t i)
{
    int level = 0;
    for (; i < n; i++) {
        if (p[i] == '\\') i = ldxi_re_escape_end(p, n, i) - 1;
        else if (p[i] == '[') i = ldxi_re_class_end(p, n, i);
        else if (p[i] == '(') level++;
        else if (p[i] == ')' && --level == 0) return i + 1;
    }
    return 0;
}

/* The end of the group opened at b[i] == '(' (just past its ')'), or n when it is not closed. */
static size_t group_close(const char *b, size_t n, size_t i)
{
    size_t e = ldxi_re_group_end(b, n, i);
    return e ? e : n;
}

/* Whether a quantifier at b[i] may leave its atom out ('?', '*', {0,...}). */
static bool may_skip(const char *b, size_t n, size_t i)
{
    return i < n && (b[i] == '?' || b[i] == '*' || (b[i] == '{' && i + 1 < n && b[i + 1] == '0'));
}

static bool is_quant(const char *b, size_t n, size_t i)
{
    return i < n && (b[i] == '?' || b[i] == '*' || b[i] == '+' || b[i] == '{');
}

/* Appends a piece that is fixed text of length k to the running sequence. */
static void add_text(lit_info *li, size_t *run, bool *at_head, size_t k)
{
    *run += k;
    if (*at_head) li->head = *run;
    if (*run > li->best) li->best = *run;
}

/* Breaks the run: what follows is not adjacent to what came before. */
static void add_break(lit_info *li, size_t *run, bool *at_head)
{
    *run = 0;
    *at_head = false;
    li->whole = false;
}

static lit_info sequence_literal(const char *b, size_t n, int depth)
{
    lit_info li = {0, 0, 0, true};
    size_t run = 0, i = 0;
    bool at_head = true;
    while (i < n) {
        char c = b[i];
        if (c == '(') {
            size_t close = group_close(b, n, i), body = i + 1;
            size_t q = close, qend = skip_quant(b, n, close);
            bool zero_width = false, options = false;
            if (body < n && b[body] == '*') { /* (*VERB), (*LIMIT_MATCH=10): nothing to match */
                zero_width = true;
                for (size_t k = body; k < close && k < n && b[k] != ')'; k++)
                    if (b[k] == ':') options = true; /* (*atomic:...), (*pla:...): not read */
            }
            if (body < n && b[body] == '?') {
                char d = body + 1 < n ? b[body + 1] : '\0', e = body + 2 < n ? b[body + 2] : '\0';
                if (d == ':' || d == '>') body += 2;
                else if (d == '=' || d == '!') zero_width = true;
                else if (d == '<' && (e == '=' || e == '!')) zero_width = true;
                else if (d == 'P' && (e == '=' || e == '>')) options = true; /* a reference */
                else if (d == '<' || d == 'P' || d == '\'') {
                    while (body < n && b[body] != '>' && b[body] != '\'') body++;
                    body++;
                    if (d == '\'') { /* (?'name' ...) */
                        while (body < n && b[body] != '\'') body++;
                        body++;
                    }
                } else {
                    options = true; /* (?i), (?i:...), conditionals, recursion */
                }
            }
            i = qend;
            /* a lookaround or an anchor consumes nothing: the text around it is adjacent */
            if (zero_width && !options) continue;
            if (options || depth >= LIT_DEPTH || close > n || body >= close) {
                add_break(&li, &run, &at_head);
                continue;
            }
            if (may_skip(b, n, q)) {
                add_break(&li, &run, &at_head);
                continue;
            }
            lit_info in = alternatives_literal(b + body, close - 1 - body, depth + 1);
            if (is_quant(b, n, q)) { /* '+' or {n,}: present, but not adjacent to itself */
                if (in.best > li.best) li.best = in.best;
                add_text(&li, &run, &at_head, in.head);
                add_break(&li, &run, &at_head);
                run = in.tail;
                continue;
            }
            if (in.whole) {
                add_text(&li, &run, &at_head, in.best);
                continue;
            }
            add_text(&li, &run, &at_head, in.head);
            if (in.best > li.best) li.best = in.best;
            add_break(&li, &run, &at_head);
            run = in.tail;
            continue;
        }
        if (c == '^' || c == '$') {
            i++;
            continue;
        }
        if (c == '\\') {
            char e = i + 1 < n ? b[i + 1] : '\0';
            if (e == 'b' || e == 'B' || e == 'A' || e == 'z' || e == 'Z' || e == 'G') {
                i += 2;
                continue;
            }
            size_t after = ldxi_re_escape_end(b, n, i);
            i += 2;
            if (!e || (e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9')) {
                i = after;
                i = skip_quant(b, n, i); /* \d, \s, \w, \1, \x41...: not counted */
                add_break(&li, &run, &at_head);
                continue;
            }
        } else if (c == '[' || c == '.') {
            i = skip_quant(b, n, c == '[' ? ldxi_re_class_end(b, n, i) + 1 : i + 1);
            add_break(&li, &run, &at_head);
            continue;
        } else {
            i++;
        }
        /* the character just read: optional or repeated? */
        if (may_skip(b, n, i)) {
            i = skip_quant(b, n, i);
            add_break(&li, &run, &at_head);
            continue;
        }
        if (is_quant(b, n, i)) { /* '+' or {n,}: once, then not adjacent */
            i = skip_quant(b, n, i);
            add_text(&li, &run, &at_head, 1);
            add_break(&li, &run, &at_head);
            run = 1;
            continue;
        }
        add_text(&li, &run, &at_head, 1);
    }
    li.tail = run;
    if (li.whole) li.head = li.tail = li.best;
    return li;
}

/* The weakest of the top-level alternatives of p[0..n) decides. */
static lit_info alternatives_literal(const char *p, size_t n, int depth)
{
    lit_info all = {SIZE_MAX, SIZE_MAX, SIZE_MAX, false};
    size_t start = 0, nalt = 0;
    int level = 0;
    for (size_t i = 0; i <= n; i++) {
        char c = i < n ? p[i] : '|';
        if (c == '\\' && i + 1 < n) {
            i = ldxi_re_escape_end(p, n, i) - 1;
            continue;
        }
        if (c == '[') {
            i = ldxi_re_class_end(p, n, i);
            if (i >= n) i = n - 1; /* unclosed: the end still closes the alternative */
            continue;
        }
        if (c == '(') level++;
        if (c == ')') level--;
        if ((c == '|' && level <= 0) || i == n) { /* the end closes the last one, balanced or not */
            lit_info a = sequence_literal(p + start, i - start, depth);
            if (a.best < all.best) all.best = a.best;
            if (a.head < all.head) all.head = a.head;
            if (a.tail < all.tail) all.tail = a.tail;
            all.whole = a.whole; /* counts only if it is the only one */
            nalt++;
            start = i + 1;
        }
    }
    if (nalt > 1) all.whole = false; /* fixed text only if there is one alternative */
    return all;
}

size_t ldxi_pattern_literal(const char *p)
{
    return alternatives_literal(p, strlen(p), 0).best;
}
