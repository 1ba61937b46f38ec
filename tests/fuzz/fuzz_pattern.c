/* Fuzz target: what the prefilter makes of a pattern (src/rules/literal.c, pform.c): the
 * required-literal estimate, the cheaper form and the literal set. These read patterns
 * by hand, bracket by bracket, so a malformed one must not take them out of bounds (a
 * rule's pattern is checked by PCRE2 first, but they are called on user text).
 * Invariants: a form is made of parts of the pattern, so it is no longer than it; and
 * the form of a pattern PCRE2 accepts is one PCRE2 accepts too. Stripping anchors
 * shortens a pattern, and one PCRE2 accepts has none left to strip a second time. A
 * subject the pattern matches (the bytes after a NUL, or the pattern's own text) holds
 * one of the strings of its literal set, and the form and the anchor-free pattern match
 * it too (PCRE2 standing in for Vectorscan: they must be supersets). The digit
 * rewrites, for templates and collapsed templates, keep their promises (check_digits). */
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "fuzz.h"
#include "rules/ruleset_int.h"

static unsigned char fold(unsigned char c) { return c >= 'A' && c <= 'Z' ? c | 0x20 : c; }

static bool holds(const char *t, size_t tn, const char *s, size_t n, bool ci)
{
    for (size_t i = 0; i + n <= tn; i++) {
        size_t k = 0;
        while (k < n && (ci ? fold((unsigned char)t[i + k]) == fold((unsigned char)s[k]) : t[i + k] == s[k])) k++;
        if (k == n) return true;
    }
    return false;
}

/* The literal set's promise, checked: a subject the pattern matches holds one of the
 * strings (the prefilter reports the line on any of them). */
static void check_strings(const char *p, const char *subject, size_t sn)
{
    ldxi_lits set;
    bool ci;
    if (!ldxi_literal_strings(p, &set, &ci)) return;
    int err;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)p, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
    if (!re) return;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    pcre2_set_match_limit(mc, 100000);
    if (md && mc && pcre2_match(re, (PCRE2_SPTR)subject, sn, 0, 0, md, mc) >= 0) {
        bool found = false;
        for (size_t j = 0; j < set.n && !found; j++) found = holds(subject, sn, set.s[j], set.len[j], ci);
        FUZZ_CHECK(found);
    }
    pcre2_match_context_free(mc);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
}

static bool compiles(const char *p)
{
    int err;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)p, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
    pcre2_code_free(re);
    return re != NULL;
}

/* PCRE2 on subject: 1 with the first match's ovector in ov (up to 8 pairs), 0 for no
 * match, -1 when it could not tell. */
static int match_at(pcre2_code *code, const char *subject, size_t sn, PCRE2_SIZE *ov, int *pairs)
{
    pcre2_match_data *md = pcre2_match_data_create(8, NULL);
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    int r = -1;
    if (md && mc) {
        pcre2_set_match_limit(mc, 100000);
        int m = pcre2_match(code, (PCRE2_SPTR)subject, sn, 0, 0, md, mc);
        r = m >= 0 ? 1 : m == PCRE2_ERROR_NOMATCH ? 0 : -1;
        *pairs = m > 0 ? m : m == 0 ? 8 : 0;
        if (r == 1) memcpy(ov, pcre2_get_ovector_pointer(md), 2 * (size_t)*pairs * sizeof *ov);
    }
    pcre2_match_context_free(mc);
    pcre2_match_data_free(md);
    return r;
}

/* 1: re matches subject; 0: it does not; -1: it could not tell (did not compile, or hit
 * the match limit). */
static int matches(const char *re, const char *subject, size_t sn)
{
    int err, pairs;
    PCRE2_SIZE off, ov[16];
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
    if (!code) return -1;
    int r = match_at(code, subject, sn, ov, &pairs);
    pcre2_code_free(code);
    return r;
}

/* What the prefilter is given instead of a pattern must find every subject the pattern
 * matches (a superset): checked with PCRE2 standing in for Vectorscan. */
static void check_superset(const char *p, const char *other, const char *subject, size_t sn)
{
    if (other && matches(p, subject, sn) == 1) FUZZ_CHECK(matches(other, subject, sn) != 0);
}

/* The template promises (digits.c): the widened pattern matches the template of every
 * subject the pattern matches, starting no later (the line memo starts PCRE2 there);
 * a digit-blind pattern matches a subject and its template alike, at the same offsets
 * (the line memo reuses one line's match for the other). */
