/* What the prefilter is given for a pattern. Vectorscan is fast on literals and short
 * classes, and slow on gaps: `.*`, `[^\]]{0,40}`, `.{0,120}?` keep an automaton running
 * over the rest of the line for every place the part before them matched, and on a
 * progress bar that is every few bytes. The prefilter only has to find a superset of
 * the lines PCRE2 will match, and every match of "A gap B" contains a match of A and a
 * match of B, so the prefilter can be given the one of A or B that is the most
 * selective (the longest literal) and drop the rest. PCRE2 still decides on each line.
 *
 * On the bench log this turned the tqdm pattern `\| *\d+/\d+ \[[^\]]{0,40}(?:it/s|s/it)`
 * from a quarter of the whole database's cost into almost nothing. */
#include <stdlib.h>
#include <string.h>

#include "ruleset_int.h"

/* A gap repeats a broad atom at least this many times at most. */
#define GAP_MIN_BOUND 8
/* A kept part must have a literal at least this long, or the pattern goes in whole. */
#define KEEP_MIN_LITERAL 3
/* Groups nested deeper than this are not looked into (the pattern goes in whole). */
#define MAX_NESTING 16

typedef struct {
    size_t start, end; /* the atom, its quantifier included */
    bool gap;
} atom;

/* The end of the group opened at p[i] == '(' (just past its ')'), or 0 if unbalanced. */
static size_t group_end(const char *p, size_t n, size_t i)
{
    int depth = 0;
    for (; i < n; i++) {
        if (p[i] == '\\') {
            i++;
        } else if (p[i] == '[') {
            i = ldxi_re_class_end(p, n, i);
        } else if (p[i] == '(') {
            depth++;
        } else if (p[i] == ')' && --depth == 0) {
            return i + 1;
        }
    }
    return 0;
}

/* The most times a quantifier at p[i] lets its atom repeat (1 without one), and where
 * it ends. */
static size_t quantifier(const char *p, size_t n, size_t i, size_t *max)
{
    *max = 1;
    if (i < n && (p[i] == '*' || p[i] == '+')) {
        *max = SIZE_MAX;
        i++;
    } else if (i < n && p[i] == '?') {
        i++;
    } else if (i < n && p[i] == '{') {
        size_t j = i + 1, lo = 0, hi;
        while (j < n && p[j] >= '0' && p[j] <= '9') lo = lo * 10 + (size_t)(p[j++] - '0');
        hi = lo;
        if (j < n && p[j] == ',') {
            j++;
            if (j < n && p[j] == '}') {
                hi = SIZE_MAX;
            } else {
                hi = 0;
                while (j < n && p[j] >= '0' && p[j] <= '9') hi = hi * 10 + (size_t)(p[j++] - '0');
            }
        }
        if (j >= n || p[j] != '}' || j == i + 1) return i; /* a literal '{' */
        *max = hi;
        i = j + 1;
    } else {
        return i;
    }
    if (i < n && (p[i] == '?' || p[i] == '+')) i++; /* lazy, possessive */
    return i;
}

/* Cuts p[0..n) (one alternative, no top-level '|') into atoms. False where the
 * pattern has something a part of it cannot stand without: a back reference, \Q..\E,
 * an inline option that changes what follows, or a nesting it will not read. */
static bool split(const char *p, size_t n, atom *out, size_t cap, size_t *count, bool *has_gap,
                  int depth)
{
    if (depth > MAX_NESTING) return false;
    size_t k = 0;
    *has_gap = false;
    for (size_t i = 0; i < n;) {
        size_t s = i;
        bool broad = false, inner_gap = false;
        if (p[i] == '\\') {
            char e = i + 1 < n ? p[i + 1] : '\0';
            if ((e >= '1' && e <= '9') || e == 'k' || e == 'g' || e == 'Q' || e == 'E' || !e)
                return false;
            broad = e == 'S' || e == 'W' || e == 'D' || e == 'N';
            i += 2;
            if (strchr("xopPN", e) && i < n && p[i] == '{') {
                while (i < n && p[i] != '}') i++;
                i++;
            }
        } else if (p[i] == '[') {
            broad = i + 1 < n && p[i + 1] == '^';
            i = ldxi_re_class_end(p, n, i) + 1;
        } else if (p[i] == '(') {
            size_t e = group_end(p, n, i);
            if (!e) return false;
            /* a group with a gap inside is a gap: the parts around it can go alone */
            size_t b = i + 1; /* where its content starts */
            if (p[b] == '?') {
                char c = p[b + 1];
                b += 2;
                if (c == '#') b = e - 1; /* a comment: nothing inside */
                else if (c == '<' && (p[b] == '=' || p[b] == '!')) b++;
                else if (c == '<' || c == 'P')
                    while (b < e && p[b - 1] != '>') b++;
            }
            atom tmp[64];
            size_t tn = 0, from = b;
            int level = 0;
            for (size_t j = b; j <= e - 1; j++) {
                bool end = j == e - 1;
                if (!end && p[j] == '\\') {
                    j++;
                    continue;
                }
                if (!end && p[j] == '[') {
                    j = ldxi_re_class_end(p, n, j);
                    continue;
                }
                if (!end && p[j] == '(') level++;
                if (!end && p[j] == ')') level--;
                if (end || (p[j] == '|' && level == 0)) {
                    bool g = false;
                    if (split(p + from, j - from, tmp, 64, &tn, &g, depth + 1) && g)
                        inner_gap = true;
                    from = j + 1;
                }
            }
            i = e;
        } else {
            broad = p[i] == '.';
            i++;
        }
        size_t max;
        i = quantifier(p, n, i, &max);
        if (k == cap) return false;
        /* `\S+` after a literal is cheap and `[^)]{0,200}` is not; unbounded `.*` and
         * `[^x]*` cost as much as bounded ones (measured on the bench log) */
        bool gapq = broad && max >= GAP_MIN_BOUND && (max != SIZE_MAX || p[s] == '.' || p[s] == '[');
        out[k++] = (atom){s, i, inner_gap || gapq};
        *has_gap |= out[k - 1].gap;
    }
    *count = k;
    return true;
}

