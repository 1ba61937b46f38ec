/* Building the prefilter databases. See hsdb.h for the shape; the embedded database's
 * entries are named (rule id, signal name, pattern hash), so that it serves any ruleset
 * that contains the built-in rules, with or without user rules around them. */
#include "hsdb.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../core/util.h"
#include "ruleset_int.h"

#ifdef LDX_HAVE_HS
#include <hs/hs.h>

static const char *const specials[LDXI_HS_NSPECIAL] = {
    /* torchrun's failure summary: its header lines */
    "Root Cause \\(first observed failure\\)|Failures:", /* no anchors: see pform.c */
    /* lines that may carry a version banner: the names only (the version reader looks
     * for the number itself; "name, then a version within 48 bytes" was an eighth of
     * the prefilter's time on the bench log) */
    "(?i)torch|cuda|driver version|nccl version|deepspeed|transformers|accelerate|lightning|vllm|llm engine|jax|megatron|peft",
    /* the first lines of the blocks a dying process prints (failure.c), and a traceback's
     * frame, which opens one where the header is missing (Ray's remote errors, a paste):
     * its end, '", line N' (failure.c reads the line; the file name in front, a bounded
     * class, was four fifths of this expression's time); and a web server's access line
     * answering with 4xx, which makes the exception before it a request's (failure.c reads
     * the status: the memo keeps a template's hints from its first line, so the hint must
     * not depend on digits, or a 400 line after a 200 of its template would be missed);
     * a Python warning's first line, whose message may hold an exception's text; a loop's
     * "Skipping <input> due to <Type>: ..." after an input's traceback */
    "Traceback \\(most recent call last\\)|Exception ignored in|Triton is not available, some optimizations will not be enabled|Error on request:|Exception in ASGI application|terminate called after throwing|Fatal Python error|\", line \\d|above exception|WON'T CONVERT |Fallback to PyTorch due to exception|env resulted in an error! The original error is|failed due to insufficient GPU memory\\. Falling back to |An exception occurred in telemetry logging\\.|Warning: |Skipping |HTTP/[\\d.]+\" \\d\\d\\d\\b",
};

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

/* What a signal's database entry depends on: its pattern and its flags. A tail signal
 * has none (the scanner matches it on the log's last lines, after the rest), and never
 * shares one: its hash differs from any whole-log signal's with the same pattern. */
static uint64_t signal_hash(const ldx_signal_info *si)
{
    uint64_t h = fnv(1469598103934665603ULL, si->pattern, strlen(si->pattern));
    h = fnv(h, si->caseless ? "i" : "-", 1);
    return si->tail ? fnv(h, "tail", 4) : h;
}

/* Every database is compiled for the baseline of the platform, not for the machine at
 * hand: the built-in one is compiled where logdx is built, and a cached one may be read
 * from a home directory that nodes of several kinds share. One compiled for AVX-512
 * (what the default gives on such a machine) cannot scan on a CPU without it: every
 * hs_scan() fails, and the prefilter would find nothing. The library still picks its
 * fastest code for the CPU it runs on; on the bench log a baseline database scans as
 * fast as an AVX-512 one. */
static const hs_platform_info_t portable = {HS_TUNE_FAMILY_GENERIC, 0, 0, 0};

/* Signal g of the ruleset. */
static const ldx_signal_info *signal_of(const ldx_ruleset *rs, const ldxi_hsdb *h, uint32_t g)
{
    return &rs->rules[h->refs[g].rule]->info.signals[h->refs[g].sig];
}

/* Signals with one pattern share its run on a line, captures and numbers included (the
 * head's): each reads as numbers the captures any of them needs; one with the head's
 * where (a user's copy of a rule) takes the head's parsed where too, so that the
 * scanner sees they decide alike. */
static void share_pattern(ldx_ruleset *rs, const ldxi_hsdb *h)
{
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t g = 0; g < h->nsig; g++) {
            uint32_t hd = h->same_head[g];
            ldxi_sigc *a = &rs->rules[h->refs[g].rule]->sigs[h->refs[g].sig];
            ldxi_sigc *b = &rs->rules[h->refs[hd].rule]->sigs[h->refs[hd].sig];
            if (hd == g) continue;
            const char *wa = signal_of(rs, h, g)->where, *wb = signal_of(rs, h, hd)->where;
            if (pass == 1 && a->where && b->where && !strcmp(wa, wb)) {
                a->where = b->where;
                a->clauses = b->clauses;
                a->nclauses = b->nclauses;
            }
            if (!a->numbered || !b->numbered) continue;
            for (size_t c = 0; c < a->ncaps && c < b->ncaps; c++) /* into the head, then back */
                if (pass == 0) b->numbered[c] |= a->numbered[c];
                else a->numbered[c] = b->numbered[c];
        }
}

/* Whether signal g records what its pattern's head hd records (see twins in hsdb.h):
 * the head's where (share_pattern made a copy's the same), captures and numbers read,
 * and neither a tail signal (matched on the last lines alone, from scratch). */
static bool twin(const ldx_ruleset *rs, const ldxi_hsdb *h, uint32_t g, uint32_t hd)
{
    const ldxi_sigref a = h->refs[g], b = h->refs[hd];
    const ldxi_sigc *x = a.sc, *y = b.sc;
    if (g == hd || rs->rules[a.rule]->info.signals[a.sig].tail || rs->rules[b.rule]->info.signals[b.sig].tail)
        return false;
    if (x->where != y->where || x->ncaps != y->ncaps || !x->numbered != !y->numbered) return false;
    for (size_t c = 0; x->numbered && c < x->ncaps; c++)
        if (!x->numbered[c] != !y->numbered[c]) return false;
    return true;
}

/* h->twin_of and h->has_twins, after share_pattern(); false when out of memory. */
static bool find_twins(const ldx_ruleset *rs, ldxi_hsdb *h)
{
    uint32_t *of = malloc((h->nsig ? h->nsig : 1) * sizeof *of);
    uint8_t *heads = calloc(h->nsig ? h->nsig : 1, 1);
    if (!of || !heads) {
        free(of);
        free(heads);
        return false;
    }
    bool any = false;
    for (uint32_t g = 0; g < h->nsig; g++) {
        uint32_t hd = h->same_head[g];
        of[g] = twin(rs, h, g, hd) ? hd : LDXI_HS_IGNORE;
        if (of[g] != LDXI_HS_IGNORE) {
            heads[hd] = 1;
            any = true;
        }
    }
    if (any) {
        h->twin_of = of;
        h->has_twins = heads;
    } else {
        free(of);
        free(heads);
    }
    return true;
}

