/* Digits, and the lines that differ only in them.
 *
 * A training log is mostly the same few lines with other numbers in them: a progress
 * bar, a step line, a loss dict (the 1 GiB bench log has a thousand distinct lines once
 * every digit is written as '0'). The scanner remembers what such a line's *template*
 * (the line with each digit replaced by '0') matched and reuses it for every later line
 * of the same template (scan/memo.c). That is only sound for what cannot tell one digit
 * from another:
 *
 * - a second prefilter database, of the patterns that read digits, scans the templates
 *   of the lines the memo sees first, with each expression widened here so that it
 *   matches the template of every line the original matches (a literal digit becomes
 *   '0', a class that holds some digits but not all ([1-9]) also takes '0', a negative
 *   lookaround that looks at digits is dropped): it says which of those patterns may
 *   match any line of the template;
 * - a PCRE2 pattern whose every part treats the ten digits alike (\d, \w, [0-9a-f], .,
 *   literal letters) is "digit-blind": it matches a line exactly when it matches any
 *   other line of the template, at the same offsets, captures included. Its result is
 *   remembered per template; any other pattern runs on each line the prefilter hands it.
 *
 * - a line's *collapsed template* (every run of digits written as one '0') is shared by
 *   lines whose numbers differ in length too (`step 9`, `step 10`): a third database, of
 *   every pattern widened further so that each part that can take a digit may also take
 *   none (a run of any length is one '0', and the parts that read it share that one),
 *   says which signals may match any line of a collapsed template; the memo runs those
 *   on each such line, and a collapsed template none of them matches is quiet.
 *
 * Both walk the pattern's syntax and give up (not blind, no widened expression) on
 * whatever they do not fully understand: back references, conditionals, recursion,
 * \p properties, verbs, (?x). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "ruleset_int.h"

#define ALL_DIGITS 0x3ffu
#define MAX_DEPTH 64

typedef struct {
    const char *p;
    size_t n;
    char *out; /* the widened expression, or NULL: only the analysis */
    size_t len, cap;
    bool blind; /* nothing seen yet tells digits apart */
    bool fail;  /* something seen that this cannot rewrite or vouch for */
    bool collapse; /* widening for collapsed templates (ldxi_re_collapse_digits) */
} walker;

void ldxi_digits_template(const char *src, size_t n, char *dst)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = (char)((unsigned)(c - '0') < 10u ? '0' : c);
    }
}

size_t ldxi_digits_collapse(const char *src, size_t n, char *dst)
{
    size_t k = 0;
    bool run = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)src[i];
        bool d = (unsigned)(c - '0') < 10u;
        if (!(d && run)) dst[k++] = d ? '0' : (char)c;
        run = d;
    }
    return k;
}

static void put(walker *w, const char *s, size_t k)
{
    if (!w->out || w->fail) return;
    if (ldxi_grow((void **)&w->out, &w->cap, w->len + k + 1, 1) != LDX_OK) {
        w->fail = true;
        return;
    }
    memcpy(w->out + w->len, s, k);
    w->len += k;
    w->out[w->len] = '\0';
}

static void give_up(walker *w)
{
    w->fail = true;
    w->blind = false;
}

/* Past what PCRE2 ignores at p[i] (comments, ending at their first ')', stray \E and
 * empty quotes \Q\E), however many there are. */
static size_t skip_ignored(const char *p, size_t n, size_t i)
{
    for (;;) {
        if (i + 2 < n && p[i] == '(' && p[i + 1] == '?' && p[i + 2] == '#') {
            while (i < n && p[i] != ')') i++;
            if (i < n) i++;
        } else if (i + 1 < n && p[i] == '\\' && p[i + 1] == 'E') {
            i += 2;
        } else if (i + 3 < n && p[i] == '\\' && p[i + 1] == 'Q' && p[i + 2] == '\\' && p[i + 3] == 'E') {
            i += 4; /* an empty quote */
        } else {
            return i;
        }
    }
}

/* Something PCRE2 ignores (a comment, a stray \E) was left out before p[i]: what stood on
 * either side of it must not join into another token (`\x(?#)c` is \x00 then c; `\xc`
 * would be \x0c). An empty group keeps them apart, unless a quantifier follows, which
 * applies to the atom before as it did (`\d(?#n)+` is `\d+`); a brace quantifier after an
 * escape that takes braces (`\x{..}`, `\p{..}`, `\g{..}`) would still join: given up. */
