/* The fixed strings every match of a pattern must contain, as a few sets of which each
 * must have a member on the line: a gate in front of PCRE2. The prefilter hands PCRE2
 * a line for the one part of a pattern it was given (pform.c keeps the most selective
 * literal, "Error:" of `(?:Error|Exception):[^\n]{0,120}?\b(?:nan|inf)\b[^\n]{0,60}loss`),
 * and on a log where that part is common PCRE2 rejects nearly every such line, each at
 * the cost of a full match attempt. A few memmem calls for the other parts ("loss", one
 * of "nan"/"inf") reject those lines for a fraction of it.
 *
 * The walk is conservative: what it cannot read exactly (back references, conditionals,
 * recursion, extended mode, \Q..\E) gives no gate, a piece it does not understand
 * breaks the run of text around it, and caseless matching anywhere in the pattern makes
 * every string caseless (ASCII only; a caseless run stops at a byte past ASCII). A
 * string that is a prefix of a required one is required too, so long ones are cut. */
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "ruleset_int.h"

#define REQ_DEPTH 12   /* deeper groups give nothing */
#define REQ_CANDS 24   /* required sets kept while walking */
#define REQ_MIN 3      /* a string shorter than this filters too little to be worth a gate */

typedef struct {
    ldxi_reqset c[REQ_CANDS];
    size_t n;
} reqlist;

typedef struct {
    const char *p;
    bool ci;
    bool fail;
} rwalk;

/* A set's worth as a filter: its shortest string (longer strings are rarer), less for
 * more members. */
static int score(const ldxi_reqset *s)
{
    if (!s->n) return -1;
    int m = LDXI_REQ_MAX;
    for (size_t i = 0; i < s->n; i++)
        if (s->len[i] < m) m = s->len[i];
    return m * 4 - (int)s->n;
}

static void add_set(reqlist *l, const ldxi_reqset *s)
{
    if (!s->n) return;
    if (l->n < REQ_CANDS) {
        l->c[l->n++] = *s;
        return;
    }
    size_t worst = 0; /* full: the new one replaces the weakest, if it is better */
    for (size_t i = 1; i < l->n; i++)
        if (score(&l->c[i]) < score(&l->c[worst])) worst = i;
    if (score(s) > score(&l->c[worst])) l->c[worst] = *s;
}

/* The run of fixed text read so far, ended: a set of its own when long enough. */
static void flush(reqlist *l, char *run, size_t *nrun)
{
    if (*nrun >= REQ_MIN) {
        ldxi_reqset s = {0};
        s.n = 1;
        s.len[0] = (uint8_t)(*nrun < LDXI_REQ_MAX ? *nrun : LDXI_REQ_MAX);
        memcpy(s.s[0], run, s.len[0]);
        add_set(l, &s);
    }
    *nrun = 0;
}

static bool is_quant(const char *p, size_t n, size_t i)
{
    if (i >= n) return false;
    if (p[i] == '?' || p[i] == '*' || p[i] == '+') return true;
    if (p[i] != '{') return false;
    size_t j = i + 1, digits = 0;
    while (j < n && p[j] >= '0' && p[j] <= '9') j++, digits++;
    if (j < n && p[j] == ',') {
        j++;
        while (j < n && p[j] >= '0' && p[j] <= '9') j++;
    }
    return digits && j < n && p[j] == '}';
}

/* A quantifier at p[i] lets its atom be absent: ?, *, {0...}. */
static bool optional_at(const char *p, size_t n, size_t i)
{
    return i < n && (p[i] == '?' || p[i] == '*' || (p[i] == '{' && i + 1 < n && p[i + 1] == '0' && is_quant(p, n, i)));
}

/* Past the quantifier at p[i] (with its lazy or possessive mark), or i if none. */
static size_t quant_end(const char *p, size_t n, size_t i)
{
    if (!is_quant(p, n, i)) return i;
    if (p[i] == '{') {
        while (i < n && p[i] != '}') i++;
        i++;
    } else {
        i++;
    }
    if (i < n && (p[i] == '?' || p[i] == '+')) i++;
    return i;
}

static ldxi_reqset alternatives(rwalk *w, const char *p, size_t n, int depth, reqlist *out);