extern const unsigned char ldxi_builtin_hsdb[];
extern const size_t ldxi_builtin_hsdb_len;

/* Appends g to a list of signals (always, calways). */
static bool add_signal(uint32_t **list, size_t *n, uint32_t g)
{
    uint32_t *v = realloc(*list, (*n + 1) * sizeof(uint32_t));
    if (!v) return false;
    *list = v;
    v[(*n)++] = g;
    return true;
}

/* Drops entry x of gs[0..n) and ent[0..n). */
static void drop(uint32_t *gs, ldxi_hsentry *ent, size_t n, size_t x)
{
    free(ent[x].expr);
    memmove(gs + x, gs + x + 1, (n - x - 1) * sizeof(uint32_t));
    memmove(ent + x, ent + x + 1, (n - x - 1) * sizeof(ldxi_hsentry));
}

/* A signal a database of this mode cannot take, with every signal of its pattern: one
 * the collapsed database gives up may match a line of any collapsed template (calways);
 * any other is matched on every line (the always list). */
static bool give_up_in(ldxi_hsdb *h, uint32_t g, int mode)
{
    bool c = mode == LDXI_HS_COLLAPSED, ok = true;
    for (; g != LDXI_HS_IGNORE; g = h->same_next[g])
        ok = add_signal(c ? &h->calways : &h->always, c ? &h->ncalways : &h->nalways, g) && ok;
    return ok;
}

static bool give_up(ldxi_hsdb *h, uint32_t g) { return give_up_in(h, g, LDXI_HS_LINES); }

/* The fixed strings a signal's pattern requires, as an expression for the lines mode
 * says (widened for templates, collapsed templates), *ci whether they are caseless;
 * NULL when it requires none. What the prefilter takes for a pattern it cannot take as a
 * form: one Vectorscan refuses or reads otherwise than PCRE2, or one it cannot widen (a
 * back reference). */
static char *literals_for(const ldx_signal_info *si, int mode, bool *ci)
{
    char *lits = ldxi_literal_set(si->pattern, ci);
    if (!lits || mode == LDXI_HS_LINES) return lits;
    char *wide = mode == LDXI_HS_TEMPLATES ? ldxi_re_widen_digits(lits) : ldxi_re_collapse_digits(lits);
    free(lits);
    return wide;
}

/* Entry x, a form of its pattern that Vectorscan refuses or gets wrong, becomes the
 * fixed strings the pattern requires (literals_for); false when it is strings already
 * or the pattern requires none. */
static bool as_literals(const ldx_ruleset *rs, const ldxi_hsdb *h, const uint32_t *gs,
                        ldxi_hsentry *ent, size_t x, int mode)
{
    if (ent[x].literal) return false;
    bool ci = false;
    char *lits = literals_for(signal_of(rs, h, gs[x]), mode, &ci);
    if (!lits) return false;
    free(ent[x].expr);
    /* a collapsed literal may take nothing for its digits: a pattern */
    ent[x] = (ldxi_hsentry){lits, mode != LDXI_HS_COLLAPSED, ci};
    return true;
}

/* Compiles ent[0..*pn) (the entries of signals gs, ids their positions) and the specials
 * spx[] when given (ids from *pn on) into *out (NULL when there is nothing to compile),
 * for the lines mode says (LDXI_HS_*). An entry Vectorscan refuses is given as its
 * pattern's required literals (widened too, for templates); one it refuses that way
 * too, or gets wrong on the rules' examples, is given up (give_up_in), one at a time.
 * False on an error that is no entry's (or out of memory). */
static bool compile_db(ldx_ruleset *rs, ldxi_hsdb *h, uint32_t *gs, ldxi_hsentry *ent, size_t *pn,
                       const char *const *spx, int mode, hs_database_t **out,
                       struct ldx_msgs *msgs)
{
    bool with_specials = spx != NULL;
    size_t n = *pn, cap = n + LDXI_HS_NSPECIAL;
    const char **exprs = calloc(cap, sizeof(char *));
    unsigned *flags = calloc(cap, sizeof(unsigned));
    unsigned *ids = calloc(cap, sizeof(unsigned));
    bool ok = exprs && flags && ids;
    hs_database_t *db = NULL;
    for (int attempt = 0; ok && attempt < 256; attempt++) {
        size_t m = 0;
        for (size_t x = 0; x < n; x++) {
            const ldx_signal_info *si = signal_of(rs, h, gs[x]);
            exprs[m] = ent[x].expr ? ent[x].expr : si->pattern;
            flags[m] = (ent[x].literal ? 0 : HS_FLAG_MULTILINE | HS_FLAG_PREFILTER | HS_FLAG_ALLOWEMPTY) |
                       (si->caseless || ent[x].caseless ? HS_FLAG_CASELESS : 0);
            ids[m] = (unsigned)x;
            m++;
        }
        for (size_t sp = 0; with_specials && sp < LDXI_HS_NSPECIAL; sp++) {
            exprs[m] = spx[sp];
            flags[m] = HS_FLAG_MULTILINE | (mode == LDXI_HS_COLLAPSED ? HS_FLAG_ALLOWEMPTY : 0);
            ids[m] = (unsigned)(n + sp);
            m++;
        }
        if (!m) break;
        hs_compile_error_t *err = NULL;
        if (hs_compile_multi(exprs, flags, ids, (unsigned)m, HS_MODE_BLOCK, &portable, &db, &err) ==
            HS_SUCCESS) {
            long missed = ldxi_hsdb_verify(rs, h, db, gs, n, mode);
            if (missed < 0) break;
            hs_free_database(db);
            db = NULL;
            /* a form Vectorscan reads otherwise than PCRE2 (a named back reference) */
            if (as_literals(rs, h, gs, ent, (size_t)missed, mode)) continue;
            ok = give_up_in(h, gs[missed], mode);
            drop(gs, ent, n--, (size_t)missed);
            continue;
        }
        int bad = err ? err->expression : -1;
        if (bad < 0 || ids[bad] >= n) {
            if (msgs)
                ldx_msgs_add(msgs, LDX_MSG_WARNING, NULL, 0, 0,
                             "prefilter: %s; scanning with PCRE2 alone",
                             err && err->message ? err->message : "cannot compile");
            hs_free_compile_error(err);
            ok = false;
            break;
        }
        hs_free_compile_error(err);
        uint32_t x = ids[bad];
        if (as_literals(rs, h, gs, ent, x, mode)) continue;
        ok = give_up_in(h, gs[x], mode);
        drop(gs, ent, n--, x);
    }
    free(exprs);
    free(flags);
    free(ids);
    if (!ok && db) {
        hs_free_database(db);
        db = NULL;
    }
    *pn = n;
    *out = db;
    return ok;
}

