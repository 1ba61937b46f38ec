/* The recorder (scan layer, below both engines): what a hit leaves in a signal's state
 * (count, ranks, numbers, the first hits and the latest one as evidence) and in its
 * rule's sequence trackers. The engines call it in input order, line by line, rule by
 * rule; it calls nothing above it, only the line's structure (structure.c), the number
 * series (numstat.c) and display text (text.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scan_int.h"

static void free_hit(ldxi_hit *h, size_t ncaps)
{
    free(h->text);
    if (h->caps)
        for (size_t i = 0; i < ncaps; i++) free(h->caps[i]);
    free(h->caps);
    memset(h, 0, sizeof(*h));
}

void ldxi_sigstate_clear(ldxi_sigstate *ss, size_t ncaps)
{
    for (uint32_t h = 0; h < ss->nfirst; h++) free_hit(&ss->first[h], ncaps);
    free(ss->first);
    free(ss->rankbits);
    if (ss->has_last) free_hit(&ss->last, ncaps);
    free(ss->pend_ov);
    free(ss->raw);
    free(ss->nums);
    memset(ss, 0, sizeof(*ss));
}

/* Sequences: a hit of signal k moves every tracker of the rule that watches k. The
 * window of then() is checked against the latest hit of a, so "b within N after some
 * a" is counted exactly without keeping a history. li is the line's structure, NULL
 * where no tracker of the rule has a window in seconds. */
static void track(ldx_scanner *s, const ldxi_rule *r, size_t i, size_t k, uint64_t lineno,
                  const ldxi_line_info *li)
{
    for (size_t t = 0; t < r->ntrackers; t++) {
        const ldxi_tracker *tr = &r->trackers[t];
        ldxi_trackstate *ts = &s->trk[i][t];
        if ((size_t)tr->b == k) {
            if (tr->kind == LDXI_F_AFTER) {
                ts->count++;
            } else if (ts->last_a_line) {
                bool in;
                if (tr->seconds)
                    in = li->ts_kind != LDX_TS_NONE && li->ts_kind == ts->last_a_kind &&
                         li->ts >= ts->last_a_ts && li->ts - ts->last_a_ts <= tr->window;
                else
                    in = (double)(lineno - ts->last_a_line) <= tr->window;
                ts->count += in;
            }
        }
        if ((size_t)tr->a == k) {
            ts->last_a_line = lineno;
            ts->last_a_kind = li ? li->ts_kind : LDX_TS_NONE;
            ts->last_a_ts = li ? li->ts : 0;
            if (tr->kind == LDXI_F_AFTER) ts->count = 0;
        }
    }
}

/* A hit's evidence text: the line's start, or, when its captures lie past what that
 * keeps, the part of the line from a little before them, so that a report never shows a
 * long line without the numbers the rule read from it. */
static char *evidence_text(const ldxi_sigc *sc, const char *text, size_t len, const size_t *ov)
{
    size_t lo = SIZE_MAX, hi = 0;
    for (size_t c = 0; c < sc->ncaps; c++)
        if (ov[2 * c] != SIZE_MAX) {
            if (ov[2 * c] < lo) lo = ov[2 * c];
            if (ov[2 * c + 1] > hi) hi = ov[2 * c + 1];
        }
    if (lo == SIZE_MAX || hi + 3 <= LDXI_EV_TEXT) return ldx_display_text(text, len, LDXI_EV_TEXT);
    size_t a = lo > LDXI_EV_LEAD ? lo - LDXI_EV_LEAD : 0;
    if (hi - a + 6 > LDXI_EV_TEXT) a = lo;
    while (a > 0 && ((unsigned char)text[a] & 0xc0) == 0x80) a--; /* a character's start */
    char *t = ldx_display_text(text + a, len - a, LDXI_EV_TEXT - 3);
    if (!t || a == 0) return t;
    size_t n = strlen(t);
    char *out = malloc(n + 4);
    if (out) {
        memcpy(out, "...", 3);
        memcpy(out + 3, t, n + 1);
    }
    free(t);
    return out;
}

/* Copies a hit's text and captures (ov: 2 offsets per capture, SIZE_MAX when unset). */
static void fill_hit(ldxi_hit *h, const ldxi_sigc *sc, const char *text, size_t len,
                     const size_t *ov, const ldxi_line_info *li)
{
    h->info = *li;
    h->text = evidence_text(sc, text, len, ov);
    h->caps = NULL;
    if (!sc->ncaps) return;
    h->caps = calloc(sc->ncaps, sizeof(char *));
    for (size_t c = 0; h->caps && c < sc->ncaps; c++)
        if (ov[2 * c] != SIZE_MAX)
            h->caps[c] = ldx_display_text(text + ov[2 * c], ov[2 * c + 1] - ov[2 * c], LDXI_CAP_TEXT);
}

/* A pending last hit made: its text, captures and line structure. Signals that last
 * hit the same line share one parse of it (*parsed, li). */
static void make_last(ldxi_sigstate *ss, size_t ncaps, const char **parsed, ldxi_line_info *li)
{
    ldxi_sigc sc = {.ncaps = ncaps};
    if (ss->pend_text != *parsed) {
        ldxi_linectx lc = {.ranked = true, .rank = ss->last.rank};
        ldxi_linectx_parse(&lc, ss->pend_text, ss->pend_len);
        *li = lc.li;
        *parsed = ss->pend_text;
    }
    fill_hit(&ss->last, &sc, ss->pend_text, ss->pend_len, ss->pend_ov, li);
    ss->last_pending = ss->pend_owned = false;
}

/* Lines up to this long are kept as bytes until the results are asked for: a busy
 * signal's last hit changes with every batch, and making each one (a display copy, its
 * captures, the line parsed) cost more than the matching of the lines that led to it. */