static void keep_apart(walker *w, size_t i)
{
    const char *p = w->p;
    i = skip_ignored(p, w->n, i); /* past more of them: the quantifier after the last counts */
    char c = i < w->n ? p[i] : '\0';
    if (!c || c == ')' || c == '|') return;
    if (c == '*' || c == '+' || c == '?') return;
    if (c == '{') {
        if (w->out && w->len >= 2 && w->out[w->len - 2] == '\\' && strchr("xopPgkNu", w->out[w->len - 1]))
            give_up(w);
        return;
    }
    put(w, "(?:)", 4);
}

/* Collapsed templates: the atom just written (at w->out[mark..]) can take a digit, so
 * it may take none too. The quantifier at p[i] after it, if any, loses its minimum
 * ({2,5} -> {0,5}, + -> *), or '?' is added. Returns where the walk goes on. */
static size_t relax(walker *w, size_t i)
{
    const char *p = w->p;
    size_t n = w->n;
    i = skip_ignored(p, n, i); /* comments and stray \E between */
    if (i < n && (p[i] == '?' || p[i] == '*' || p[i] == '+')) {
        put(w, p[i] == '+' ? "*" : p + i, 1);
        i++;
    } else if (i < n && p[i] == '{') {
        size_t k = i + 1, d0 = k;
        while (k < n && p[k] >= '0' && p[k] <= '9') k++;
        bool quant = k > d0;
        size_t hi0 = k, hi1 = k;
        bool comma = quant && k < n && p[k] == ',';
        if (comma) {
            hi0 = ++k;
            while (k < n && p[k] >= '0' && p[k] <= '9') k++;
            hi1 = k;
        }
        if (!(quant && k < n && p[k] == '}')) {
            put(w, "?", 1); /* a literal brace follows */
            return i;
        }
        put(w, "{0,", 3);
        if (comma) put(w, p + hi0, hi1 - hi0);
        else put(w, p + d0, hi0 - d0);
        put(w, "}", 1);
        i = k + 1;
    } else {
        put(w, "?", 1);
        return i;
    }
    size_t after = skip_ignored(p, n, i);
    if (after < n && p[after] == '+') return after + 1; /* possessive: greedy takes more */
    if (after < n && p[after] == '?') i = after;
    if (i < n && p[i] == '?') { /* lazy */
        put(w, "?", 1);
        i++;
    }
    return i;
}

static uint16_t digit_bit(int c) { return c >= '0' && c <= '9' ? (uint16_t)(1u << (c - '0')) : 0; }

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The character an escape at p[i] == '\\' stands for (\x41, \101, \o{101}, \cA, \n, \.),
 * or -1 for one that is no single character or that this does not know; *end past it. */
static int escape_char(const char *p, size_t n, size_t i, size_t *end)
{
    char e = i + 1 < n ? p[i + 1] : '\0';
    *end = i + 2;
    switch (e) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case 'f': return '\f';
    case 'e': return 0x1b;
    case 'a': return 0x07;
    case 'x': {
        size_t k = i + 2;
        long v = 0;
        if (k < n && p[k] == '{') {
            for (k++; k < n && p[k] != '}'; k++) {
                if (hexval(p[k]) < 0 || v > 0x10ffff) return -1;
                v = v * 16 + hexval(p[k]);
            }
            if (k >= n) return -1;
            *end = k + 1;
            return (int)v;
        }
        for (int d = 0; d < 2 && k < n && hexval(p[k]) >= 0; d++, k++) v = v * 16 + hexval(p[k]);
        *end = k;
        return (int)v;
    }
    case 'o': {
        size_t k = i + 2;
        long v = 0;
        if (k >= n || p[k] != '{') return -1;
        for (k++; k < n && p[k] != '}'; k++) {
            if (p[k] < '0' || p[k] > '7' || v > 0x10ffff) return -1;
            v = v * 8 + (p[k] - '0');
        }
        if (k >= n) return -1;
        *end = k + 1;
        return (int)v;
    }
    case '0': {
        size_t k = i + 2;
        int v = 0;
        for (int d = 0; d < 2 && k < n && p[k] >= '0' && p[k] <= '7'; d++, k++) v = v * 8 + (p[k] - '0');
        *end = k;
        return v;
    }
    case 'c':
        if (i + 2 >= n) return -1;
        *end = i + 3;
        return (p[i + 2] >= 'a' && p[i + 2] <= 'z' ? p[i + 2] - 32 : p[i + 2]) ^ 0x40;
    default:
        /* an escaped punctuation character is itself; letters and digits mean more */
        if (e && !(e >= 'a' && e <= 'z') && !(e >= 'A' && e <= 'Z') && !(e >= '0' && e <= '9'))
            return (unsigned char)e;
        return -1;
    }
}