#define COLLAPSED_LITERAL_MIN 3 /* a widened form must require a string this long */

/* The collapsed database of a part whose database has the entries ent[0..n) of signals
 * gs (and the specials when with_specials): each entry widened for collapsed templates
 * (digits.c), ids mapped by *cmap (nsig + LDXI_HS_* for the specials), *nids of them.
 * A signal with no collapsed form is given up to h->calways; *out stays NULL (the
 * collapsed memo is off) when the specials have none or it does not compile. */
static void collapsed_db(ldx_ruleset *rs, ldxi_hsdb *h, const uint32_t *gs, const ldxi_hsentry *ent,
                         size_t n, bool with_specials, hs_database_t **out, uint32_t **cmap,
                         size_t *nids, struct ldx_msgs *msgs)
{
    ldxi_hsentry *cent = calloc(n ? n : 1, sizeof(ldxi_hsentry));
    uint32_t *cg = calloc(n + LDXI_HS_NSPECIAL, sizeof(uint32_t));
    char *csp[LDXI_HS_NSPECIAL] = {0};
    bool ok = cent && cg;
    for (size_t sp = 0; ok && with_specials && sp < LDXI_HS_NSPECIAL; sp++)
        ok = (csp[sp] = ldxi_re_collapse_digits(specials[sp])) != NULL;
    size_t nc = 0;
    for (size_t x = 0; ok && x < n; x++) {
        /* from the entry the database has (its strings, or the pattern's cheaper form:
         * much cheaper to compile widened), unless the form keeps little more than digits
         * ("119|120" for a sentence ending in an Xid), which a collapsed template reads
         * as nothing: then from the pattern itself */
        const ldx_signal_info *si = signal_of(rs, h, gs[x]);
        char *wide = ldxi_re_collapse_digits(ent[x].expr ? ent[x].expr : si->pattern);
        if (!ent[x].literal && ent[x].expr && (!wide || ldxi_pattern_literal(wide) < COLLAPSED_LITERAL_MIN)) {
            char *whole = ldxi_re_collapse_digits(si->pattern);
            if (whole) {
                free(wide);
                wide = whole;
            }
        }
        bool ci = ent[x].caseless;
        if (!wide) wide = literals_for(si, LDXI_HS_COLLAPSED, &ci);
        if (!wide) {
            ok = give_up_in(h, gs[x], LDXI_HS_COLLAPSED);
            continue;
        }
        cg[nc] = gs[x];
        cent[nc++] = (ldxi_hsentry){wide, false, ci};
    }
    hs_database_t *cdb = NULL;
    if (ok && !compile_db(rs, h, cg, cent, &nc, with_specials ? (const char *const *)csp : NULL,
                          LDXI_HS_COLLAPSED, &cdb, msgs))
        cdb = NULL;
    for (size_t x = 0; cent && x < nc; x++) free(cent[x].expr);
    free(cent);
    for (size_t sp = 0; sp < LDXI_HS_NSPECIAL; sp++) free(csp[sp]);
    if (!cdb) {
        free(cg);
        return;
    }
    for (size_t sp = 0; sp < LDXI_HS_NSPECIAL; sp++)
        cg[nc + sp] = with_specials ? h->nsig + (uint32_t)sp : LDXI_HS_IGNORE;
    *out = cdb;
    *cmap = cg;
    *nids = nc + LDXI_HS_NSPECIAL;
}

/* Compiles the signals gs[0..n) (ruleset order) into a new part, with the specials
 * when asked: their entries (hsentry.c) into the part's database, which scans lines;
 * and the entries of those whose patterns read digits, widened (digits.c), into its
 * template database, which scans templates. A signal the template database cannot
 * take goes to the always list. */
static bool compile_part(ldx_ruleset *rs, ldxi_hsdb *h, uint32_t *gs, size_t n,
                         bool with_specials, struct ldx_msgs *msgs)
{
    ldxi_hsentry *ent = calloc(n ? n : 1, sizeof(ldxi_hsentry));
    ldxi_hsentry *tent = calloc(n ? n : 1, sizeof(ldxi_hsentry));
    uint32_t *tg = calloc(n ? n : 1, sizeof(uint32_t));
    bool ok = ent && tent && tg;
    for (size_t x = 0; ok && x < n; x++) ent[x] = ldxi_hsentry_for(rs, h, gs[x]);
    hs_database_t *db = NULL, *tdb = NULL;
    ok = ok && compile_db(rs, h, gs, ent, &n, with_specials ? specials : NULL, LDXI_HS_LINES, &db, msgs);
    size_t nt = 0;
    for (size_t x = 0; ok && db && x < n; x++) {
        const ldx_signal_info *si = signal_of(rs, h, gs[x]);
        if (ldxi_hsdb_blind(h, gs[x])) continue;
        char *wide = ldxi_re_widen_digits(ent[x].expr ? ent[x].expr : si->pattern);
        bool literal = ent[x].literal, ci = ent[x].caseless;
        if (!wide && !literal) {
            wide = literals_for(si, LDXI_HS_TEMPLATES, &ci);
            literal = true;
        }
        if (!wide) {
            ok = give_up(h, gs[x]);
            continue;
        }
        tg[nt] = gs[x];
        tent[nt++] = (ldxi_hsentry){wide, literal, ci};
    }
    if (ok && nt && !compile_db(rs, h, tg, tent, &nt, NULL, LDXI_HS_TEMPLATES, &tdb, msgs)) {
        /* none of them, then: they run on every line */
        for (size_t x = 0; x < nt; x++) ok = give_up(h, tg[x]) && ok;
        nt = 0;
    }
    for (size_t x = 0; tent && x < nt; x++) free(tent[x].expr);
    free(tent);
    /* the collapsed database: every entry of db, and the specials, widened again */
    uint32_t *cg = NULL;
    size_t nc = 0;
    hs_database_t *cdb = NULL;
    if (ok && db) collapsed_db(rs, h, gs, ent, n, with_specials, &cdb, &cg, &nc, msgs);
    for (size_t x = 0; ent && x < n; x++) free(ent[x].expr);
    free(ent);
    ldxi_hspart *p = &h->part[h->nparts];
    if (ok && db) {
        p->map = calloc(n + LDXI_HS_NSPECIAL, sizeof(uint32_t));
        ok = p->map != NULL;
    }
    if (!ok || !db) {
        if (db) hs_free_database(db);
        if (tdb) hs_free_database(tdb);
        if (cdb) hs_free_database(cdb);
        free(tg);
        free(cg);
        return ok; /* true: nothing to put in a database */
    }
    for (size_t x = 0; x < n; x++) p->map[x] = gs[x];
    for (size_t sp = 0; sp < LDXI_HS_NSPECIAL; sp++)
        p->map[n + sp] = with_specials ? h->nsig + (uint32_t)sp : LDXI_HS_IGNORE;
    p->nids = (uint32_t)(n + LDXI_HS_NSPECIAL);
    p->db = db;
    p->mapped = 0;
    p->tdb = tdb;
    p->tmap = tdb ? tg : NULL;
    p->ntids = tdb ? (uint32_t)nt : 0;
    p->tmapped = 0;
    if (!tdb) free(tg);
    p->cdb = cdb;
    p->cmap = cdb ? cg : NULL;
    p->ncids = cdb ? (uint32_t)nc : 0;
    p->cmapped = 0;
    if (!cdb) free(cg);
    h->nparts++;
    return true;
}