/* A sequence p[0..n): the sets every match of it requires, added to out. */
static void sequence(rwalk *w, const char *p, size_t n, int depth, reqlist *out)
{
    char run[LDXI_REQ_MAX];
    size_t nrun = 0, i = 0;
    while (i < n && !w->fail) {
        unsigned char c = (unsigned char)p[i];
        if (c == '(') {
            size_t end = ldxi_re_group_end(p, n, i);
            if (!end) {
                w->fail = true;
                return;
            }
            size_t body = i + 1, close = end - 1;
            bool skip = false;
            if (body < close && p[body] == '*') {
                skip = true; /* (*VERB) */
            } else if (body < close && p[body] == '?') {
                char d = body + 1 < close ? p[body + 1] : 0, e = body + 2 < close ? p[body + 2] : 0;
                if (d == ':' || d == '>' || d == '|') {
                    body += 2;
                } else if (d == '=' || d == '!' || (d == '<' && (e == '=' || e == '!')) || d == '#') {
                    skip = true; /* lookaround, comment: no text of the match's own */
                } else if ((d == '<' && e != '=' && e != '!') || (d == 'P' && e == '<') || d == '\'') {
                    while (body < close && p[body] != '>' && !(p[body] == '\'' && body > i + 2)) body++;
                    body++; /* a named group: its body */
                } else if ((d >= 'a' && d <= 'z') || d == '-' || d == '^' || (d >= 'A' && d <= 'Z')) {
                    /* options, (?i) or (?i:...): read before the walk (ci); a group of them is
                     * walked as a group */
                    size_t k = body + 1;
                    while (k < close && p[k] != ':' && p[k] != ')') k++;
                    if (k < close && p[k] == ':') body = k + 1;
                    else skip = true;
                } else {
                    w->fail = true; /* conditionals, recursion, callouts */
                    return;
                }
            }
            size_t q = end;
            flush(out, run, &nrun);
            i = quant_end(p, n, q);
            if (skip || optional_at(p, n, q) || depth >= REQ_DEPTH || body >= close) continue;
            reqlist in;
    in.n = 0;
            ldxi_reqset one = alternatives(w, p + body, close - body, depth + 1, &in);
            if (in.n) {
                for (size_t k = 0; k < in.n; k++) add_set(out, &in.c[k]);
            } else if (one.n) {
                add_set(out, &one);
            }
            continue;
        }
        if (c == ')' || c == '|') { /* alternatives() splits at the top level: a stray one */
            w->fail = true;
            return;
        }
        size_t unit = 1; /* the bytes of the atom: a character, or an escaped one */
        char lit[4];
        size_t nlit = 0;
        if (c == '\\') {
            char e = i + 1 < n ? p[i + 1] : 0;
            if (e == 'Q' || e == 'E' || (e >= '1' && e <= '9') || e == 'g' || e == 'k') {
                w->fail = true; /* quoting, back references */
                return;
            }
            size_t after = ldxi_re_escape_end(p, n, i);
            if (e && !((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9')) &&
                (unsigned char)e < 0x80) {
                lit[nlit++] = e; /* \. \( \- \/ \': the character itself */
            }
            unit = after - i;
        } else if (c == '[') {
            unit = ldxi_re_class_end(p, n, i) + 1 - i;
        } else if (c == '.' || c == '^' || c == '$' || c == '{') {
            unit = 1; /* a '{' no quantifier follows: text to PCRE2 10.42, a quantifier
                       * ({,3}) to 10.43: neither way required here */
        } else if (c >= 0x80) {
            size_t k = ldxi_utf8_seq((const unsigned char *)p + i, n - i);
            unit = k ? k : 1;
            if (k && !w->ci) {
                memcpy(lit, p + i, k);
                nlit = k;
            }
        } else {
            lit[nlit++] = (char)c;
        }
        size_t q = i + unit;
        i = quant_end(p, n, q);
        if (!nlit || optional_at(p, n, q)) {
            flush(out, run, &nrun);
            continue;
        }
        bool repeated = is_quant(p, n, q); /* +, {2,}: there, but not next to itself */
        for (size_t k = 0; k < nlit; k++) {
            if (nrun == LDXI_REQ_MAX) flush(out, run, &nrun); /* a prefix is required too */
            run[nrun++] = lit[k];
        }
        if (repeated) { /* the last of the repeats is next to what follows */
            flush(out, run, &nrun);
            memcpy(run, lit, nlit);
            nrun = nlit;
        }
    }
    flush(out, run, &nrun);
}

/* The alternatives of p[0..n): with one, its sets go to out; with more, what every match
 * requires is one of their best sets' strings, returned as one set (none when an
 * alternative requires nothing, or the members would be too many). */
static ldxi_reqset alternatives(rwalk *w, const char *p, size_t n, int depth, reqlist *out)
{
    ldxi_reqset all = {0};
    size_t start = 0, nalt = 0;
    int level = 0;
    bool none = false;
    for (size_t i = 0; i <= n && !w->fail; i++) {
        if (i < n && p[i] == '\\') {
            i = ldxi_re_escape_end(p, n, i) - 1;
            continue;
        }
        if (i < n && p[i] == '[') {
            i = ldxi_re_class_end(p, n, i);
            continue;
        }
        if (i < n && p[i] == '(') level++;
        if (i < n && p[i] == ')') level--;
        if (i < n && (p[i] != '|' || level > 0)) continue;
        reqlist l;
    l.n = 0;
        sequence(w, p + start, i - start, depth, &l);
        nalt++;
        if (nalt == 1 && i == n) { /* the only one */
            for (size_t k = 0; k < l.n; k++) add_set(out, &l.c[k]);
            return all;
        }
        size_t best = 0;
        for (size_t k = 1; k < l.n; k++)
            if (score(&l.c[k]) > score(&l.c[best])) best = k;
        if (!l.n || all.n + l.c[best].n > LDXI_REQ_ALTS) {
            none = true;
        } else {
            for (size_t k = 0; k < l.c[best].n; k++) {
                all.len[all.n] = l.c[best].len[k];
                memcpy(all.s[all.n++], l.c[best].s[k], l.c[best].len[k]);
            }
        }
        start = i + 1;
    }
    if (none || w->fail) all.n = 0;
    return all;
}

/* Whether caseless matching is asked for anywhere: (?i), (?i:...), (?mi-s) and the like.
 * Extended mode ((?x): blanks are no text) and its kin are refused (*fail). */
static bool caseless_in(const char *p, bool *fail)
{
    bool ci = false;
    size_t n = strlen(p);
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\\') {
            i = ldxi_re_escape_end(p, n, i) - 1;
            continue;
        }
        if (p[i] == '[') {
            i = ldxi_re_class_end(p, n, i);
            continue;
        }
        if (p[i] != '(' || i + 1 >= n || p[i + 1] != '?') continue;
        for (size_t k = i + 2; k < n && p[k] != ':' && p[k] != ')'; k++) {
            if (p[k] == '-') break; /* options switched off: none of them adds text */
            if (p[k] == 'i') ci = true;
            else if (p[k] == 'x') *fail = true;
            else if (!(p[k] >= 'a' && p[k] <= 'z') && !(p[k] >= 'A' && p[k] <= 'Z') && p[k] != '^') break;
        }
    }
    return ci;
}

