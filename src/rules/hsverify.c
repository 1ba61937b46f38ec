/* Checking a compiled prefilter database against the rules' own examples (see hsdb.h):
 * Vectorscan must report every line its PCRE2 twin matches, alone and in a batch. */
#ifdef LDX_HAVE_HS
#include <stdlib.h>
#include <string.h>

#include <hs/hs.h>

#include "../core/util.h"
#include "hsdb.h"
#include "ruleset_int.h"

/* (line, database id) pairs, as line << 32 | id, for the batch check. */
typedef struct {
    uint64_t *v;
    size_t n, cap;
    bool oom;
} pairs;

static void add_pair(pairs *ps, uint64_t line, unsigned id)
{
    if (LDXI_PUSH(ps->v, ps->n, ps->cap, line << 32 | id) != LDX_OK) ps->oom = true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    bool *seen;           /* one line alone: the ids it hit */
    size_t line;          /* one line alone: its number among all example lines */
    size_t nsig;          /* ids below this are signals (the specials follow) */
    const size_t *starts; /* the batch: where each line starts */
    size_t nlines;
    pairs *found;         /* the (line, signal id) pairs hit: of each line alone, or of the batch */
} verify_ctx;

static int on_verify(unsigned id, unsigned long long from, unsigned long long to,
                     unsigned flags, void *ctx)
{
    (void)from;
    (void)to;
    (void)flags;
    verify_ctx *vc = ctx;
    if (!vc->seen[id] && id < vc->nsig) add_pair(vc->found, vc->line, id);
    vc->seen[id] = true;
    return 0;
}

static int on_verify_batch(unsigned id, unsigned long long from, unsigned long long to,
                           unsigned flags, void *ctx)
{
    (void)from;
    (void)flags;
    verify_ctx *vc = ctx;
    size_t end = to ? (size_t)to - 1 : 0, x = 0, y = vc->nlines;
    while (y - x > 1) {
        size_t mid = (x + y) / 2;
        if (vc->starts[mid] <= end) x = mid;
        else y = mid;
    }
    add_pair(vc->found, x, id);
    return 0;
}

/* Vectorscan must report every line its PCRE2 twin matches; some complex patterns trip
 * bugs in it (seen: `[\d.]+ ?[KMGT]i?B` after `.*?`), and some patterns disturb others
 * in a batch of lines (seen: two line-anchored ones, see pform.c). The rules' examples
 * are the evidence at hand: a signal that PCRE2 matches on an example line of its rule
 * but the database misses, or that the database finds on an example line alone (of any
 * rule) but not in all of them scanned as one batch, is given up to PCRE2. Returns the
 * position (in gs) of the first such signal. */
#define OTHER_LINES 8192

long ldxi_hsdb_verify(const ldx_ruleset *rs, const ldxi_hsdb *h, void *vdb, const uint32_t *gs,
                      size_t n, int mode)
{
    hs_database_t *db = vdb;
    hs_scratch_t *scratch = NULL;
    if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS) return -1;
    bool *seen = calloc(n + LDXI_HS_NSPECIAL, sizeof(bool));
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    char *text = NULL; /* every example line (or its template), as a batch has them */
    size_t tlen = 0, tcap = 0, *starts = NULL, nlines = 0, scap = 0;
    pairs alone = {0}, found = {0};
    bool oom = !seen || !md;
    long bad = -1;
    /* entries are in ruleset order: walk the rules, each with its entries gs[a..b) (none
     * for a rule of another part, whose examples still go into the batch: any line may
     * be the one that disturbs a pattern; of those, up to OTHER_LINES, so that a large
     * rule set in many parts is checked in time linear in its size) */
    size_t others = OTHER_LINES;
    for (size_t rule = 0, a = 0; !oom && bad < 0 && rule < rs->n; rule++) {
        size_t b = a;
        while (b < n && h->refs[gs[b]].rule == rule) b++;
        if (a == b && !others) continue;
        const ldxi_rule *r = rs->rules[rule];
        ldxi_example_lines it;
        const char *p;
        size_t len;
        for (ldxi_example_lines_start(&it, &r->info);
             bad < 0 && !oom && (a < b || others) && ldxi_example_line(&it, &p, &len, NULL);) {
            if (a == b) others--;
            verify_ctx vc = {seen, nlines, n, NULL, 0, &alone};
            memset(seen, 0, (n + LDXI_HS_NSPECIAL) * sizeof(bool));
            /* a template database scans templates (digits.c), as the batches give it */
            if (LDXI_PUSH(starts, nlines, scap, tlen) != LDX_OK ||
                ldxi_grow((void **)&text, &tcap, tlen + len + 1, 1) != LDX_OK) {
                oom = true;
                break;
            }
            size_t tl = len;
            if (mode == LDXI_HS_TEMPLATES) ldxi_digits_template(p, len, text + tlen);
            else if (mode == LDXI_HS_COLLAPSED) tl = ldxi_digits_collapse(p, len, text + tlen);
            else memcpy(text + tlen, p, len);
            ldxi_hs_scan(db, tl ? text + tlen : "", (unsigned)tl, scratch, on_verify, &vc);
            for (size_t x = a; x < b; x++) {
                if (seen[x]) continue;
                uint32_t k = h->refs[gs[x]].sig;
                pcre2_code *code = ldxi_sig_code(&r->sigs[k]);
                if (code && pcre2_match(code, (PCRE2_SPTR)p, len, 0, 0, md, NULL) >= 0) {
                    bad = (long)x;
                    break;
                }
            }
            tlen += tl;
            text[tlen++] = '\n';
        }
        a = b;
    }
    if (bad < 0 && !oom && !alone.oom && nlines) {
        verify_ctx vc = {seen, 0, n, starts, nlines, &found};
        ldxi_hs_scan(db, text, (unsigned)tlen, scratch, on_verify_batch, &vc);
        if (!found.oom) {
            if (found.n) qsort(found.v, found.n, sizeof(uint64_t), cmp_u64);
            for (size_t i = 0; i < alone.n && bad < 0; i++)
                if (!found.n || !bsearch(&alone.v[i], found.v, found.n, sizeof(uint64_t), cmp_u64))
                    bad = (long)(alone.v[i] & 0xffffffffu);
        }
    }
    free(alone.v);
    free(found.v);
    free(text);
    free(starts);
    pcre2_match_data_free(md);
    free(seen);
    hs_free_scratch(scratch);
    return bad;
}

#endif /* LDX_HAVE_HS */
