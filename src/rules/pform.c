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
#include <stdio.h>
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

/* Past the comment "(?#...)" opened at p[i], which ends at its first ')' (no escapes or
 * nesting in it); 0 if p[i] opens none or it is not closed. */
static size_t comment_end(const char *p, size_t n, size_t i)
{
    if (i + 2 >= n || p[i + 1] != '?' || p[i + 2] != '#') return 0;
    const char *c = memchr(p + i, ')', n - i);
    return c ? (size_t)(c - p) + 1 : 0;
}

/* The end of the group opened at p[i] == '(' (just past its ')'), or 0 if unbalanced. */
static size_t group_end(const char *p, size_t n, size_t i)
{
    int depth = 0;
    for (; i < n; i++) {
        size_t ce;
        if (p[i] == '\\') {
            i = ldxi_re_escape_end(p, n, i) - 1;
        } else if (p[i] == '[') {
            i = ldxi_re_class_end(p, n, i);
        } else if (p[i] == '(' && (ce = comment_end(p, n, i))) {
            if (depth == 0) return ce;
            i = ce - 1;
        } else if (p[i] == '(') {
            depth++;
        } else if (p[i] == ')' && --depth == 0) {
            return i + 1;
        }
    }
    return 0;
}

/* Where the top-level alternative of p[0..n) that starts at from ends: at its '|',
 * or at n. */
static size_t alt_end(const char *p, size_t n, size_t from)
{
    int level = 0;
    for (size_t i = from; i < n; i++) {
        if (p[i] == '\\') i = ldxi_re_escape_end(p, n, i) - 1;
        else if (p[i] == '[') i = ldxi_re_class_end(p, n, i);
        else if (p[i] == '(') level++;
        else if (p[i] == ')') level--;
        else if (p[i] == '|' && level == 0) return i;
    }
    return n;
}

/* How often a quantifier at p[i] lets its atom appear, at least and at most (1 and 1
 * without one), and where it ends. A stray \E between the atom and its quantifier is
 * nothing to PCRE2 ("a\E*" is "a*"). */
static size_t quantifier(const char *p, size_t n, size_t i, size_t *min, size_t *max)
{
    *min = *max = 1;
    size_t past = i;
    while (past + 1 < n && p[past] == '\\' && p[past + 1] == 'E') past += 2;
    if (past > i && past < n && (p[past] == '*' || p[past] == '+' || p[past] == '?' || p[past] == '{')) {
        size_t q = quantifier(p, n, past, min, max);
        if (q > past) return q;
        *min = *max = 1;
    }
    if (i < n && (p[i] == '*' || p[i] == '+')) {
        *min = p[i] == '+';
        *max = SIZE_MAX;
        i++;
    } else if (i < n && p[i] == '?') {
        *min = 0;
        i++;
    } else if (i < n && p[i] == '{') {
        size_t j = i + 1, lo = 0, hi;
        while (j < n && p[j] >= '0' && p[j] <= '9') lo = lo * 10 + (size_t)(p[j++] - '0');
        if (j == i + 1) return i; /* "{,9}" is literal text to the PCRE2 of Debian 12 */
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
        *min = lo;
        *max = hi;
        i = j + 1;
    } else {
        return i;
    }
    if (i < n && (p[i] == '?' || p[i] == '+')) i++; /* lazy, possessive */
    return i;
}


typedef enum {
    GROUP_HERE,  /* must match where it stands: capturing, (?:...), (?>...) */
    GROUP_LOOK,  /* a lookaround or a comment: its content is not part of the match */
    GROUP_OTHER  /* recursion, a condition, a branch reset, options; a name never closed */
} group_kind;

/* Where the content of the group opened at p[i] == '(' (closed just before e) starts,
 * past "?:", "?<name>", "?<=" and the like, and what kind of group it is. A comment's
 * content is empty. */
