/* The batch engine: the prefilter in front of PCRE2, the line memo, and the threads
 * that share one input.
 *
 * Whole lines are copied into a batch as they came (runs of them, from the reader's
 * blocks). A full batch is matched: it is cut into lines (ANSI escapes removed), each
 * line's template made (memo.c); a line whose template the memo knows takes what the
 * template's first line matched. Vectorscan scans the other lines once for every
 * pattern (a superset of their matches), and PCRE2 runs only on the (line, signal)
 * pairs that hit, keeping what matched and where its captures are; the memo keeps it
 * for the template. Matching touches nothing but the batch and the thread's own memo,
 * so batches are matched by worker threads side by side (`-j` on one file); then each is
 * applied to the scanner's state on the calling thread, strictly in input order,
 * exactly as the plain engine would have recorded the lines one by one. Results do not
 * depend on the number of threads. This file fills, hands out and applies batches;
 * match.c matches one. */
#include <stdlib.h>
#include <string.h>

#include "scan_int.h"
#include "../rules/hsdb.h"

#ifdef LDX_HAVE_HS
#include <hs/hs.h>

#define BATCH_BYTES ((size_t)256 << 10)
/* and at most about this many lines: per-line state is ~100 bytes, so a batch of empty
 * lines (256 Ki of them) cost 25 MB, times the ring's batches */
#define BATCH_LINES ((uint64_t)16 << 10)
#define RING_SPARE 4

/* ---- applying: on the scanner's thread, in input order ---- */

/* The log's last lines (tail.c) are kept a batch late: the last applied batch waits in
 * tail_pend, and of its lines only those still among the last max_tail when the next
 * batch comes are kept (none, mostly: a batch holds more lines than that; copying a
 * thousand lines of every batch was 3% of a scan). next_lines: the lines that come
 * now; 0 when the input ends or the ring is rebuilt. */
static void tail_settle(ldx_scanner *s, size_t next_lines)
{
    ldxi_batch *p = s->tail_pend;
    s->tail_pend = NULL;
    size_t max = s->rs->max_tail;
    if (!p || next_lines >= max) return;
    size_t need = max - next_lines < p->nbl ? max - next_lines : p->nbl;
    for (size_t l = p->nbl - need; l < p->nbl; l++)
        ldxi_tail_keep(s, p->buf + p->bl[l].off, p->bl[l].len, p->bl[l].lineno);
}

/* Whether match mi (signal g, on the line that key names: see rec_line) is a twin's
 * hit that its head recorded (twins.c). Before a head is recorded, its twins with no hit
 * on the line part from it; a twin whose head did not hit the line parts from it here. */
static bool twin_hit(ldx_scanner *s, const ldxi_batch *b, size_t mi, uint32_t g, uint64_t key)
{
    const ldxi_hsdb *h = s->rs->hs;
    if (s->twinned[g]) {
        if (s->rec_line[s->twin_of[g]] == key) return true;
        ldxi_twin_split(s, g);
        return false;
    }
    if (!s->has_twins[g]) return false;
    for (uint32_t c = h->same_next[g]; c != LDXI_HS_IGNORE; c = h->same_next[c]) {
        if (!s->twinned[c]) continue;
        bool hit = false; /* the line's matches are in signal order: c's comes later */
        for (size_t x = mi + 1; x < b->nm && b->m[x].line == b->m[mi].line && !hit; x++)
            hit = b->m[x].g == c && !b->m[x].out;
        if (!hit) ldxi_twin_split(s, c);
    }
    s->rec_line[g] = key;
    return false;
}