/* Words that whole classes of log lines carry: a part whose literal is one of them
 * would hand PCRE2 every NCCL INFO line of a NCCL_DEBUG=INFO log. */
static const char *const common_words[] = {
    "NCCL INFO", "NCCL WARN", "NVRM: Xid", "WARNING", "WARN", "INFO", "ERROR", "Error: ",
    "error: ", "Traceback",
};

/* Blanks the common words in a part (to '.', which is no literal) before it is weighed. */
static void blank_common(char *part)
{
    for (size_t w = 0; w < sizeof common_words / sizeof *common_words; w++) {
        size_t wl = strlen(common_words[w]);
        for (char *q = strstr(part, common_words[w]); q; q = strstr(q + wl, common_words[w]))
            memset(q, '.', wl);
    }
}

/* The form of one alternative, appended to out; false if it is kept whole. */
static bool form_alternative(const char *p, size_t n, char *out, size_t *olen)
{
    atom at[256];
    size_t na = 0;
    bool gap = false;
    if (!split(p, n, at, 256, &na, &gap, 0) || !gap) return false;
    size_t best_s = 0, best_e = 0, best_lit = 0;
    for (size_t a = 0; a < na;) {
        while (a < na && at[a].gap) a++;
        size_t b = a;
        while (b < na && !at[b].gap) b++;
        if (b > a) {
            size_t s = at[a].start, e = at[b - 1].end;
            char *part = malloc(e - s + 1);
            if (!part) return false;
            memcpy(part, p + s, e - s);
            part[e - s] = '\0';
            blank_common(part);
            size_t lit = ldxi_pattern_literal(part);
            free(part);
            if (lit > best_lit) {
                best_lit = lit;
                best_s = s;
                best_e = e;
            }
        }
        a = b;
    }
    if (best_lit < KEEP_MIN_LITERAL) return false;
    memcpy(out + *olen, p + best_s, best_e - best_s);
    *olen += best_e - best_s;
    return true;
}

/* Whether every group of p[from..n) is one a part of the pattern can stand without:
 * no recursion, conditional, branch reset or option setting (an option set in one
 * alternative carries into the next ones). */
static bool plain_groups(const char *p, size_t n, size_t from)
{
    for (size_t i = from; i < n; i++) {
        if (p[i] == '\\') {
            i++;
        } else if (p[i] == '[') {
            i = ldxi_re_class_end(p, n, i);
        } else if (p[i] == '(' && i + 2 < n && p[i + 1] == '?') {
            char c = p[i + 2], d = i + 3 < n ? p[i + 3] : '\0';
            bool ok = c == ':' || c == '=' || c == '!' || c == '>' || c == '#' ||
                      (c == '<' && d != '\0') || (c == 'P' && d == '<');
            if (!ok) return false;
        }
    }
    return true;
}

char *ldxi_prefilter_form(const char *pattern)
{
    size_t n = strlen(pattern);
    /* options set at the very start hold for the whole pattern: keep them in front */
    size_t lead = 0;
    if (n > 3 && pattern[0] == '(' && pattern[1] == '?') {
        size_t j = 2;
        while (j < n && ((pattern[j] >= 'a' && pattern[j] <= 'z') || pattern[j] == '-')) j++;
        if (j > 2 && j < n && pattern[j] == ')') lead = j + 1;
    }
    if (!plain_groups(pattern, n, lead)) return NULL;
    char *out = malloc(n + 1);
    if (!out) return NULL;
    memcpy(out, pattern, lead);
    size_t olen = lead, from = lead;
    bool changed = false;
    int depth = 0;
    for (size_t i = lead; i <= n; i++) {
        bool end = i == n;
        if (!end && pattern[i] == '\\') {
            i++;
            continue;
        }
        if (!end && pattern[i] == '[') {
            i = ldxi_re_class_end(pattern, n, i);
            continue;
        }
        if (!end && pattern[i] == '(') depth++;
        if (!end && pattern[i] == ')') depth--;
        if (end || (pattern[i] == '|' && depth == 0)) {
            if (from > lead) out[olen++] = '|';
            if (form_alternative(pattern + from, i - from, out, &olen)) {
                changed = true;
            } else {
                memcpy(out + olen, pattern + from, i - from);
                olen += i - from;
            }
            from = i + 1;
        }
    }
    if (!changed) {
        free(out);
        return NULL;
    }
    out[olen] = '\0';
    return out;
}