static void check_digits(const char *p, const char *subject, size_t sn)
{
    int err;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)p, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
    if (!re) return;
    char *t = malloc(sn ? sn : 1);
    if (!t) {
        pcre2_code_free(re);
        return;
    }
    ldxi_digits_template(subject, sn, t);
    PCRE2_SIZE ov[16], tov[16];
    int pairs = 0, tpairs = 0;
    int m = match_at(re, subject, sn, ov, &pairs);
    char *wide = ldxi_re_widen_digits(p);
    pcre2_code *wre = wide ? pcre2_compile((PCRE2_SPTR)wide, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL) : NULL;
    FUZZ_CHECK(!wide || wre);
    if (wre && m == 1) {
        int wm = match_at(wre, t, sn, tov, &tpairs);
        FUZZ_CHECK(wm != 0);
        if (wm == 1) FUZZ_CHECK(tov[0] <= ov[0]);
    }
    if (ldxi_re_digit_blind(p)) {
        int tm = match_at(re, t, sn, tov, &tpairs);
        if (m >= 0 && tm >= 0) {
            FUZZ_CHECK(m == tm);
            if (m == 1) {
                FUZZ_CHECK(pairs == tpairs);
                FUZZ_CHECK(memcmp(ov, tov, 2 * (size_t)pairs * sizeof *ov) == 0);
            }
        }
    }
    pcre2_code_free(wre);
    free(wide);
    /* collapsed: the widening matches the subject's collapsed template (each run of
     * digits one '0') wherever the pattern matches the subject */
    char *cw = ldxi_re_collapse_digits(p);
    pcre2_code *cre = cw ? pcre2_compile((PCRE2_SPTR)cw, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL) : NULL;
    FUZZ_CHECK(!cw || cre);
    if (cre && m == 1) {
        size_t cn = ldxi_digits_collapse(subject, sn, t);
        FUZZ_CHECK(match_at(cre, t, cn, tov, &tpairs) != 0);
    }
    pcre2_code_free(cre);
    free(cw);
    pcre2_code_free(re);
    free(t);
}

/* A prefilter rewrite of p (NULL: none): no longer than p (shorter when shorter), compiling
 * where p does, and a superset of it on the subject. */
static void check_rewrite(const char *p, char *(*rewrite)(const char *), bool shorter,
                          const char *subject, size_t sn)
{
    char *r = rewrite(p);
    if (!r) return;
    FUZZ_CHECK(shorter ? strlen(r) < strlen(p) : strlen(r) <= strlen(p));
    if (compiles(p)) FUZZ_CHECK(compiles(r));
    check_superset(p, r, subject, sn);
    free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char *p = malloc(size + 1);
    if (!p) return 0;
    memcpy(p, data, size);
    p[size] = '\0'; /* a NUL inside ends the pattern early, as it would for a rule */
    size_t lit = ldxi_pattern_literal(p);
    FUZZ_CHECK(lit <= strlen(p));
    size_t pn = strlen(p);
    const char *subject = pn < size ? (const char *)data + pn + 1 : p;
    size_t sn = pn < size ? size - pn - 1 : pn;
    check_rewrite(p, ldxi_prefilter_form, false, subject, sn);
    check_rewrite(p, ldxi_trim_end, true, subject, sn);
    check_rewrite(p, ldxi_trim_start, true, subject, sn);
    check_rewrite(p, ldxi_widen_bounds, true, subject, sn);
    char *bare = ldxi_strip_anchors(p);
    check_superset(p, bare, subject, sn);
    if (bare) {
        FUZZ_CHECK(strlen(bare) < strlen(p));
        /* (in a pattern PCRE2 refuses, taking an anchor out can join what stood around
         * it into a new token, as `\\k^<[>^` becomes `\\k<[>` and a `^`) */
        char *again = compiles(p) ? ldxi_strip_anchors(bare) : NULL;
        FUZZ_CHECK(again == NULL);
        free(again);
    }
    free(bare);
    bool ci;
    free(ldxi_literal_set(p, &ci));
    /* the subject: what follows the pattern's NUL, or the pattern's own text; and that
     * text without the strings of the set (a match there means one was not required) */
    check_strings(p, subject, sn);
    check_digits(p, subject, sn);
    ldxi_lits set;
    if (ldxi_literal_strings(p, &set, &ci)) {
        char *t = malloc(pn + 1);
        if (t) {
            size_t tn = 0;
            for (size_t i = 0; i < pn;) {
                size_t cut = 0;
                for (size_t j = 0; j < set.n && !cut; j++)
                    if (set.len[j] && i + set.len[j] <= pn && holds(p + i, set.len[j], set.s[j], set.len[j], ci))
                        cut = set.len[j];
                if (cut) i += cut;
                else t[tn++] = p[i++];
            }
            check_strings(p, t, tn);
            free(t);
        }
    }
    free(p);
    return 0;
}