static void apply_batch(ldx_scanner *s, ldxi_batch *b)
{
    if (s->rs->max_tail) tail_settle(s, b->nbl);
    if (b->failed) {
        /* the hits could not be kept: every pattern on every line, as without a prefilter
         * (which records every signal on its own) */
        ldxi_twins_split_all(s);
        for (size_t l = 0; l < b->nbl; l++) {
            const char *text = b->buf + b->bl[l].off;
            if (s->rs->max_tail) ldxi_tail_keep(s, text, b->bl[l].len, b->bl[l].lineno);
            ldxi_scan_plain(s, text, b->bl[l].len, b->bl[l].lineno);
        }
    } else {
        const ldxi_hsdb *h = s->rs->hs;
        size_t mi = 0, k = 0;
        uint64_t seq = ++s->apply_seq;
        for (uint32_t l = 0; l < b->nbl; l++) {
            /* most lines have no match and no structure reader wants them: the next
             * that has one or a hint, unless the launcher's reader is following lines */
            if (!ldxi_scan_following(s, b->bl[l].lineno)) {
                while (k < b->nhot && b->hot[k] < l) k++;
                if (k == b->nhot) break;
                l = b->hot[k];
            }
            const char *text = b->buf + b->bl[l].off;
            size_t len = b->bl[l].len;
            uint64_t lineno = b->bl[l].lineno;
            ldxi_scan_structure(s, text, len, lineno, b->bl[l].hints);
            ldxi_linectx lc = {.ranked = true, .rank = b->bl[l].rank};
            long cur = -1;
            for (; mi < b->nm && b->m[mi].line == l; mi++) {
                if (b->m[mi].out) continue; /* its pattern matched, its where did not hold */
                uint32_t g = b->m[mi].g;
                ldxi_sigref ref = h->refs[g];
                if ((long)ref.rule != cur) s->rule_lines[ref.rule]++; /* once a line */
                cur = ref.rule;
                if (s->twin_of && twin_hit(s, b, mi, g, (seq << 32 | l) + 1)) {
                    ldxi_scan_track(s, ref.rule, ref.sig, text, len, lineno, &lc);
                    continue;
                }
                const size_t *co = b->co ? b->co + b->m[mi].co : NULL; /* NULL: no captures */
                const double *vals = b->val ? b->val + b->m[mi].co / 2 : NULL;
                ldxi_scan_hit(s, ref.rule, ref.sig, ref.sc, text, len, lineno, &lc, co, vals);
            }
        }
        ldxi_scan_materialize(s);
        for (size_t i = 0; i < s->rs->n; i++)
            if (b->rc[i].calls || b->rc[i].matches) ldxi_scan_count(s, i, &b->rc[i]);
        s->pf.bytes += b->pf_bytes; /* once per database */
        s->pf.lines += b->nbl;
        s->pf.known += b->known;
        s->pf.ns += b->pf_ns;
        s->pf.pairs += b->pf_pairs;
        /* its lines (bl[], nbl, buf) stay as they are until it is refilled */
        if (s->rs->max_tail) s->tail_pend = b;
    }
    b->len = b->nph = b->nm = b->nco = b->nseg = 0;
    b->nlines = 0;
    b->done = false;
}

/* ---- threads ---- */