/* Embedded layout: "LDX6", entry count (u32), entries, the database (its length as a
 * u64, then its bytes); then the template database: its entry count (u32), entries, and
 * the database likewise (length 0: none); then the collapsed database the same way, its
 * entries with kinds (0 or 2) like the first's, and after it the count (u32) and
 * entries of the signals given up to calways. An entry is kind (u8: 0 in the database,
 * 1 always, 2 special; template and calways entries have none), pattern hash (u64),
 * then rule id and signal name as NUL-terminated strings (for a special: its index as
 * text). Entry i of kind 0 or 2 is database id i, in order, as template entry i is
 * template id i. */
static const unsigned char *take(const unsigned char *p, const unsigned char *end, size_t n)
{
    return (size_t)(end - p) >= n ? p + n : NULL;
}

static const char *take_str(const unsigned char **p, const unsigned char *end)
{
    const unsigned char *nul = *p ? memchr(*p, 0, (size_t)(end - *p)) : NULL;
    if (!nul) return NULL;
    const char *s = (const char *)*p;
    *p = nul + 1;
    return s;
}

typedef struct {
    uint64_t hash;
    uint32_t g;
} hashed;

static int hashed_cmp(const void *a, const void *b)
{
    const hashed *x = a, *y = b;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    return x->g < y->g ? -1 : x->g > y->g;
}

/* The first signal (smallest g) with this pattern hash, or -1. Any rule's signal with
 * the same pattern and flags can use the entry: a user's copy of a built-in rule, or
 * two rules that share a pattern. */
static long find_hash(const hashed *by_hash, uint32_t n, uint64_t hash)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (by_hash[mid].hash < hash) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && by_hash[lo].hash == hash ? (long)by_hash[lo].g : -1;
}

/* Marks a signal and every signal with the same pattern as served. */
static void cover_chain(const ldxi_hsdb *h, bool *covered, uint32_t g)
{
    for (; g != LDXI_HS_IGNORE; g = h->same_next[g]) covered[g] = true;
}

static void free_db(void *db, size_t mapped);

static int on_nothing(unsigned id, unsigned long long from, unsigned long long to,
                      unsigned flags, void *ctx)
{
    (void)id;
    (void)from;
    (void)to;
    (void)flags;
    (void)ctx;
    return 0;
}

/* Whether this machine can scan with db: one from an older logdx, or from another
 * machine, may need CPU features this one lacks (see `portable`). */
static bool runs_here(const hs_database_t *db)
{
    hs_scratch_t *scratch = NULL;
    bool ok = hs_alloc_scratch(db, &scratch) == HS_SUCCESS &&
              ldxi_hs_scan(db, "", 0, scratch, on_nothing, NULL) == HS_SUCCESS;
    hs_free_scratch(scratch);
    return ok;
}

/* A serialized database, loaded. Into pages mapped and populated at once where the
 * system can: touched one by one, the fresh pages of the 800 KB built-in database cost
 * 1 ms of a 17 ms start-up in page faults. *mapped says which way it went. NULL when it
 * cannot be loaded or cannot scan here (the caller compiles instead). */
static hs_database_t *load_db(const unsigned char *p, size_t n, size_t *mapped)
{
    hs_database_t *db = NULL;
    *mapped = 0;
#ifdef MAP_POPULATE
    size_t size = 0;
    if (hs_serialized_database_size((const char *)p, n, &size) == HS_SUCCESS && size) {
        void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (mem != MAP_FAILED) {
            if (hs_deserialize_database_at((const char *)p, n, mem) == HS_SUCCESS) {
                *mapped = size;
                db = mem;
            } else {
                munmap(mem, size);
                return NULL;
            }
        }
    }
#endif
    if (!db && hs_deserialize_database((const char *)p, n, &db) != HS_SUCCESS) return NULL;
    if (!runs_here(db)) {
        free_db(db, *mapped);
        *mapped = 0;
        return NULL;
    }
    return db;
}

static void free_db(void *db, size_t mapped)
{
#ifdef MAP_POPULATE
    if (mapped) {
        munmap(db, mapped);
        return;
    }
#endif
    hs_free_database(db);
}

/* Loads a serialized part (the embedded one, or one from the cache: *keep, the malloc'd
 * bytes, which the part keeps when it holds on to its collapsed database's, and then
 * sets NULL) into the next slot: the signals it names by pattern are covered. False, with nothing changed, if it
 * does not load (e.g. built for other CPU features): those signals are compiled. */
/* A length (u64) and that many bytes: where they start, or NULL. */
static const unsigned char *take_bytes(const unsigned char **p, const unsigned char *end, size_t *n)
{
    uint64_t len;
    const unsigned char *q = take(*p, end, 8);
    if (!q) return NULL;
    memcpy(&len, *p, 8);
    if ((uint64_t)(end - q) < len) return NULL;
    *p = q + len;
    *n = (size_t)len;
    return q;
}

