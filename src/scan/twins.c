/* Twins: signals that record as one. A signal with the pattern, where and captures of
 * an earlier one (its head: a user's copy of a built-in rule, rules that share a
 * pattern) already takes the head's PCRE2 run and where answer on each line (match.c);
 * so it hits exactly the lines the head hits, and what the scanner would record for it
 * (counts, numbers, ranks, first and last hits) is what it records for the head. The
 * batch engine records the head only and hands the twin a copy of the head's state when
 * results are asked for (ldxi_twins_sync).
 *
 * The two part where one of them hits a line the other does not, which only a rule
 * over its time budget (switched off for the rest of the input, at a moment threads
 * decide) can make happen: the applying thread sees it in input order, on the first
 * such line (the head hits it without the twin, or the twin without the head), gives
 * the twin the head's state as it stood before that line, and records the twin on its
 * own from there (ldxi_twin_split). So a twin's state is always what recording it alone
 * would have made. */
#include <stdlib.h>
#include <string.h>

#include "scan_int.h"
#include "../rules/hsdb.h"

#ifdef LDX_HAVE_HS

/* Which signals are twins is the ruleset's (ldxi_hsdb.twin_of); a scanner keeps which
 * still are, and where their heads were last recorded. */
ldx_status ldxi_twins_init(ldx_scanner *s)
{
    const ldxi_hsdb *h = s->rs->hs;
    if (!h || !h->twin_of) return LDX_OK;
    s->twinned = calloc(h->nsig, 1);
    s->rec_line = calloc(h->nsig, sizeof *s->rec_line);
    if (!s->twinned || !s->rec_line) return LDX_ENOMEM;
    s->twin_of = h->twin_of;
    s->has_twins = h->has_twins;
    ldxi_twins_reset(s);
    return LDX_OK;
}

void ldxi_twins_reset(ldx_scanner *s)
{
    if (!s->twin_of) return;
    uint32_t n = s->rs->hs->nsig;
    for (uint32_t g = 0; g < n; g++) s->twinned[g] = s->twin_of[g] != LDXI_HS_IGNORE;
    memset(s->rec_line, 0, n * sizeof *s->rec_line);
    s->apply_seq = 0;
}

void ldxi_twins_free(ldx_scanner *s)
{
    free(s->twinned);
    free(s->rec_line);
    s->twin_of = NULL;
    s->twinned = NULL;
    s->has_twins = NULL;
    s->rec_line = NULL;
}

static ldxi_sigstate *state_of(ldx_scanner *s, uint32_t g)
{
    ldxi_sigref r = s->rs->hs->refs[g];
    return &s->st[r.rule][r.sig];
}

static char *dup_or_null(const char *p) { return p ? ldxi_strdup(p) : NULL; }

static bool copy_hit(ldxi_hit *d, const ldxi_hit *h, size_t ncaps)
{
    *d = *h;
    d->text = dup_or_null(h->text);
    d->caps = NULL;
    if (h->text && !d->text) return false;
    if (!h->caps) return true;
    if (!(d->caps = calloc(ncaps, sizeof(char *)))) return false;
    for (size_t c = 0; c < ncaps; c++)
        if (h->caps[c] && !(d->caps[c] = ldxi_strdup(h->caps[c]))) return false;
    return true;
}

/* d (cleared) takes a copy of h: what recording d's signal alone would have made. */
static bool copy_state(ldx_scanner *s, ldxi_sigstate *d, const ldxi_sigstate *h, size_t ncaps)
{
    d->count = h->count;
    d->nranks = h->nranks;
    if (h->first) {
        if (!(d->first = calloc(LDXI_EV_FIRST, sizeof(ldxi_hit)))) return false;
        for (uint32_t i = 0; i < h->nfirst; i++, d->nfirst++)
            if (!copy_hit(&d->first[i], &h->first[i], ncaps)) return false;
    }
    if (h->rankbits) {
        if (!(d->rankbits = malloc(LDXI_RANK_BITS / 8))) return false;
        memcpy(d->rankbits, h->rankbits, LDXI_RANK_BITS / 8);
    }
    if (h->nums) {
        if (!(d->nums = malloc(ncaps * sizeof(ldxi_numstat)))) return false;
        memcpy(d->nums, h->nums, ncaps * sizeof(ldxi_numstat));
    }
    if (!h->has_last) return true;
    if (!h->last_pending) {
        d->has_last = true;
        return copy_hit(&d->last, &h->last, ncaps);
    }
    /* a last hit not made yet: the same line, on its own bytes if the head's are */
    d->last.line = h->last.line;
    d->last.rank = h->last.rank;
    d->pend_text = h->pend_text;
    d->pend_len = h->pend_len;
    if (h->pend_owned) {
        if (ldxi_grow((void **)&d->raw, &d->rawcap, h->pend_len ? h->pend_len : 1, 1) != LDX_OK) return false;
        memcpy(d->raw, h->pend_text, h->pend_len);
        d->pend_text = d->raw;
    }
    if (ncaps) {
        if (!(d->pend_ov = malloc(2 * ncaps * sizeof(size_t)))) return false;
        memcpy(d->pend_ov, h->pend_ov, 2 * ncaps * sizeof(size_t));
    }
    if (LDXI_PUSH(s->pend, s->npend, s->pendcap, ((struct ldxi_pending){d, (uint32_t)ncaps})) != LDX_OK)
        return false;
    d->has_last = d->last_pending = true;
    d->pend_owned = h->pend_owned;
    return true;
}

/* Twin c's state becomes a copy of its head's (out of memory: empty). */
static void take_head(ldx_scanner *s, uint32_t c)
{
    size_t ncaps = s->rs->hs->refs[c].sc->ncaps;
    ldxi_sigstate *d = state_of(s, c);
    ldxi_sigstate_clear(d, ncaps);
    if (!copy_state(s, d, state_of(s, s->twin_of[c]), ncaps)) ldxi_sigstate_clear(d, ncaps);
}

void ldxi_twin_split(ldx_scanner *s, uint32_t c)
{
    take_head(s, c);
    s->twinned[c] = 0;
}

void ldxi_twins_split_all(ldx_scanner *s)
{
    if (!s->twin_of) return;
    for (uint32_t g = 0; g < s->rs->hs->nsig; g++)
        if (s->twinned[g]) ldxi_twin_split(s, g);
}

void ldxi_twins_sync(ldx_scanner *s)
{
    if (!s->twin_of) return;
    for (uint32_t g = 0; g < s->rs->hs->nsig; g++)
        if (s->twinned[g]) take_head(s, g);
}

#else

ldx_status ldxi_twins_init(ldx_scanner *s)
{
    (void)s;
    return LDX_OK;
}
void ldxi_twins_reset(ldx_scanner *s) { (void)s; }
void ldxi_twins_free(ldx_scanner *s) { (void)s; }
void ldxi_twin_split(ldx_scanner *s, uint32_t c)
{
    (void)s;
    (void)c;
}
void ldxi_twins_split_all(ldx_scanner *s) { (void)s; }
void ldxi_twins_sync(ldx_scanner *s) { (void)s; }

#endif