static void *worker_main(void *arg)
{
    ldxi_worker *w = arg;
    ldx_scanner *s = w->s;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (s->claimed == s->filled && !s->quit) pthread_cond_wait(&s->work, &s->mu);
        if (s->quit) break;
        ldxi_batch *b = &s->bt[s->claimed++ % (uint64_t)s->nbt];
        pthread_mutex_unlock(&s->mu);
        ldxi_match_batch(s, b, w);
        pthread_mutex_lock(&s->mu);
        b->done = true;
        pthread_cond_broadcast(&s->done);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Returns once the oldest batch handed on is matched. Rather than wait for it, this
 * thread matches batches nobody has taken yet: so -j N needs only N - 1 workers to
 * keep N cores busy. */
static ldxi_batch *oldest_matched(ldx_scanner *s)
{
    ldxi_batch *b = &s->bt[s->applied % (uint64_t)s->nbt];
    if (s->nworkers) {
        pthread_mutex_lock(&s->mu);
        while (!b->done) {
            if (s->claimed < s->filled) {
                ldxi_batch *t = &s->bt[s->claimed++ % (uint64_t)s->nbt];
                pthread_mutex_unlock(&s->mu);
                ldxi_match_batch(s, t, &s->own);
                pthread_mutex_lock(&s->mu);
                t->done = true;
                continue;
            }
            pthread_cond_wait(&s->done, &s->mu);
        }
        pthread_mutex_unlock(&s->mu);
    }
    return b;
}

static void apply_oldest(ldx_scanner *s)
{
    apply_batch(s, oldest_matched(s));
    s->applied++;
}

static void start_workers(ldx_scanner *s);

/* The batch being filled is full, or the input ended: match it here, or hand it to
 * the workers, and apply what is ready. */
static void hand_on(ldx_scanner *s)
{
    ldxi_batch *b = &s->bt[s->filled % (uint64_t)s->nbt];
    if (!b->nseg) return;
    /* threads only for an input of more than one batch: a small log is done sooner
     * than they start */
    if (s->want > 0 && b->len >= BATCH_BYTES) {
        start_workers(s);
        b = &s->bt[s->filled % (uint64_t)s->nbt];
    }
    if (!s->nworkers) {
        ldxi_match_batch(s, b, &s->own);
        s->filled++;
        apply_oldest(s);
        return;
    }
    pthread_mutex_lock(&s->mu);
    s->filled++;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->mu);
    /* the next batch to fill must be free: apply the one that held it */
    if (s->filled - s->applied == (uint64_t)s->nbt) apply_oldest(s);
}

void ldxi_scanner_flush(ldx_scanner *s)
{
    if (!s->bt) return;
    hand_on(s);
    while (s->applied < s->filled) apply_oldest(s);
    tail_settle(s, 0);
}

void ldxi_batch_discard(ldx_scanner *s)
{
    if (!s->bt) return;
    while (s->applied < s->filled) { /* let the workers finish, throw away the results */
        oldest_matched(s)->done = false;
        s->applied++;
    }
    for (int i = 0; i < s->nbt; i++) {
        s->bt[i].len = s->bt[i].nbl = s->bt[i].nph = s->bt[i].nseg = 0;
        s->bt[i].nlines = 0;
    }
    s->tail_pend = NULL;
}

/* Room in the batch being filled for n more bytes of lines and k more lines (bl[] is
 * grown here, on the reading thread, so that splitting cannot fail). */
static ldxi_batch *batch_room(ldx_scanner *s, size_t n, uint64_t k)
{
    ldxi_batch *b = &s->bt[s->filled % (uint64_t)s->nbt];
    /* bytes to spare: lines are cut 32 bytes at a time (ldxi_memo_line) */
    if (ldxi_grow((void **)&b->buf, &b->cap, b->len + n + LDXI_MEMO_SLACK, 1) != LDX_OK ||
        ldxi_grow((void **)&b->seg, &b->segcap, b->nseg + 1, sizeof(ldxi_seg)) != LDX_OK ||
        ldxi_grow((void **)&b->bl, &b->blcap, (size_t)(b->nlines + k), sizeof(ldxi_bline)) != LDX_OK) {
        ldxi_scanner_flush(s); /* what is queued goes first */
        return NULL;
    }
    return b;
}

/* Takes the n bytes at the end of the batch's text, k whole lines from first_line on,
 * into it: to its last run when they follow it. */
static void place_lines(ldx_scanner *s, ldxi_batch *b, size_t n, uint64_t first_line, uint64_t k)
{
    ldxi_seg *last = b->nseg ? &b->seg[b->nseg - 1] : NULL;
    if (last && last->off + last->len == b->len && last->first_line + last->lines == first_line) {
        last->len += n;
        last->lines += k;
    } else {
        b->seg[b->nseg++] = (ldxi_seg){b->len, n, first_line, k};
    }
    b->len += n;
    b->nlines += k;
    memset(b->buf + b->len, 0, LDXI_MEMO_SLACK); /* what is read past the last line is defined */
    if (b->len >= BATCH_BYTES || b->nlines >= BATCH_LINES) hand_on(s);
}