static bool from_blob(ldxi_hsdb *h, bool *covered, const hashed *by_hash,
                      const unsigned char *bytes, size_t len, unsigned char **keep)
{
    const unsigned char *p = bytes, *end = p + len;
    if (len < 8 || memcmp(p, "LDX6", 4) || h->nparts == (int)(sizeof h->part / sizeof *h->part))
        return false;
    bool *was = malloc(h->nsig ? h->nsig : 1);
    uint32_t n, tn = 0;
    memcpy(&n, p + 4, 4);
    p += 8;
    uint32_t *map = calloc(n ? n : 1, sizeof(uint32_t)), *tmap = NULL;
    if (!was || !map) {
        free(was);
        free(map);
        return false;
    }
    memcpy(was, covered, h->nsig);
    size_t nalways = h->nalways, ncalways = h->ncalways;
    uint32_t nids = 0;
    bool ok = true;
    for (uint32_t e = 0; e < n && ok; e++) {
        const unsigned char *q = take(p, end, 9);
        if (!q) {
            ok = false;
            break;
        }
        unsigned char kind = p[0];
        uint64_t hash;
        memcpy(&hash, p + 1, 8);
        const char *rid = take_str(&q, end), *sname = take_str(&q, end);
        if (!rid || !sname) {
            ok = false;
            break;
        }
        p = q;
        if (kind == 2) {
            if (nids == n) ok = false;
            else map[nids++] = h->nsig + (uint32_t)atoi(sname);
            continue;
        }
        long g = find_hash(by_hash, h->nsig, hash);
        if (g >= 0) cover_chain(h, covered, (uint32_t)g);
        if (kind == 1) {
            for (uint32_t x = (uint32_t)g; g >= 0 && x != LDXI_HS_IGNORE; x = h->same_next[x])
                if (!add_signal(&h->always, &h->nalways, x)) ok = false;
            continue;
        }
        map[nids++] = g >= 0 ? (uint32_t)g : LDXI_HS_IGNORE;
    }
    size_t dblen = 0, tdblen = 0;
    const unsigned char *dbp = ok ? take_bytes(&p, end, &dblen) : NULL;
    /* the template database: its ids' signals by pattern, then its bytes */
    const unsigned char *q = dbp ? take(p, end, 4) : NULL;
    if (q) {
        memcpy(&tn, p, 4);
        p = q;
        tmap = calloc(tn ? tn : 1, sizeof(uint32_t));
    }
    for (uint32_t e = 0; tmap && e < tn; e++) {
        uint64_t hash;
        q = take(p, end, 8);
        if (q) memcpy(&hash, p, 8);
        const char *rid = q ? take_str(&q, end) : NULL, *sname = rid ? take_str(&q, end) : NULL;
        if (!sname) {
            free(tmap);
            tmap = NULL;
            break;
        }
        p = q;
        long g = find_hash(by_hash, h->nsig, hash);
        tmap[e] = g >= 0 ? (uint32_t)g : LDXI_HS_IGNORE;
    }
    const unsigned char *tdbp = tmap ? take_bytes(&p, end, &tdblen) : NULL;
    /* the collapsed database: its ids (signals by pattern, specials by index), its
     * bytes, then the signals given up to calways */
    uint32_t cn = 0, cids = 0, *cmap = NULL;
    size_t cdblen = 0;
    const unsigned char *cdbp = NULL;
    q = tdbp ? take(p, end, 4) : NULL;
    if (q) {
        memcpy(&cn, p, 4);
        p = q;
        cmap = calloc(cn ? cn : 1, sizeof(uint32_t));
    }
    for (uint32_t e = 0; cmap && e < cn; e++) {
        q = take(p, end, 9);
        uint64_t hash = 0;
        unsigned char kind = q ? p[0] : 0;
        if (q) memcpy(&hash, p + 1, 8);
        const char *rid = q ? take_str(&q, end) : NULL, *sname = rid ? take_str(&q, end) : NULL;
        if (!sname) {
            free(cmap);
            cmap = NULL;
            break;
        }
        p = q;
        long g = kind == 2 ? -1 : find_hash(by_hash, h->nsig, hash);
        cmap[cids++] = kind == 2 ? h->nsig + (uint32_t)atoi(sname) : g >= 0 ? (uint32_t)g : LDXI_HS_IGNORE;
    }
    cdbp = cmap ? take_bytes(&p, end, &cdblen) : NULL;
    q = cdbp ? take(p, end, 4) : NULL;
    uint32_t can = 0;
    bool cok = q != NULL;
    if (q) {
        memcpy(&can, p, 4);
        p = q;
    }
    for (uint32_t e = 0; cok && e < can; e++) {
        uint64_t hash;
        q = take(p, end, 8);
        if (q) memcpy(&hash, p, 8);
        const char *rid = q ? take_str(&q, end) : NULL, *sname = rid ? take_str(&q, end) : NULL;
        if (!sname) {
            cok = false;
            break;
        }
        p = q;
        long g = find_hash(by_hash, h->nsig, hash);
        for (uint32_t x = (uint32_t)g; g >= 0 && x != LDXI_HS_IGNORE; x = h->same_next[x])
            if (!add_signal(&h->calways, &h->ncalways, x)) cok = false;
    }
    size_t mapped = 0, tmapped = 0;
    hs_database_t *db = cok ? load_db(dbp, dblen, &mapped) : NULL;
    hs_database_t *tdb = db && tn ? load_db(tdbp, tdblen, &tmapped) : NULL;
    /* the collapsed database stays serialized until it is asked for, in the bytes as
     * they are: the embedded ones, or a cache file's, which the part keeps (*keep) */
    const unsigned char *cblob = db && cmap && cn && cdblen ? cdbp : NULL;
    if (!db || (tn && !tdb) || (cn && cdblen && !cblob)) {
        if (db) free_db(db, mapped);
        if (tdb) free_db(tdb, tmapped);
        free(map);
        free(tmap);
        free(cmap);
        memcpy(covered, was, h->nsig);
        h->nalways = nalways;
        h->ncalways = ncalways;
        free(was);
        return false;
    }
    free(was);
    if (!tdb) {
        free(tmap);
        tmap = NULL;
    }
    if (!cblob) {
        free(cmap);
        cmap = NULL;
    }
    h->part[h->nparts++] = (ldxi_hspart){db, map, nids, mapped, tdb, tmap, tdb ? tn : 0, tmapped,
                                         NULL, cmap, cblob ? cids : 0, 0, cblob, cblob ? cdblen : 0, NULL};
    if (cblob && keep) {
        h->part[h->nparts - 1].cfree = *keep;
        *keep = NULL;
    }
    return true;
}