static size_t group_body(const char *p, size_t i, size_t e, group_kind *kind)
{
    size_t b = i + 1;
    *kind = GROUP_HERE;
    /* (*UTF), (*LIMIT_MATCH=10), (*SKIP), (*pla:...), (*atomic:...): verbs, options and
     * named assertions, whose text is no text to match */
    if (p[b] == '*') {
        *kind = GROUP_OTHER;
        return b;
    }
    if (p[b] != '?') return b;
    char c = p[b + 1];
    b += 2;
    if (c == ':' || c == '>') return b;
    *kind = GROUP_LOOK;
    if (c == '#') return e - 1;
    if (c == '=' || c == '!') return b;
    if (c == '<' && (p[b] == '=' || p[b] == '!')) return b + 1;
    *kind = GROUP_HERE;
    if (c == '<' || (c == 'P' && p[b] == '<')) {
        while (b < e && p[b - 1] != '>') b++;
        if (b >= e) *kind = GROUP_OTHER; /* "(?<v)": no content to read */
        return b;
    }
    *kind = GROUP_OTHER;
    return b;
}

/* Cuts p[0..n) (one alternative, no top-level '|') into atoms. False where the
 * pattern has something a part of it cannot stand without: a group that is not a plain
 * one, or a nesting it will not read (back references, \Q..\E and inline options are
 * refused for the whole pattern first, by plain_groups). */
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
            if (e == 'E' || !e) return false; /* a stray \E, a trailing backslash */
            broad = e == 'S' || e == 'W' || e == 'D' || e == 'N';
            i = ldxi_re_escape_end(p, n, i);
        } else if (p[i] == '[') {
            broad = i + 1 < n && p[i + 1] == '^';
            i = ldxi_re_class_end(p, n, i) + 1;
        } else if (p[i] == '(') {
            size_t e = group_end(p, n, i);
            if (!e) return false;
            /* a group with a gap inside is a gap: the parts around it can go alone */
            group_kind kind;
            size_t b = group_body(p, i, e, &kind);
            if (kind == GROUP_OTHER) return false;
            atom tmp[64];
            size_t tn = 0, inner = e - 1 - b; /* the content, without the ')' */
            for (size_t from = 0;;) {
                size_t to = alt_end(p + b, inner, from);
                bool g = false;
                if (split(p + b + from, to - from, tmp, 64, &tn, &g, depth + 1) && g)
                    inner_gap = true;
                if (to == inner) break;
                from = to + 1;
            }
            i = e;
        } else {
            broad = p[i] == '.';
            i++;
        }
        size_t min, max;
        i = quantifier(p, n, i, &min, &max);
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
 * would hand PCRE2 every NCCL INFO line of a NCCL_DEBUG=INFO log, or every step line of
 * a training loop (a pattern that wants "step N ... : nan" three times keeps its "nan"
 * part instead of its "step" one). "Error" and "Exception" stay: blanking them sent
 * patterns that have no other literal to Vectorscan whole, and its scan slowed more
 * than PCRE2 gained. */
static const char *const common_words[] = {
    "NCCL INFO", "NCCL WARN", "NVRM: Xid", "WARNING", "WARN", "INFO", "ERROR", "Error: ",
    "error: ", "Traceback", "step", "Step", "STEP", "iter", "Iter", "epoch", "Epoch", "loss", "Loss",
    "batch", "Batch",
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
 * alternative carries into the next ones), and no back reference (the group it names
 * may be cut away). */