/* Adds text[0..n) to the batch, k whole lines from first_line on (a line end after
 * them when eol is given). */
static void add_lines(ldx_scanner *s, ldxi_batch *b, const char *text, size_t n, const char *eol,
                      uint64_t first_line, uint64_t k)
{
    memcpy(b->buf + b->len, text, n);
    if (eol) b->buf[b->len + n++] = *eol;
    place_lines(s, b, n, first_line, k);
}

bool ldxi_batch_line(ldx_scanner *s, const ldx_line *line)
{
    ldxi_batch *b = batch_room(s, line->len + 1, 1);
    if (!b) return false;
    /* its ANSI escapes go where the batch is split */
    add_lines(s, b, line->text, line->len, "\n", line->lineno, 1);
    return true;
}

bool ldxi_batch_chunk(ldx_scanner *s, const ldxi_chunk *c)
{
    /* a batch stays near BATCH_BYTES: a chunk that would take it over starts the next */
    ldxi_batch *b = &s->bt[s->filled % (uint64_t)s->nbt];
    if (b->len && b->len + c->len > BATCH_BYTES) hand_on(s);
    b = batch_room(s, c->len, c->lines);
    if (!b) return false;
    add_lines(s, b, c->text, c->len, NULL, c->first_line, c->lines);
    return true;
}

/* A read for less than this is not worth its call: the batch is handed on first. */
#define ROOM_MIN ((size_t)64 << 10)

char *ldxi_batch_read_room(ldx_scanner *s, size_t *cap)
{
    ldxi_batch *b = &s->bt[s->filled % (uint64_t)s->nbt];
    if (b->len && (b->len + ROOM_MIN > BATCH_BYTES || b->nlines >= BATCH_LINES)) {
        hand_on(s);
        b = &s->bt[s->filled % (uint64_t)s->nbt];
    }
    size_t room = BATCH_BYTES - b->len;
    /* a read of n bytes brings at most n lines: a batch of short lines stays near
     * BATCH_LINES (64 KiB of lines is a read worth its call) */
    size_t lines_room = (size_t)(BATCH_LINES - b->nlines) * 4;
    if (lines_room < ROOM_MIN) lines_room = ROOM_MIN;
    if (room > lines_room) room = lines_room;
    /* and the bytes past the text that cutting reads */
    if (ldxi_grow((void **)&b->buf, &b->cap, b->len + room + LDXI_MEMO_SLACK, 1) != LDX_OK) return NULL;
    *cap = room;
    return b->buf + b->len;
}

bool ldxi_batch_placed(ldx_scanner *s, const ldxi_chunk *c)
{
    ldxi_batch *b = &s->bt[s->filled % (uint64_t)s->nbt];
    if (c->text != b->buf + b->len || b->len + c->len + LDXI_MEMO_SLACK > b->cap ||
        ldxi_grow((void **)&b->seg, &b->segcap, b->nseg + 1, sizeof(ldxi_seg)) != LDX_OK ||
        ldxi_grow((void **)&b->bl, &b->blcap, (size_t)(b->nlines + c->lines), sizeof(ldxi_bline)) != LDX_OK)
        return false;
    place_lines(s, b, c->len, c->first_line, c->lines);
    return true;
}

/* ---- set-up ---- */