#define RAW_MAX 4096

void ldxi_scan_materialize(ldx_scanner *s)
{
    const char *parsed = NULL;
    ldxi_line_info li;
    size_t keep = 0;
    for (size_t i = 0; i < s->npend; i++) {
        ldxi_sigstate *ss = s->pend[i].ss;
        if (!ss->last_pending) continue;
        if (!ss->pend_owned) {
            if (ss->pend_len <= RAW_MAX &&
                ldxi_grow((void **)&ss->raw, &ss->rawcap, ss->pend_len ? ss->pend_len : 1, 1) == LDX_OK) {
                memcpy(ss->raw, ss->pend_text, ss->pend_len);
                ss->pend_text = ss->raw;
                ss->pend_owned = true;
            } else {
                make_last(ss, s->pend[i].ncaps, &parsed, &li);
                continue;
            }
        }
        s->pend[keep++] = s->pend[i]; /* still pending, on its own bytes */
    }
    s->npend = keep;
}

void ldxi_scan_settle(ldx_scanner *s)
{
    const char *parsed = NULL;
    ldxi_line_info li;
    for (size_t i = 0; i < s->npend; i++)
        if (s->pend[i].ss->last_pending) make_last(s->pend[i].ss, s->pend[i].ncaps, &parsed, &li);
    s->npend = 0;
}

static void record(ldx_scanner *s, const ldxi_sigc *sc, ldxi_sigstate *ss, const char *text,
                   size_t len, uint64_t lineno, ldxi_linectx *lc, const size_t *co,
                   const double *vals)
{
    ldxi_linectx_rank(lc, text, len);
    int rank = lc->rank;
    ss->count++;
    if (rank >= 0 && rank < LDXI_RANK_BITS &&
        (ss->rankbits || (ss->rankbits = calloc(LDXI_RANK_BITS / 64, sizeof(uint64_t))))) {
        uint64_t bit = (uint64_t)1 << (rank % 64);
        if (!(ss->rankbits[rank / 64] & bit)) {
            ss->rankbits[rank / 64] |= bit;
            ss->nranks++;
        }
    }
    if (sc->ncaps) {
        if (!ss->nums) ss->nums = calloc(sc->ncaps, sizeof(ldxi_numstat));
        for (size_t c = 0; ss->nums && c < sc->ncaps; c++) {
            if (co[2 * c] == SIZE_MAX) continue;
            double v;
            if (vals ? !isnan(v = vals[c])
                     : ldxi_scan_numbered(s, sc, c) &&
                           ldxi_parse_quantity(text + co[2 * c], co[2 * c + 1] - co[2 * c], &v))
                ldxi_numstat_add(&ss->nums[c], rank, ldxi_linectx_step(lc, text, len), v,
                                 sc->numbered && (sc->numbered[c] & LDXI_NUM_JUMP));
        }
    }
    if (ss->nfirst < LDXI_EV_FIRST &&
        (ss->first || (ss->first = calloc(LDXI_EV_FIRST, sizeof(ldxi_hit))))) {
        ldxi_hit *h = &ss->first[ss->nfirst++];
        ldxi_linectx_parse(lc, text, len);
        h->line = lineno;
        h->rank = rank;
        fill_hit(h, sc, text, len, co, &lc->li);
    } else {
        /* the latest hit: keep where it is, copy it when the batch is done */
        if (ss->has_last && !ss->last_pending) free_hit(&ss->last, sc->ncaps);
        if (!ss->pend_ov && sc->ncaps) ss->pend_ov = calloc(2 * sc->ncaps, sizeof(size_t));
        if (!ss->last_pending &&
            (ldxi_grow((void **)&s->pend, &s->pendcap, s->npend + 1, sizeof(*s->pend)) != LDX_OK ||
             (sc->ncaps && !ss->pend_ov))) {
            /* no room to defer: copy now */
            ldxi_linectx_parse(lc, text, len);
            ss->last.line = lineno;
            ss->last.rank = rank;
            fill_hit(&ss->last, sc, text, len, co, &lc->li);
            ss->has_last = true;
        } else {
            if (!ss->last_pending)
                s->pend[s->npend++] = (struct ldxi_pending){ss, (uint32_t)sc->ncaps};
            ss->last_pending = true;
            ss->pend_owned = false;
            ss->has_last = true;
            ss->last.line = lineno;
            ss->last.rank = rank;
            ss->pend_text = text;
            ss->pend_len = len;
            if (sc->ncaps) memcpy(ss->pend_ov, co, 2 * sc->ncaps * sizeof(size_t));
        }
    }
}

void ldxi_scan_hit(ldx_scanner *s, size_t i, size_t k, const ldxi_sigc *sc, const char *text,
                   size_t len, uint64_t lineno, ldxi_linectx *lc, const size_t *co,
                   const double *vals)
{
    record(s, sc, &s->st[i][k], text, len, lineno, lc, co, vals);
    ldxi_scan_track(s, i, k, text, len, lineno, lc);
}

void ldxi_scan_track(ldx_scanner *s, size_t i, size_t k, const char *text, size_t len,
                     uint64_t lineno, ldxi_linectx *lc)
{
    /* the rule itself only where it counts sequences (trk[i], allocated for those): a
     * hit of a large rule set would otherwise reach into memory the caches lost */
    if (s->trk[i]) {
        /* a window in lines needs only the line number: the line's time is read only for
         * rules with a window in seconds (parsing every hit line cost 6% of a scan) */
        const ldxi_rule *r = s->rs->rules[i];
        if (r->trackers_timed) ldxi_linectx_parse(lc, text, len);
        track(s, r, i, k, lineno, r->trackers_timed ? &lc->li : NULL);
    }
}