/* The digits a class escape (\d \w \s ...) holds, or -1 when p[i+1] is no such escape. */
static int escape_set(char e)
{
    switch (e) {
    case 'd': case 'w': case 'S': case 'H': case 'V': case 'N': return ALL_DIGITS;
    case 'D': case 'W': case 's': case 'h': case 'v': case 'R': return 0;
    default: return -1;
    }
}

/* The digits a POSIX class name holds ("digit", "^alpha"), or -1 if unknown. */
static int posix_set(const char *name, size_t len)
{
    static const char *const all[] = {"alnum", "digit", "xdigit", "word", "graph", "print", "ascii"};
    static const char *const none[] = {"alpha", "upper", "lower", "space", "blank", "punct", "cntrl"};
    bool neg = len && name[0] == '^';
    if (neg) {
        name++;
        len--;
    }
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        if (strlen(all[k]) == len && !memcmp(all[k], name, len)) return neg ? 0 : (int)ALL_DIGITS;
    for (size_t k = 0; k < sizeof none / sizeof *none; k++)
        if (strlen(none[k]) == len && !memcmp(none[k], name, len)) return neg ? (int)ALL_DIGITS : 0;
    return -1;
}

/* One member of a class at p[k] (k < j, the class's ']'): a character (*c) or a set
 * (*set, *c = -1); false when this does not know it. */
static bool class_member(const char *p, size_t j, size_t *k, int *c, int *set)
{
    *set = 0;
    if (p[*k] == '[' && *k + 1 < j && p[*k + 1] == ':') {
        size_t s = *k + 2, e = s;
        while (e + 1 < j + 1 && !(p[e] == ':' && p[e + 1] == ']')) e++;
        if (e >= j) return false;
        *set = posix_set(p + s, e - s);
        *c = -1;
        *k = e + 2;
        return *set >= 0;
    }
    if (p[*k] != '\\') {
        *c = (unsigned char)p[*k];
        (*k)++;
        return true;
    }
    char e = *k + 1 < j ? p[*k + 1] : '\0';
    int s = escape_set(e);
    if (s >= 0 && e != 'N' && e != 'R') {
        *set = s;
        *c = -1;
        *k += 2;
        return true;
    }
    if (e == 'b') { /* a backspace, in a class */
        *c = 0x08;
        *k += 2;
        return true;
    }
    size_t end;
    *c = escape_char(p, j, *k, &end);
    *k = end;
    return *c >= 0;
}

/* The class at p[i] == '[': copied when it holds no digit or all ten, else made to take
 * '0' as well. */
static size_t klass(walker *w, size_t i)
{
    const char *p = w->p;
    size_t j = ldxi_re_class_end(p, w->n, i);
    if (j >= w->n) {
        give_up(w);
        return w->n;
    }
    size_t k = i + 1;
    bool neg = k < j && p[k] == '^';
    if (neg) k++;
    unsigned mask = 0;
    while (k < j) {
        int c, set;
        if (!class_member(p, j, &k, &c, &set)) {
            give_up(w);
            return j + 1;
        }
        if (c >= 0 && k + 1 < j && p[k] == '-') { /* a range c-hi */
            size_t h = k + 1;
            int hi, hset;
            if (!class_member(p, j, &h, &hi, &hset) || hi < 0) {
                give_up(w);
                return j + 1;
            }
            for (int d = '0'; d <= '9'; d++)
                if (d >= c && d <= hi) mask |= digit_bit(d);
            k = h;
            continue;
        }
        mask |= c >= 0 ? digit_bit(c) : (unsigned)set;
    }
    if (neg) mask = ~mask & ALL_DIGITS;
    if (mask == 0 || mask == ALL_DIGITS) {
        put(w, p + i, j + 1 - i);
    } else {
        w->blind = false;
        put(w, "(?:", 3);
        put(w, p + i, j + 1 - i);
        put(w, "|0)", 3);
    }
    return w->collapse && mask ? relax(w, j + 1) : j + 1;
}