ldxi_req *ldxi_required_literals(const char *pattern, bool caseless)
{
    rwalk w = {pattern, caseless, false};
    w.ci = caseless_in(pattern, &w.fail) || caseless;
    /* Unicode matching folds more than ASCII (a caseless k is also U+212A) */
    if (strstr(pattern, "(*UTF") || strstr(pattern, "(*UCP")) return NULL;
    if (w.fail) return NULL;
    reqlist l;
    l.n = 0;
    ldxi_reqset one = alternatives(&w, pattern, strlen(pattern), 0, &l);
    if (w.fail) return NULL;
    if (one.n) add_set(&l, &one);
    if (!l.n) return NULL;
    ldxi_req *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->ci = w.ci;
    /* the best few, by worth (every string in them is REQ_MIN long at least: flush()) */
    bool used[REQ_CANDS] = {false};
    while (r->nsets < LDXI_REQ_SETS) {
        long best = -1;
        for (size_t i = 0; i < l.n; i++)
            if (!used[i] && (best < 0 || score(&l.c[i]) > score(&l.c[best]))) best = (long)i;
        if (best < 0) break;
        used[best] = true;
        r->set[r->nsets++] = l.c[best];
    }
    return r;
}

bool ldxi_req_pass(const ldxi_req *r, const char *text, size_t len)
{
    for (size_t k = 0; k < r->nsets; k++) {
        const ldxi_reqset *s = &r->set[k];
        bool found = false;
        for (size_t i = 0; i < s->n && !found; i++)
            found = r->ci ? ldxi_memcasemem(text, len, s->s[i], s->len[i]) != NULL
                          : ldxi_memmem(text, len, s->s[i], s->len[i]) != NULL;
        if (!found) return false;
    }
    return true;
}