static bool plain_groups(const char *p, size_t n, size_t from)
{
    for (size_t i = from; i < n; i++) {
        if (p[i] == '\\') {
            /* a back reference anywhere (even inside a group that a part keeps whole) */
            char e = i + 1 < n ? p[i + 1] : '\0';
            if ((e >= '1' && e <= '9') || e == 'k' || e == 'g' || e == 'Q') return false;
            i = ldxi_re_escape_end(p, n, i) - 1;
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

/* Rewrites each top-level alternative of a pattern with one (false: keeps it as it is);
 * NULL when none changed, or where the pattern has groups a part cannot stand without. */
static char *per_alternative(const char *pattern,
                             bool (*one)(const char *, size_t, char *, size_t *))
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
    size_t olen = lead;
    bool changed = false;
    for (size_t from = lead;;) {
        size_t i = alt_end(pattern, n, from);
        if (from > lead) out[olen++] = '|';
        if (one(pattern + from, i - from, out, &olen)) {
            changed = true;
        } else {
            memcpy(out + olen, pattern + from, i - from);
            olen += i - from;
        }
        if (i == n) break;
        from = i + 1;
    }
    if (!changed) {
        free(out);
        return NULL;
    }
    out[olen] = '\0';
    return out;
}

char *ldxi_prefilter_form(const char *pattern)
{
    return strstr(pattern, "(?#") ? NULL : per_alternative(pattern, form_alternative);
}

/* ---- ends ----
 * Vectorscan calls back at every place a match can end: "loss: 2.3451" ends after each
 * of its digits, and the finite-loss reading alone made 337 thousand of the bench log's
 * 528 thousand callbacks per 64 MiB, one line each. The prefilter needs the lines only,
 * and every match of "A B?" contains a match of "A", every match of "A X{2,}" one of
 * "A X{2}": so a form ends at its last part that must match, taken as few times as it
 * may be (inside a group that must match once, the same again). Lookarounds at the end
 * go too. The lines found stay the same, but for the rare one where the cut part fails. */

/* Where the atom starting at p[s] ends, its quantifier not included. */
static size_t atom_end(const char *p, size_t n, size_t s)
{
    if (p[s] == '\\') return ldxi_re_escape_end(p, n, s);
    if (p[s] == '[') return ldxi_re_class_end(p, n, s) + 1;
    if (p[s] == '(') return group_end(p, n, s);
    return s + 1;
}

/* p[0..n) (one alternative) without what may be cut from its end, appended to out;
 * false (out unchanged) where nothing is cut. */
static bool trim_alternative(const char *p, size_t n, char *out, size_t *olen, int depth)
{
    atom at[256];
    size_t na = 0, start = *olen;
    bool gap;
    if (!split(p, n, at, 256, &na, &gap, depth)) return false;
    for (size_t all = na; na > 0; na--) {
        const atom *a = &at[na - 1];
        size_t body = atom_end(p, n, a->start), min, max;
        quantifier(p, n, body, &min, &max);
        group_kind kind = GROUP_HERE;
        size_t b = p[a->start] == '(' ? group_body(p, a->start, body, &kind) : 0;
        if (min == 0 || kind == GROUP_LOOK) continue; /* may match nothing: cut */
        bool changed = na < all || max != min;
        memcpy(out + *olen, p, a->start);
        *olen += a->start;
        size_t inner = p[a->start] == '(' ? body - 1 - b : 0;
        if (p[a->start] == '(' && min == 1 && alt_end(p + b, inner, 0) == inner) {
            memcpy(out + *olen, p + a->start, b - a->start);
            *olen += b - a->start;
            size_t mark = *olen;
            if (trim_alternative(p + b, inner, out, olen, depth + 1)) {
                changed = true;
            } else {
                *olen = mark;
                memcpy(out + *olen, p + b, inner);
                *olen += inner;
            }
            out[(*olen)++] = ')';
        } else {
            /* the atom as written, taken min times */
            size_t to = max == min ? a->end : body;
            memcpy(out + *olen, p + a->start, to - a->start);
            *olen += to - a->start;
            if (max != min && min > 1) *olen += (size_t)sprintf(out + *olen, "{%zu}", min);
        }
        if (!changed) *olen = start;
        return changed;
    }
    return false; /* every part may match nothing: kept whole */
}

static bool trim_top(const char *p, size_t n, char *out, size_t *olen)
{
    return trim_alternative(p, n, out, olen, 0);
}

char *ldxi_trim_end(const char *pattern)
{
    /* a comment is no atom: a quantifier after one is the item's before it ("(a)(?#x)?" is
     * "(a)?"), which trimming the comment as an optional tail would make required */
    if (strstr(pattern, "(?#")) return NULL;
    return per_alternative(pattern, trim_top);
}

/* ---- starts ----
 * Every match of "A B" contains a match of B, so a form may also start later. What a
 * pattern has in front of its fixed string is usually cheap to leave out and dear to
 * keep: "    \w+ \(\S*" before a file name runs an automaton from every indented line
 * (four spaces start most lines of a traceback or a py-spy dump), where the name alone
 * is a string search; a py-spy frame pattern took 17 ms of a 16 MiB scan, its name 1.
 * So the leading atoms that hold no fixed text at all (classes, repeats, spaces, a
 * lookbehind of classes) go, while what is left still holds a fixed string as long as
 * the whole one's; any text in front, however short ("ce" in "loss|ce"), stays: with
 * the text after it, it keeps lines out (without it a NaN reader took every "nan"). */

/* A fixed string this long keeps lines out on its own; a shorter one ("nan", "inf", which
 * "info" holds) needs the digits and blanks in front of it to. */
#define START_MIN_LITERAL 6

/* The longest fixed string p[s..e) requires (ldxi_pattern_literal), spaces not counted:
 * an indentation is in front of most lines. */
static size_t part_literal(const char *p, size_t s, size_t e)
{
    char *part = malloc(e - s + 1);
    if (!part) return 0;
    memcpy(part, p + s, e - s);
    part[e - s] = '\0';
    for (char *q = part; *q; q++)
        if (*q == ' ') *q = '.';
    size_t lit = ldxi_pattern_literal(part);
    free(part);
    return lit;
}

static bool start_alternative(const char *p, size_t n, char *out, size_t *olen)
{
    atom at[256];
    size_t na = 0;
    bool gap;
    if (!split(p, n, at, 256, &na, &gap, 0) || na < 2) return false;
    size_t whole = part_literal(p, 0, n), k = 0;
    if (whole < START_MIN_LITERAL) return false;
    while (k + 1 < na && part_literal(p, at[k].start, at[k].end) == 0 &&
           part_literal(p, at[k + 1].start, n) >= whole)
        k++;
    if (k == 0) return false;
    memcpy(out + *olen, p + at[k].start, n - at[k].start);
    *olen += n - at[k].start;
    return true;
}

char *ldxi_trim_start(const char *pattern)
{
    if (strstr(pattern, "(?#")) return NULL; /* see ldxi_trim_end */
    return per_alternative(pattern, start_alternative);
}

/* ---- anchors ----
 * Vectorscan scans a batch of lines as one buffer, so `^` and `$` (multi-line mode) are
 * its line starts and ends, and \A, \Z, \z the batch's. The batch ones would miss
 * lines, and the line ones trip a bug in Vectorscan 5.4.9's AVX2 and AVX-512 scanners
 * (hsscan.c: logdx calls the core i7 one, which is free of it, where it can): with
 * two line-anchored patterns in one database, one loses most of its matches once a
 * line of spaced digits precedes the line (a JAX task pattern, `^[ \t]*(/job:...)`,
 * made the Megatron `^\s*iteration` miss 38504 of the 38972 iteration lines of the
 * bench log). The prefilter only has to find a superset of the lines, and every line
 * PCRE2 matches still contains a match of the pattern without its anchors; so the
 * database never gets one, and PCRE2 checks them on the line. */

/* Whether the group opened at p[i] goes into a rewritten pattern as it is: a lookaround
 * or a comment (group_body's GROUP_LOOK), or a (*...) verb or assertion. *end: past it. */
static bool kept_whole(const char *p, size_t n, size_t i, size_t *end)
{
    size_t e = group_end(p, n, i);
    if (!e) return false;
    group_kind kind;
    group_body(p, i, e, &kind);
    if (kind != GROUP_LOOK && p[i + 1] != '*') return false;
    *end = e;
    return true;
}

/* Edits the token p[i..next) (an escape, a class, a group kept whole, an options reset
 * "(?^", or one character): appends its replacement to out at *o and returns where the
 * edit ends (next, or further), or 0 to have it copied as it is. */
typedef size_t (*token_edit)(const char *p, size_t n, size_t i, size_t next, char *out, size_t *o);

/* The expression with edit() applied to each of its tokens, malloc'd; NULL when edit()
 * changed none. A replacement is never longer than what it replaces. */
static char *rewrite_tokens(const char *expr, token_edit edit)
{
    size_t n = strlen(expr);
    char *out = malloc(n + 1);
    if (!out) return NULL;
    size_t o = 0;
    bool changed = false;
    for (size_t i = 0; i < n;) {
        size_t next = i + 1;
        if (expr[i] == '\\') {
            next = ldxi_re_escape_end(expr, n, i);
        } else if (expr[i] == '[') {
            next = ldxi_re_class_end(expr, n, i) + 1;
            if (next > n) next = n;
        } else if (expr[i] == '(' && i + 2 < n && expr[i + 1] == '?' && expr[i + 2] == '^') {
            next = i + 3; /* (?^...): options reset, not an anchor */
        } else if (expr[i] == '(') {
            kept_whole(expr, n, i, &next);
        }
        size_t to = edit(expr, n, i, next, out, &o);
        if (to) {
            changed = true;
            i = to;
            continue;
        }
        memcpy(out + o, expr + i, next - i);
        o += next - i;
        i = next;
    }
    if (!changed) {
        free(out);
        return NULL;
    }
    out[o] = '\0';
    return out;
}

/* An anchor goes; a lookaround goes as it is (a group kept whole): without its anchor,
 * (?!^) would never hold and the result would miss lines (Vectorscan's prefilter mode
 * reads a lookaround loosely anyway). */
static size_t drop_anchor(const char *p, size_t n, size_t i, size_t next, char *out, size_t *o)
{
    (void)n, (void)out, (void)o;
    char c = p[i] == '\\' && next == i + 2 ? p[i + 1] : '\0';
    if (c == 'A' || c == 'Z' || c == 'z') return next;
    if (next == i + 1 && (p[i] == '^' || p[i] == '$')) return next;
    return 0;
}

char *ldxi_strip_anchors(const char *expr) { return rewrite_tokens(expr, drop_anchor); }

/* A line-start anchor (^ or \A) goes, and nothing else. */
static size_t drop_start_anchor(const char *p, size_t n, size_t i, size_t next, char *out, size_t *o)
{
    (void)n, (void)out, (void)o;
    if (p[i] == '\\' && next == i + 2 && p[i + 1] == 'A') return next;
    return next == i + 1 && p[i] == '^' ? next : 0;
}

bool ldxi_has_start_anchor(const char *expr)
{
    char *bare = rewrite_tokens(expr, drop_start_anchor);
    bool has = bare != NULL;
    free(bare);
    return has;
}

/* ---- bounds ----
 * A bounded repeat costs Vectorscan much more than an unbounded one: `[^\n]{0,60}?`
 * or `.{0,2000}?` is a counter the automaton keeps for every place the part before it
 * matched, where `[^\n]*` is one state. The prefilter only has to find a superset of
 * the lines, and `X{m,}` matches wherever `X{m,n}` does; so a form's wide bounds go
 * (measured on the whole built-in database: 12-17% less prefilter time on the bench log
 * and on real lines, a thousandth more lines handed to PCRE2). Inside a lookaround a
 * wider bound is no superset (a negative one would hold on fewer lines): left as it is
 * (a group kept whole). */
static size_t open_bound(const char *p, size_t n, size_t i, size_t next, char *out, size_t *o)
{
    size_t min, max, end;
    if (next != i + 1 || p[i] != '{' || (end = quantifier(p, n, i, &min, &max)) == i ||
        max == SIZE_MAX || max == min || max < GAP_MIN_BOUND)
        return 0;
    *o += (size_t)sprintf(out + *o, "{%zu,}", min);
    return end;
}

char *ldxi_widen_bounds(const char *expr) { return rewrite_tokens(expr, open_bound); }

/* ---- literal sets ----
 * Fixed strings one of which every match must contain. The database takes them instead
 * of a pattern where the rules' examples show they filter as well (hsdb.c), and for a
 * pattern Vectorscan refuses (recursion, \G, ...), so that it is still prefiltered
 * instead of running PCRE2 on every line. (For every pattern at once they were no
 * faster on the bench log: the strings of "loss" or "grad norm" readings are on every
 * training line, and PCRE2 would check them all.) A string must be in every match, so a
 * part that may not match (an optional or conditional group, a lookaround, a numbered
 * escape such as \x41) breaks a string instead of adding to it. */

#define SET_MAX LDXI_LITS_MAX /* more strings and the pattern is left to a regex */
#define LIT_MAX LDXI_LIT_MAX   /* a longer literal is cut: any piece of a required string is required */

typedef ldxi_lits lset; /* n == 0: no requirement found */

/* What a string is worth as a filter: its length without the common words. */
static size_t worth(const char *s, size_t n)
{
    char tmp[LIT_MAX + 1];
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    size_t w = n;
    for (size_t k = 0; k < sizeof common_words / sizeof *common_words; k++) {
        size_t wl = strlen(common_words[k]);
        for (char *q = strstr(tmp, common_words[k]); q; q = strstr(q + wl, common_words[k])) {
            memset(q, '\1', wl);
            w -= wl;
        }
    }
    return w;
}

static size_t set_worth(const lset *a)
{
    size_t w = a->n ? SIZE_MAX : 0;
    for (size_t i = 0; i < a->n; i++) {
        size_t x = worth(a->s[i], a->len[i]);
        if (x < w) w = x;
    }
    return w;
}

/* Keeps cand in best if it filters better: its weakest string is worth more, or as
 * much with fewer strings. */
static void consider(lset *best, const lset *cand)
{
    if (!cand->n) return;
    size_t wc = set_worth(cand), wb = set_worth(best);
    if (!best->n || wc > wb || (wc == wb && cand->n < best->n)) *best = *cand;
}

static void consider_run(lset *best, const char *run, size_t rl)
{
    if (!rl) return;
    lset one = {.n = 1};
    one.len[0] = rl;
    memcpy(one.s[0], run, rl);
    consider(best, &one);
}

static bool set_of(const char *p, size_t n, int depth, lset *out);

/* One alternative: the best of its literal runs and required groups. */
static bool branch_set(const char *p, size_t n, int depth, lset *best)
{
    char run[LIT_MAX];
    size_t rl = 0;
    best->n = 0;
    for (size_t i = 0; i < n;) {
        char c = p[i];
        size_t min, max;
        if (c == '\\') {
            char e = i + 1 < n ? p[i + 1] : '\0';
            /* \Q...\E quotes text, and an empty one is no atom at all: a quantifier after it
             * repeats what came before ("Q\Q\E*" is "Q*"); not read here */
            if (e == 'Q' || e == 'E') return false;
            if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9') || !e) {
                /* a class, an assertion, a reference or a coded character: no literal */
                consider_run(best, run, rl);
                rl = 0;
                i = quantifier(p, n, ldxi_re_escape_end(p, n, i), &min, &max);
                continue;
            }
            c = e;
            i += 2;
        } else if (c == '[') {
            consider_run(best, run, rl);
            rl = 0;
            i = quantifier(p, n, ldxi_re_class_end(p, n, i) + 1, &min, &max);
            continue;
        } else if (c == '(') {
            size_t e = group_end(p, n, i);
            if (!e) return false;
            consider_run(best, run, rl);
            rl = 0;
            group_kind kind; /* only a group that must match here requires its literals */
            size_t b = group_body(p, i, e, &kind);
            size_t q = quantifier(p, n, e, &min, &max);
            if (kind == GROUP_HERE && min > 0) {
                lset inner;
                if (!set_of(p + b, e - 1 - b, depth + 1, &inner)) return false;
                consider(best, &inner);
            }
            i = q;
            continue;
        } else if (c == '.' || c == '^' || c == '$' || c == '|' || c == ')' || c == '*' ||
                   c == '+' || c == '?' || c == '{') {
            consider_run(best, run, rl);
            rl = 0;
            i = quantifier(p, n, i + 1, &min, &max);
            continue;
        } else {
            i++;
        }
        /* a literal character: how often must it appear? */
        size_t q = quantifier(p, n, i, &min, &max);
        if (min > 0 && rl < LIT_MAX) run[rl++] = c;
        if (q > i) { /* repeated or optional: the run ends here */
            consider_run(best, run, rl);
            rl = 0;
        }
        i = q;
    }
    consider_run(best, run, rl);
    return true;
}

/* A whole pattern or group: every alternative must have a set; their union. */
static bool set_of(const char *p, size_t n, int depth, lset *out)
{
    out->n = 0;
    if (depth > MAX_NESTING) return true;
    for (size_t from = 0;;) {
        size_t i = alt_end(p, n, from);
        lset b;
        if (!branch_set(p + from, i - from, depth, &b)) return false;
        if (!b.n || out->n + b.n > SET_MAX) {
            out->n = 0; /* an alternative without a literal: no requirement */
            return true;
        }
        for (size_t k = 0; k < b.n; k++) {
            out->len[out->n] = b.len[k];
            memcpy(out->s[out->n], b.s[k], b.len[k]);
            out->n++;
        }
        if (i == n) return true;
        from = i + 1;
    }
}

/* Whether no option is set past p[from] (an option set mid-pattern, such as (?i), changes
 * what the literals after it match). */
static bool no_options(const char *p, size_t n, size_t from)
{
    for (size_t i = from; i + 2 < n; i++) {
        if (p[i] == '\\') {
            i = ldxi_re_escape_end(p, n, i) - 1;
        } else if (p[i] == '[') {
            i = ldxi_re_class_end(p, n, i);
        } else if (p[i] == '(' && p[i + 1] == '?') {
            char c = p[i + 2];
            if ((c >= 'a' && c <= 'z' && c != 'P') || c == '-' || c == '^') {
                size_t j = i + 2;
                while (j < n && ((p[j] >= 'a' && p[j] <= 'z') || p[j] == '-' || p[j] == '^')) j++;
                if (j < n && (p[j] == ')' || p[j] == ':')) return false;
            }
        }
    }
    return true;
}

bool ldxi_literal_strings(const char *pattern, ldxi_lits *set, bool *caseless)
{
    size_t n = strlen(pattern), lead = 0;
    *caseless = false;
    if (n > 4 && memcmp(pattern, "(?i)", 4) == 0) {
        lead = 4;
        *caseless = true;
    }
    /* a comment is no atom (see ldxi_trim_end): none of these readers takes one */
    return !strstr(pattern, "(?#") && no_options(pattern, n, lead) && set_of(pattern + lead, n - lead, 0, set) &&
           set->n && set_worth(set) >= KEEP_MIN_LITERAL;
}

char *ldxi_literal_set(const char *pattern, bool *caseless)
{
    lset set;
    return ldxi_literal_strings(pattern, &set, caseless) ? ldxi_literal_expr(&set) : NULL;
}

char *ldxi_literal_expr(const ldxi_lits *set)
{
    /* as a Vectorscan expression: the strings as alternatives, every byte but letters,
     * digits and spaces written \xHH */
    size_t cap = 1;
    for (size_t i = 0; i < set->n; i++) cap += set->len[i] * 4 + 1;
    char *out = malloc(cap), *o = out;
    if (!out) return NULL;
    for (size_t i = 0; i < set->n; i++) {
        if (i) *o++ = '|';
        for (size_t k = 0; k < set->len[i]; k++) {
            unsigned char c = (unsigned char)set->s[i][k];
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ')
                *o++ = (char)c;
            else
                o += sprintf(o, "\\x%02x", c);
        }
    }
    *o = '\0';
    return out;
}