static size_t escape(walker *w, size_t i)
{
    const char *p = w->p;
    char e = i + 1 < w->n ? p[i + 1] : '\0';
    if (e == 'Q') { /* quoted text, up to \E */
        size_t k = i + 2;
        put(w, "\\Q", 2);
        for (; k < w->n && !(p[k] == '\\' && k + 1 < w->n && p[k + 1] == 'E'); k++) {
            if (p[k] >= '0' && p[k] <= '9') {
                w->blind = false;
                /* a group, so that a quantifier after the quote ("\Q3\E*") has an item to repeat */
                put(w, w->collapse ? "\\E(?:0?)\\Q" : "0", w->collapse ? 10 : 1);
            } else {
                put(w, p + k, 1);
            }
        }
        put(w, "\\E", 2);
        return k < w->n ? k + 2 : w->n;
    }
    if (e == 'E') { /* a stray \E means nothing */
        keep_apart(w, i + 2);
        return i + 2;
    }
    if (escape_set(e) >= 0 || (e && strchr("bBAzZGK", e))) {
        if (e == 'N' && i + 2 < w->n && p[i + 2] == '{') { /* \N{U+..} */
            give_up(w);
            return w->n;
        }
        if (w->collapse && e == 'B') { /* inside a run of digits, which collapses */
            put(w, "(?:)", 4);
            return i + 2;
        }
        put(w, p + i, 2);
        return w->collapse && escape_set(e) > 0 ? relax(w, i + 2) : i + 2;
    }
    size_t end;
    int c = escape_char(p, w->n, i, &end);
    if (c < 0) { /* back references, \g, \k, \p, \X, \C, unknown letters */
        give_up(w);
        return w->n;
    }
    if (c >= '0' && c <= '9') {
        w->blind = false;
        put(w, "0", 1);
        return w->collapse ? relax(w, end) : end;
    }
    put(w, p + i, end - i);
    return end;
}

/* A quantifier's braces at p[i] == '{' ({2}, {2,}, {2,5}) are copied; any other '{'
 * is a literal brace. */
static size_t brace(walker *w, size_t i)
{
    const char *p = w->p;
    size_t k = i + 1, d0 = k;
    while (k < w->n && p[k] >= '0' && p[k] <= '9') k++;
    bool quant = k > d0;
    if (quant && k < w->n && p[k] == ',') {
        k++;
        while (k < w->n && p[k] >= '0' && p[k] <= '9') k++;
    }
    if (quant && k < w->n && p[k] == '}') {
        put(w, p + i, k + 1 - i);
        /* possessive, made greedy (which matches more) */
        return w->collapse && k + 1 < w->n && p[k + 1] == '+' ? k + 2 : k + 1;
    }
    put(w, "{", 1);
    return i + 1;
}

static size_t sequence(walker *w, size_t i, int depth);