bool ldxi_hsdb_collapsed(const struct ldx_ruleset *rs)
{
    ldxi_hsdb *h = (ldxi_hsdb *)rs->hs; /* loading is the one change, under its lock */
    if (!h->collapsed) return false;
    int st = __atomic_load_n(&h->cstate, __ATOMIC_ACQUIRE);
    if (st) return st > 0;
    pthread_mutex_lock(&h->clock);
    if (!h->cstate) {
        bool ok = true;
        for (int i = 0; i < h->nparts && ok; i++) {
            ldxi_hspart *p = &h->part[i];
            if (p->cdb) continue;
            ok = p->cblob && (p->cdb = load_db(p->cblob, p->cbloblen, &p->cmapped)) != NULL;
        }
        /* and every signal's collapsed widening, with which the memo asks a collapsed
         * template about the signals no database serves (always[], calways[]) and again
         * about those a database named from a cheap form of the pattern (a literal or two,
         * which a collapsed template holds far more often than the pattern can match it) */
        for (uint32_t g = 0; ok && g < h->nsig; g++) {
            h->cwide[g].pattern = ldxi_re_collapse_digits(signal_of(rs, h, g)->pattern); /* NULL: none */
            h->cwide[g].options = rs->rules[h->refs[g].rule]->sigs[h->refs[g].sig].options;
        }
        __atomic_store_n(&h->cstate, ok ? 1 : -1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&h->clock);
    return h->cstate > 0;
}

static bool serialize_part(const ldx_ruleset *rs, const ldxi_hsdb *h, const ldxi_hspart *part,
                           size_t a0, size_t a1, size_t c0, size_t c1, char **out, size_t *outlen);

/* What a run-time database depends on: this logdx (how it gives patterns to
 * Vectorscan), Vectorscan's version, each pattern with its flags, the specials, and the
 * examples of every rule (they decide which patterns go in as plain strings). Cheap to
 * compute: no pattern is matched against the examples here. */
static uint64_t cache_key(const ldx_ruleset *rs, const ldxi_hsdb *h, const uint32_t *gs,
                          size_t n, bool with_specials)
{
    uint64_t k = fnv(1469598103934665603ULL, "ldx-hsdb-5 " LDX_VERSION " ", 12 + strlen(LDX_VERSION));
    const char *v = hs_version();
    k = fnv(k, v, strlen(v));
    k = fnv(k, with_specials ? "S" : "-", 1);
    for (size_t sp = 0; with_specials && sp < LDXI_HS_NSPECIAL; sp++)
        k = fnv(k, specials[sp], strlen(specials[sp]) + 1);
    for (size_t x = 0; x < n; x++) {
        const ldx_signal_info *si = signal_of(rs, h, gs[x]);
        uint64_t sh = signal_hash(si);
        k = fnv(k, (const char *)&sh, sizeof sh);
        /* and what the database may be given for it, which changes with logdx's own
         * code (ldxi_hsentry_for() picks one by the examples, hashed below) */
        char *form = ldxi_hsentry_form(si->pattern);
        if (form) k = fnv(k, form, strlen(form) + 1);
        free(form);
        bool ci;
        char *lits = ldxi_literal_set(si->pattern, &ci);
        if (lits) k = fnv(k, lits, strlen(lits) + 1);
        free(lits);
    }
    for (size_t i = 0; i < rs->n; i++) {
        const ldx_strv *lists[2] = {&rs->rules[i]->info.ex_match, &rs->rules[i]->info.ex_no_match};
        for (int li = 0; li < 2; li++)
            for (size_t e = 0; e < lists[li]->n; e++)
                k = fnv(k, lists[li]->v[e], strlen(lists[li]->v[e]) + 1);
    }
    return k;
}

/* Whether a cached part served every signal it was meant to (a hash collision or a
 * stale file would not). */
static bool all_covered(const bool *covered, const uint32_t *gs, size_t n)
{
    for (size_t x = 0; x < n; x++)
        if (!covered[gs[x]]) return false;
    return true;
}

static void free_part(ldxi_hspart *p)
{
    free_db(p->db, p->mapped);
    free(p->map);
    if (p->tdb) free_db(p->tdb, p->tmapped);
    free(p->tmap);
    if (p->cdb) free_db(p->cdb, p->cmapped);
    free(p->cmap);
    free(p->cfree);
    memset(p, 0, sizeof *p);
}

/* Whether most of a loaded part's patterns are the ruleset's (the specials aside). */
static bool serves_most(const ldxi_hspart *p, uint32_t nsig)
{
    size_t used = 0, all = 0;
    for (uint32_t i = 0; i < p->nids; i++) {
        if (p->map[i] != LDXI_HS_IGNORE && p->map[i] >= nsig) continue; /* a special */
        all++;
        used += p->map[i] != LDXI_HS_IGNORE;
    }
    return 2 * used >= all;
}

/* Which signals' patterns are digit-blind, and the others widened (digits.c): the
 * template database and the line memo go by them. Each is read when first asked
 * (ldxi_hsdb_blind). */
static bool digit_blindness(ldxi_hsdb *h)
{
    h->blind = calloc(h->nsig ? h->nsig : 1, 1);
    h->wide = calloc(h->nsig ? h->nsig : 1, sizeof(ldxi_sigc));
    return h->blind && h->wide;
}

static pthread_mutex_t blind_lock = PTHREAD_MUTEX_INITIALIZER;

bool ldxi_hsdb_blind(const ldxi_hsdb *h, uint32_t g)
{
    unsigned char b = __atomic_load_n(&h->blind[g], __ATOMIC_ACQUIRE);
    if (b) return b == 1;
    pthread_mutex_lock(&blind_lock);
    b = h->blind[g];
    if (!b) {
        const ldxi_sigc *sc = h->refs[g].sc;
        b = ldxi_re_digit_blind(sc->pattern) ? 1 : 2;
        if (b == 2) {
            h->wide[g].pattern = ldxi_re_widen_digits(sc->pattern); /* NULL: none */
            h->wide[g].options = sc->options;
        }
        __atomic_store_n(&h->blind[g], b, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&blind_lock);
    return b == 1;
}

/* Three environment variables are for testing: LOGDX_ENGINE=pcre2 builds no prefilter
 * (the plain engine, as with -DLOGDX_PREFILTER=OFF), LOGDX_NO_EMBEDDED_DB compiles every
 * pattern at run time instead of loading the build-time database, and
 * LOGDX_PREFILTER_ANCHORS=1 gives the database the anchors it never gets otherwise (so
 * that a test can show ldxi_hsdb_verify() catching what they do to Vectorscan). */
void ldxi_hsdb_build(ldx_ruleset *rs, struct ldx_msgs *msgs)
{
    const char *eng = getenv("LOGDX_ENGINE");
    if (eng && !strcmp(eng, "pcre2")) return;
    ldxi_hsdb *h = calloc(1, sizeof(*h));
    uint32_t *base = calloc(rs->n + 1, sizeof(uint32_t));
    if (h) pthread_mutex_init(&h->clock, NULL);
    if (!h || !base) goto fail;
    for (size_t i = 0; i < rs->n; i++) base[i + 1] = base[i] + (uint32_t)rs->rules[i]->info.nsignals;
    h->nsig = base[rs->n];
    h->refs = calloc(h->nsig ? h->nsig : 1, sizeof(ldxi_sigref));
    bool *covered = calloc(h->nsig ? h->nsig : 1, sizeof(bool));
    uint32_t *rest = calloc(h->nsig ? h->nsig : 1, sizeof(uint32_t));
    if (!h->refs || !covered || !rest) {
        free(covered);
        free(rest);
        goto fail;
    }
    hashed *by_hash = calloc(h->nsig ? h->nsig : 1, sizeof(hashed));
    h->same_next = calloc(h->nsig ? h->nsig : 1, sizeof(uint32_t));
    h->same_head = calloc(h->nsig ? h->nsig : 1, sizeof(uint32_t));
    if (!by_hash || !h->same_next || !h->same_head) {
        free(by_hash);
        free(covered);
        free(rest);
        goto fail;
    }
    for (size_t i = 0; i < rs->n; i++)
        for (uint32_t k = 0; k < rs->rules[i]->info.nsignals; k++) {
            uint32_t g = base[i] + k;
            h->refs[g] = (ldxi_sigref){(uint32_t)i, k, &rs->rules[i]->sigs[k]};
            by_hash[g] = (hashed){signal_hash(&rs->rules[i]->info.signals[k]), g};
        }
    if (!digit_blindness(h)) {
        free(by_hash);
        free(covered);
        free(rest);
        goto fail;
    }
    if (h->nsig > 1) qsort(by_hash, h->nsig, sizeof(hashed), hashed_cmp);
    /* signals with one pattern sit side by side in by_hash, the first (smallest g) first */
    for (uint32_t x = 0; x < h->nsig; x++) {
        uint32_t g = by_hash[x].g;
        bool first = x == 0 || by_hash[x - 1].hash != by_hash[x].hash;
        h->same_head[g] = first ? g : h->same_head[by_hash[x - 1].g];
        h->same_next[g] = x + 1 < h->nsig && by_hash[x + 1].hash == by_hash[x].hash
                              ? by_hash[x + 1].g
                              : LDXI_HS_IGNORE;
    }
    share_pattern(rs, h);
    if (!find_twins(rs, h)) {
        free(by_hash);
        free(covered);
        free(rest);
        goto fail;
    }
    size_t na0 = h->nalways;
    bool embedded = getenv("LOGDX_NO_EMBEDDED_DB") == NULL &&
                    from_blob(h, covered, by_hash, ldxi_builtin_hsdb, ldxi_builtin_hsdb_len, NULL);
    if (embedded && !serves_most(&h->part[h->nparts - 1], h->nsig)) {
        /* --no-default-rules, or a few built-in rules among many of the user's: scanning
         * for every built-in pattern to use a handful would double the scan's cost (it
         * did, for a set of user rules alone); their patterns are compiled with the
         * rest, once, and cached */
        free_part(&h->part[--h->nparts]);
        h->nalways = na0;
        h->ncalways = 0;
        memset(covered, 0, h->nsig);
        embedded = false;
    }
    h->embedded = embedded;
    /* what is left: one signal per distinct pattern (the first), the others follow it */
    size_t nrest = 0;
    for (uint32_t g = 0; g < h->nsig; g++) {
        if (covered[g] || signal_of(rs, h, g)->tail) continue;
        rest[nrest++] = g;
        cover_chain(h, covered, g);
    }
    bool ok = true;
    /* the rest in parts of at most LDXI_HS_PART_SIGNALS (the last part takes what the
     * part limit leaves), each compiled once and then loaded from its own cache file */
    size_t room = (size_t)(LDXI_HS_MAX_PARTS - h->nparts);
    size_t per = LDXI_HS_PART_SIGNALS;
    if (room && (nrest + per - 1) / per > room) per = (nrest + room - 1) / room;
    for (size_t off = 0; ok && (off < nrest || (off == 0 && !embedded)); off += per) {
        size_t cnt = nrest - off < per ? nrest - off : per;
        bool with_sp = !embedded && off == 0;
        uint32_t *gs = rest + off;
        char path[4300];
        bool cache = ldxi_hscache_file(cache_key(rs, h, gs, cnt, with_sp), path, sizeof path);
        size_t len = 0;
        unsigned char *blob = cache ? ldxi_hscache_read(path, &len) : NULL;
        memset(covered, 0, h->nsig); /* from_blob covers only what the blob names */
        size_t na = h->nalways, nca = h->ncalways;
        bool loaded = blob && from_blob(h, covered, by_hash, blob, len, &blob);
        bool hit = loaded && all_covered(covered, gs, cnt);
        free(blob);
        if (!hit) {
            if (loaded) { /* but not for these signals: a stale file */
                free_part(&h->part[--h->nparts]);
                h->nalways = na;
                h->ncalways = nca;
            }
            size_t a0 = h->nalways, c0 = h->ncalways;
            int before = h->nparts;
            ok = compile_part(rs, h, gs, cnt, with_sp, msgs);
            char *bytes = NULL;
            if (ok && cache && h->nparts > before &&
                serialize_part(rs, h, &h->part[h->nparts - 1], a0, h->nalways, c0, h->ncalways, &bytes, &len))
                ldxi_hscache_write(path, bytes, len);
            free(bytes);
        }
        if (cnt == 0) break;
    }
    free(by_hash);
    free(covered);
    free(rest);
    if (!ok) goto fail;
    ldxi_sort_unique_u32(h->always, &h->nalways);
    ldxi_sort_unique_u32(h->calways, &h->ncalways);
    h->collapsed = h->nparts > 0;
    for (int i = 0; i < h->nparts; i++) h->collapsed = h->collapsed && (h->part[i].cdb || h->part[i].cblob);
    /* their widenings are made when the collapsed databases load (ldxi_hsdb_collapsed) */
    if (h->collapsed && !(h->cwide = calloc(h->nsig ? h->nsig : 1, sizeof(ldxi_sigc)))) goto fail;
    free(base);
    rs->hs = h;
    return;
fail:
    free(base);
    ldxi_hsdb_free(h);
}

void ldxi_hsdb_free(ldxi_hsdb *h)
{
    if (!h) return;
    for (int i = 0; i < h->nparts; i++) free_part(&h->part[i]);
    pthread_mutex_destroy(&h->clock);
    free(h->refs);
    free(h->same_next);
    free(h->same_head);
    free(h->always);
    for (uint32_t g = 0; h->wide && g < h->nsig; g++) {
        ldxi_sig_free_code(&h->wide[g]);
        free((char *)h->wide[g].pattern);
    }
    free(h->wide);
    for (uint32_t g = 0; h->cwide && g < h->nsig; g++) {
        ldxi_sig_free_code(&h->cwide[g]);
        free((char *)h->cwide[g].pattern);
    }
    free(h->cwide);
    free(h->calways);
    free(h->blind);
    free(h->twin_of);
    free(h->has_twins);
    free(h);
}

static bool put(ldx_buf *b, const void *p, size_t n) { return ldxi_buf_append(b, p, n) == LDX_OK; }

/* A part as a blob for from_blob(): its database ids, in order, then the signals of
 * always[a0..a1) (those its compilation gave up on), then the database. */
/* The rule id and signal name of signal g, and its pattern hash. */
static bool put_signal(ldx_buf *b, const ldx_ruleset *rs, const ldxi_hsdb *h, uint32_t g)
{
    uint64_t hash = 0;
    char rid[256] = "", sname[256] = "";
    if (g != LDXI_HS_IGNORE) {
        const ldx_rule_info *ri = &rs->rules[h->refs[g].rule]->info;
        const ldx_signal_info *si = &ri->signals[h->refs[g].sig];
        snprintf(rid, sizeof rid, "%s", ri->id);
        snprintf(sname, sizeof sname, "%s", si->name);
        hash = signal_hash(si);
    }
    return put(b, &hash, 8) && put(b, rid, strlen(rid) + 1) && put(b, sname, strlen(sname) + 1);
}

/* A part as a blob for from_blob(): its database ids, in order, then the signals of
 * always[a0..a1) (those its compilation gave up on), then the database; then the
 * template database's ids and the template database. */
/* An id of a database and what it stands for: kind (0 a signal, 2 a special), then
 * put_signal's fields (a special: no hash, no rule, its index as the name). */
static bool put_id(ldx_buf *b, const ldx_ruleset *rs, const ldxi_hsdb *h, uint32_t g)
{
    unsigned char kind = g != LDXI_HS_IGNORE && g >= h->nsig ? 2 : 0;
    if (!put(b, &kind, 1)) return false;
    if (kind == 0) return put_signal(b, rs, h, g);
    char sname[32];
    uint64_t hash = 0;
    snprintf(sname, sizeof sname, "%u", g - h->nsig);
    return put(b, &hash, 8) && put(b, "", 1) && put(b, sname, strlen(sname) + 1);
}

static bool serialize_part(const ldx_ruleset *rs, const ldxi_hsdb *h, const ldxi_hspart *part,
                           size_t a0, size_t a1, size_t c0, size_t c1, char **out, size_t *outlen)
{
    char *bytes = NULL, *tbytes = NULL, *cbytes = NULL;
    size_t n = 0, tn = 0, cn = 0;
    if (hs_serialize_database(part->db, &bytes, &n) != HS_SUCCESS) return false;
    if ((part->tdb && hs_serialize_database(part->tdb, &tbytes, &tn) != HS_SUCCESS) ||
        (part->cdb && hs_serialize_database(part->cdb, &cbytes, &cn) != HS_SUCCESS)) {
        free(bytes);
        free(tbytes);
        return false;
    }
    if (!part->cdb && part->cblob && (cbytes = malloc(part->cbloblen))) { /* not loaded yet */
        memcpy(cbytes, part->cblob, part->cbloblen);
        cn = part->cbloblen;
    }
    ldx_buf b;
    ldxi_buf_init(&b, SIZE_MAX);
    uint32_t count = part->nids + (uint32_t)(a1 - a0);
    bool ok = put(&b, "LDX6", 4) && put(&b, &count, 4);
    for (uint32_t id = 0; ok && id < count; id++) {
        if (id < part->nids) {
            ok = put_id(&b, rs, h, part->map[id]);
        } else {
            unsigned char kind = 1;
            ok = put(&b, &kind, 1) && put_signal(&b, rs, h, h->always[a0 + id - part->nids]);
        }
    }
    uint64_t len64 = n, tlen64 = tn, clen64 = cn;
    uint32_t tcount = part->tdb ? part->ntids : 0, ccount = cn ? part->ncids : 0;
    uint32_t cacount = (uint32_t)(c1 - c0);
    ok = ok && put(&b, &len64, 8) && put(&b, bytes, n) && put(&b, &tcount, 4);
    for (uint32_t id = 0; ok && id < tcount; id++) ok = put_signal(&b, rs, h, part->tmap[id]);
    ok = ok && put(&b, &tlen64, 8) && (!tn || put(&b, tbytes, tn)) && put(&b, &ccount, 4);
    for (uint32_t id = 0; ok && id < ccount; id++) ok = put_id(&b, rs, h, part->cmap[id]);
    ok = ok && put(&b, &clen64, 8) && (!cn || put(&b, cbytes, cn)) && put(&b, &cacount, 4);
    for (size_t i = c0; ok && i < c1; i++) ok = put_signal(&b, rs, h, h->calways[i]);
    free(bytes);
    free(tbytes);
    free(cbytes);
    if (!ok) {
        ldxi_buf_free(&b);
        return false;
    }
    *out = b.data;
    *outlen = b.len;
    return true;
}

bool ldxi_hsdb_serialize(const ldx_ruleset *rs, char **out, size_t *outlen)
{
    const ldxi_hsdb *h = rs->hs;
    if (!h || h->nparts != 1 || h->embedded) return false;
    return serialize_part(rs, h, &h->part[0], 0, h->nalways, 0, h->ncalways, out, outlen);
}

#else /* PCRE2 alone: LOGDX_PREFILTER=OFF */

void ldxi_hsdb_build(ldx_ruleset *rs, struct ldx_msgs *msgs)
{
    (void)rs;
    (void)msgs;
}
void ldxi_hsdb_free(ldxi_hsdb *h) { (void)h; }
bool ldxi_hsdb_serialize(const ldx_ruleset *rs, char **out, size_t *len)
{
    (void)rs;
    (void)out;
    (void)len;
    return false;
}
#endif