static ldx_status worker_init(ldx_scanner *s, ldxi_worker *w, void *scratch)
{
    w->s = s;
    w->md = pcre2_match_data_create(s->rs->max_groups > 4 ? s->rs->max_groups : 4, NULL);
    w->stamp = calloc(s->rs->hs->nsig ? s->rs->hs->nsig : 1, sizeof(uint64_t));
    w->res = calloc(s->rs->hs->nsig ? s->rs->hs->nsig : 1, sizeof(uint32_t));
    w->pass = calloc(s->rs->hs->nsig ? s->rs->hs->nsig : 1, 1);
    if (!w->md || !w->stamp || !w->res || !w->pass) return LDX_ENOMEM;
    if (scratch) {
        if (hs_clone_scratch(scratch, (hs_scratch_t **)&w->scratch) != HS_SUCCESS) return LDX_ENOMEM;
    } else {
        /* one scratch serves every database: each allocation grows it to fit (the
         * collapsed ones', when they are turned on: ldxi_collapse_on) */
        for (int p = 0; p < s->rs->hs->nparts; p++) {
            const ldxi_hspart *part = &s->rs->hs->part[p];
            if (hs_alloc_scratch(part->db, (hs_scratch_t **)&w->scratch) != HS_SUCCESS ||
                (part->tdb && hs_alloc_scratch(part->tdb, (hs_scratch_t **)&w->scratch) != HS_SUCCESS))
                return LDX_ENOMEM;
        }
    }
    const char *mc = getenv("LOGDX_MEMO_COLLAPSE");
    w->collapse = !s->rs->hs->collapsed || (mc && !strcmp(mc, "never")) ? -1 : 0;
    if (mc && !strcmp(mc, "always") && w->collapse == 0) w->collapse = ldxi_collapse_on(s, w) ? 1 : -1;
    return LDX_OK;
}

static void worker_fini(ldxi_worker *w)
{
    if (w->scratch) hs_free_scratch(w->scratch);
    pcre2_match_data_free(w->md);
    free(w->stamp);
    free(w->res);
    free(w->pass);
    free(w->cand);
    ldxi_memo_free(&w->memo);
    ldxi_memo_free(&w->cmemo);
    free(w->ctext);
    free(w->cg);
    free(w->cph);
    w->ctext = NULL;
    w->cg = NULL;
    w->cph = NULL;
    w->ncg = w->cgcap = w->cphcap = 0;
    w->cand = NULL;
    w->candcap = 0;
    w->scratch = NULL;
    w->md = NULL;
    w->stamp = NULL;
    w->res = NULL;
    w->pass = NULL;
}

static ldx_status make_batches(ldx_scanner *s, int n)
{
    ldxi_batch *bt = calloc((size_t)n, sizeof(ldxi_batch));
    if (!bt) return LDX_ENOMEM;
    s->bt = bt;
    s->nbt = n;
    for (int i = 0; i < n; i++) {
        bt[i].last = calloc(2 * (s->rs->hs->nsig + LDXI_HS_NSPECIAL), sizeof(uint32_t));
        bt[i].rc = calloc(s->rs->n ? s->rs->n : 1, sizeof(ldxi_rulecount));
        if (!bt[i].last || !bt[i].rc) return LDX_ENOMEM;
    }
    return LDX_OK;
}

static void free_batch(ldxi_batch *b)
{
    free(b->buf);
    free(b->seg);
    free(b->rbuf);
    free(b->tbuf);
    free(b->tl);
    free(b->bl);
    free(b->hot);
    free(b->busy);
    free(b->ph);
    free(b->ph2);
    free(b->lend);
    free(b->last);
    free(b->m);
    free(b->co);
    free(b->val);
    free(b->vread);
    free(b->rc);
}

static void free_batches(ldx_scanner *s)
{
    for (int i = 0; s->bt && i < s->nbt; i++) free_batch(&s->bt[i]);
    free(s->bt);
    s->bt = NULL;
    s->nbt = 0;
}

ldx_status ldxi_batch_init(ldx_scanner *s)
{
    ldx_status st = worker_init(s, &s->own, NULL);
    /* two: the one being filled, and the last applied, whose last lines may still be
     * among the log's last (tail_settle) */
    return st == LDX_OK ? make_batches(s, 2) : st;
}