/* The group at p[i] == '('. */
static size_t group(walker *w, size_t i, int depth)
{
    const char *p = w->p;
    size_t n = w->n, body;
    bool negative = false, look = false;
    if (depth >= MAX_DEPTH || i + 1 >= n || p[i + 1] == '*') { /* (*VERB) */
        give_up(w);
        return n;
    }
    if (p[i + 1] != '?') {
        body = i + 1;
    } else {
        char c = i + 2 < n ? p[i + 2] : '\0', c3 = i + 3 < n ? p[i + 3] : '\0';
        if (c == '#') { /* a comment */
            size_t k = i + 3;
            while (k < n && p[k] != ')') k++;
            if (k >= n) return n;
            keep_apart(w, k + 1);
            return k + 1;
        }
        if (c == '>' && w->collapse) {
            /* atomic: what it holds on to differs in a collapsed line; a plain group
             * matches wherever it does, and more */
            put(w, "(?:", 3);
            size_t e = sequence(w, i + 3, depth + 1);
            if (e >= n) {
                give_up(w);
                return n;
            }
            put(w, ")", 1);
            return e + 1;
        }
        if (c == ':' || c == '|' || c == '>' || c == '=') {
            body = i + 3;
            look = c == '=';
        } else if (c == '!') {
            body = i + 3;
            negative = true;
        } else if (c == '<' && (c3 == '=' || c3 == '!')) {
            body = i + 4;
            negative = c3 == '!';
            look = true;
        } else if (c == '<' || c == '\'' || (c == 'P' && c3 == '<')) { /* a named group */
            char close = c == '\'' ? '\'' : '>';
            size_t k = i + (c == 'P' ? 4 : 3);
            /* a name is a word; anything else ((?<* , a non-atomic lookbehind) is not
             * a group this knows */
            while (k < n && p[k] != close && (p[k] == '_' || (p[k] >= '0' && p[k] <= '9') ||
                                              ((p[k] | 0x20) >= 'a' && (p[k] | 0x20) <= 'z')))
                k++;
            if (k >= n || p[k] != close) {
                give_up(w);
                return n;
            }
            body = k + 1;
        } else {
            /* options: (?i) (?-i) (?i: ...); anything else ((?(, (?R), (?1), (?&n),
             * (?P=n), (?C) is given up */
            size_t k = i + 2;
            while (k < n && p[k] && strchr("imnsJU-^", p[k])) k++;
            if (k == i + 2 || k >= n || (p[k] != ')' && p[k] != ':')) {
                give_up(w);
                return n;
            }
            if (p[k] == ')') {
                put(w, p + i, k + 1 - i);
                return k + 1;
            }
            body = k + 1;
        }
    }
    if (w->collapse && (look || negative)) {
        /* a lookaround looks at a place, and places inside a run of digits collapse:
         * dropped (a group that always matches, keeping a quantifier in place) */
        walker sub = {p, n, NULL, 0, 0, true, false, true};
        size_t e = sequence(&sub, body, depth + 1);
        if (sub.fail || e >= n) {
            give_up(w);
            return n;
        }
        if (!sub.blind) w->blind = false;
        put(w, "(?:)", 4);
        return e + 1;
    }
    if (negative) {
        /* what it looks at is analysed on its own: kept whole if it cannot tell digits
         * apart; dropped otherwise (an empty group keeps a quantifier after it in
         * place), since widening what must not match would narrow the whole */
        walker sub = {p, n, NULL, 0, 0, true, false, false};
        size_t e = sequence(&sub, body, depth + 1);
        if (sub.fail || e >= n) {
            give_up(w);
            return n;
        }
        if (sub.blind) {
            put(w, p + i, e + 1 - i);
        } else {
            w->blind = false;
            put(w, "(?:)", 4);
        }
        return e + 1;
    }
    put(w, p + i, body - i);
    size_t e = sequence(w, body, depth + 1);
    if (e >= n) {
        give_up(w);
        return n;
    }
    put(w, ")", 1);
    return e + 1;
}

/* Walks p[i..) up to the ')' that closes the enclosing group (its index) or the end. */
static size_t sequence(walker *w, size_t i, int depth)
{
    const char *p = w->p;
    while (i < w->n && !w->fail) {
        char c = p[i];
        if (c == ')') return i;
        if (c == '\\') {
            i = escape(w, i);
        } else if (c == '[') {
            i = klass(w, i);
        } else if (c == '(') {
            i = group(w, i, depth);
        } else if (c == '{') {
            i = brace(w, i);
        } else if (c >= '0' && c <= '9') {
            w->blind = false;
            put(w, "0", 1);
            i = w->collapse ? relax(w, i + 1) : i + 1;
        } else if (c == '.' && w->collapse) {
            put(w, ".", 1);
            i = relax(w, i + 1);
        } else if (w->collapse && (c == '+' || c == '?' || c == '*') && i + 1 < w->n && p[i + 1] == '+') {
            put(w, p + i, 1); /* possessive, made greedy (which matches more) */
            i += 2;
        } else {
            put(w, p + i, 1);
            i++;
        }
    }
    return w->n;
}

static void walk(walker *w)
{
    size_t e = sequence(w, 0, 0);
    if (e < w->n) give_up(w); /* an unmatched ')' */
}

bool ldxi_re_digit_blind(const char *pattern)
{
    walker w = {pattern, strlen(pattern), NULL, 0, 0, true, false, false};
    walk(&w);
    return w.blind && !w.fail;
}

static char *widen(const char *expr, bool collapse)
{
    walker w = {expr, strlen(expr), NULL, 0, 0, true, false, collapse};
    if (ldxi_grow((void **)&w.out, &w.cap, 1, 1) != LDX_OK) return NULL;
    w.out[0] = '\0';
    walk(&w);
    if (w.fail) {
        free(w.out);
        return NULL;
    }
    return w.out;
}

char *ldxi_re_widen_digits(const char *expr) { return widen(expr, false); }

char *ldxi_re_collapse_digits(const char *expr) { return widen(expr, true); }