static void stop_workers(ldx_scanner *s)
{
    if (!s->nworkers) return;
    pthread_mutex_lock(&s->mu);
    s->quit = true;
    pthread_cond_broadcast(&s->work);
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < s->nworkers; i++) {
        pthread_join(s->wk[i].thread, NULL);
        worker_fini(&s->wk[i]);
    }
    free(s->wk);
    s->wk = NULL;
    s->nworkers = 0;
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->done);
}

void ldxi_batch_free(ldx_scanner *s)
{
    stop_workers(s);
    free_batches(s);
    worker_fini(&s->own);
}

ldx_status ldx_scanner_set_threads(ldx_scanner *s, int n)
{
    /* this thread matches too (apply_oldest) */
    if (s->bt && !s->nworkers) s->want = n - 1;
    return LDX_OK;
}

/* Starts the workers asked for, with a ring of batches for them; the batch being
 * filled moves to its first slot. Without them (out of memory, no threads), batches
 * go on being matched here. */
static void start_workers(ldx_scanner *s)
{
    tail_settle(s, 0); /* the ring is rebuilt */
    int n = s->want;
    s->want = 0;
    ldxi_batch *old = s->bt;
    int oldn = s->nbt;
    uint64_t cur = s->filled % (uint64_t)oldn;
    s->bt = NULL;
    s->wk = calloc((size_t)n, sizeof(ldxi_worker));
    /* a batch per worker, as many waiting, one being applied and one being filled, and
     * RING_SPARE more: the reading thread matches a batch itself rather than wait for
     * the oldest, which it can only while one is left unclaimed */
    if (!s->wk || make_batches(s, 2 * n + 2 + RING_SPARE) != LDX_OK) {
        free_batches(s);
        free(s->wk);
        s->wk = NULL;
        s->bt = old;
        s->nbt = oldn;
        return;
    }
    free_batch(&s->bt[0]);
    s->bt[0] = old[cur];
    for (int i = 0; i < oldn; i++)
        if ((uint64_t)i != cur) free_batch(&old[i]);
    free(old);
    s->filled = s->claimed = s->applied = 0;
    s->quit = false;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->work, NULL);
    pthread_cond_init(&s->done, NULL);
    for (int i = 0; i < n; i++) {
        if (worker_init(s, &s->wk[i], s->own.scratch) != LDX_OK ||
            pthread_create(&s->wk[i].thread, NULL, worker_main, &s->wk[i]) != 0) {
            worker_fini(&s->wk[i]);
            break;
        }
        s->nworkers = i + 1;
    }
    if (!s->nworkers) {
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->work);
        pthread_cond_destroy(&s->done);
        free(s->wk);
        s->wk = NULL;
    }
}

#else /* PCRE2 alone */

bool ldxi_batch_chunk(ldx_scanner *s, const ldxi_chunk *c)
{
    (void)s;
    (void)c;
    return false;
}
char *ldxi_batch_read_room(ldx_scanner *s, size_t *cap)
{
    (void)s;
    *cap = 0;
    return NULL;
}
bool ldxi_batch_placed(ldx_scanner *s, const ldxi_chunk *c)
{
    (void)s;
    (void)c;
    return false;
}
void ldxi_scanner_flush(ldx_scanner *s) { (void)s; }
void ldxi_batch_discard(ldx_scanner *s) { (void)s; }
bool ldxi_batch_line(ldx_scanner *s, const ldx_line *line)
{
    (void)s;
    (void)line;
    return false;
}
ldx_status ldxi_batch_init(ldx_scanner *s)
{
    (void)s;
    return LDX_OK;
}
void ldxi_batch_free(ldx_scanner *s) { (void)s; }
ldx_status ldx_scanner_set_threads(ldx_scanner *s, int n)
{
    (void)s;
    (void)n;
    return LDX_OK;
}
#endif
