/* Building the prefilter database. Compiling hundreds of patterns costs far more than
 * scanning a small log, so the built-in rules' database is compiled at build time and
 * embedded; it is used only when a fingerprint of every pattern and flag, in order,
 * matches the ruleset at hand (any user rule changes the order, and then the database
 * is compiled here instead). */
#include "hsdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ruleset_int.h"

#ifdef LDX_HAVE_HS
#include <hs/hs.h>

static const char *const specials[LDXI_HS_NSPECIAL] = {
    /* torchrun's failure summary: its header lines */
    "Root Cause \\(first observed failure\\)|^Failures:",
    /* lines that may carry a version banner */
    "(?i)torch|cuda|driver version|nccl version|deepspeed|transformers|accelerate|lightning|vllm|llm engine|jax|megatron|peft",
};

/* FNV-1a over every pattern and its flags, in ruleset order: the key that says an
 * embedded database fits this ruleset. */
static uint64_t fingerprint(const ldx_ruleset *rs)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < rs->n; i++) {
        const ldx_rule_info *ri = &rs->rules[i]->info;
        for (size_t k = 0; k < ri->nsignals; k++) {
            const char *p = ri->signals[k].pattern;
            for (; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
            h = (h ^ (ri->signals[k].caseless ? 1u : 2u)) * 1099511628211ULL;
        }
    }
    for (size_t i = 0; i < LDXI_HS_NSPECIAL; i++)
        for (const char *p = specials[i]; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return h;
}

extern const unsigned char ldxi_builtin_hsdb[];
extern const size_t ldxi_builtin_hsdb_len;

typedef struct {
    bool *seen;
} verify_ctx;

static int on_verify(unsigned id, unsigned long long from, unsigned long long to,
                     unsigned flags, void *ctx)
{
    (void)from;
    (void)to;
    (void)flags;
    ((verify_ctx *)ctx)->seen[id] = true;
    return 0;
}

/* Vectorscan must report every line its PCRE2 twin matches; a few complex patterns
 * trip bugs in it (seen: `[\d.]+ ?[KMGT]i?B` after `.*?`). Each rule's own examples are
 * the evidence at hand: a signal that PCRE2 matches on an example line but the database
 * misses goes to the always list. Returns the first such signal's id, or -1. */
static long verify(const ldx_ruleset *rs, hs_database_t *db, const unsigned *ids, size_t n,
                   size_t total, const size_t *base)
{
    hs_scratch_t *scratch = NULL;
    if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS) return -1;
    bool *seen = calloc(total + LDXI_HS_NSPECIAL, sizeof(bool));
    bool *present = calloc(total + LDXI_HS_NSPECIAL, sizeof(bool));
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    long bad = -1;
    for (size_t i = 0; i < n; i++)
        if (present) present[ids[i]] = true;
    for (size_t i = 0; seen && present && md && bad < 0 && i < rs->n; i++) {
        const ldxi_rule *r = rs->rules[i];
        const ldx_strv *lists[2] = {&r->info.ex_match, &r->info.ex_no_match};
        for (int li = 0; li < 2 && bad < 0; li++)
            for (size_t e = 0; e < lists[li]->n && bad < 0; e++) {
                const char *p = lists[li]->v[e];
                while (*p && bad < 0) {
                    const char *end = p;
                    while (*end && *end != '\n' && *end != '\r') end++;
                    size_t len = (size_t)(end - p);
                    verify_ctx vc = {seen};
                    memset(seen, 0, (total + LDXI_HS_NSPECIAL) * sizeof(bool));
                    hs_scan(db, len ? p : "", (unsigned)len, 0, scratch, on_verify, &vc);
                    for (size_t k = 0; k < r->info.nsignals; k++) {
                        size_t g = base[i] + k;
                        if (!present[g] || seen[g]) continue;
                        if (pcre2_match(r->sigs[k].code, (PCRE2_SPTR)p, len, 0, 0, md, NULL) >= 0) {
                            bad = (long)g;
                            break;
                        }
                    }
                    p = *end ? end + 1 : end;
                }
            }
    }
    pcre2_match_data_free(md);
    free(seen);
    free(present);
    hs_free_scratch(scratch);
    return bad;
}

/* Compiles every signal; patterns Vectorscan refuses, or misses on the rules' own
 * examples, move to the always list, one at a time, until the rest is sound. */
static bool compile(ldx_ruleset *rs, ldxi_hsdb *h, struct ldx_msgs *msgs)
{
    size_t total = 0;
    for (size_t i = 0; i < rs->n; i++) total += rs->rules[i]->info.nsignals;
    const char **exprs = calloc(total + LDXI_HS_NSPECIAL, sizeof(char *));
    unsigned *flags = calloc(total + LDXI_HS_NSPECIAL, sizeof(unsigned));
    unsigned *ids = calloc(total + LDXI_HS_NSPECIAL, sizeof(unsigned));
    ldxi_sigref *refs = calloc(total ? total : 1, sizeof(ldxi_sigref));
    bool *excluded = calloc(total ? total : 1, sizeof(bool));
    h->always = calloc(total ? total : 1, sizeof(ldxi_sigref));
    size_t *base = calloc(rs->n + 1, sizeof(size_t));
    bool ok = exprs && flags && ids && refs && excluded && h->always && base;
    for (size_t i = 0; ok && i < rs->n; i++) base[i + 1] = base[i] + rs->rules[i]->info.nsignals;
    size_t k = 0;
    for (size_t i = 0; ok && i < rs->n; i++)
        for (size_t j = 0; j < rs->rules[i]->info.nsignals; j++, k++)
            refs[k] = (ldxi_sigref){(uint32_t)i, (uint32_t)j};
    for (int attempt = 0; ok && attempt < 128; attempt++) {
        size_t n = 0;
        for (size_t g = 0; g < total; g++) {
            if (excluded[g]) continue;
            const ldx_signal_info *si = &rs->rules[refs[g].rule]->info.signals[refs[g].sig];
            exprs[n] = si->pattern;
            flags[n] = HS_FLAG_MULTILINE | HS_FLAG_PREFILTER | HS_FLAG_ALLOWEMPTY |
                       (si->caseless ? HS_FLAG_CASELESS : 0);
            ids[n] = (unsigned)g;
            n++;
        }
        for (size_t sp = 0; sp < LDXI_HS_NSPECIAL; sp++) {
            exprs[n] = specials[sp];
            flags[n] = HS_FLAG_MULTILINE;
            ids[n] = (unsigned)(total + sp);
            n++;
        }
        hs_database_t *db = NULL;
        hs_compile_error_t *err = NULL;
        if (hs_compile_multi(exprs, flags, ids, (unsigned)n, HS_MODE_BLOCK, NULL, &db, &err) ==
            HS_SUCCESS) {
            long missed = verify(rs, db, ids, n, total, base);
            if (missed < 0) {
                h->db = db;
                break;
            }
            hs_free_database(db);
            excluded[missed] = true;
            continue;
        }
        int bad = err ? err->expression : -1;
        if (bad < 0 || ids[bad] >= total) {
            if (msgs)
                ldx_msgs_add(msgs, LDX_MSG_WARNING, NULL, 0, 0,
                             "prefilter: %s; scanning with PCRE2 alone",
                             err && err->message ? err->message : "cannot compile");
            hs_free_compile_error(err);
            ok = false;
            break;
        }
        excluded[ids[bad]] = true;
        hs_free_compile_error(err);
    }
    if (ok && h->db) {
        h->ids = refs;
        h->nsig = (uint32_t)total;
        for (size_t g = 0; g < total; g++)
            if (excluded[g]) h->always[h->nalways++] = refs[g];
        refs = NULL;
    }
    free(exprs);
    free(flags);
    free(ids);
    free(refs);
    free(excluded);
    free(base);
    return ok && h->db;
}

static bool from_embedded(ldx_ruleset *rs, ldxi_hsdb *h)
{
    /* layout: fingerprint (8), nalways (4), always refs (8 each), serialized database */
    if (ldxi_builtin_hsdb_len < 12) return false;
    const unsigned char *p = ldxi_builtin_hsdb;
    uint64_t fp;
    uint32_t nal;
    memcpy(&fp, p, 8);
    memcpy(&nal, p + 8, 4);
    if (fp != fingerprint(rs) || 12 + (size_t)nal * 8 > ldxi_builtin_hsdb_len) return false;
    size_t total = 0;
    for (size_t i = 0; i < rs->n; i++) total += rs->rules[i]->info.nsignals;
    h->ids = calloc(total ? total : 1, sizeof(ldxi_sigref));
    h->always = calloc(nal ? nal : 1, sizeof(ldxi_sigref));
    if (!h->ids || !h->always) return false;
    size_t k = 0;
    for (size_t i = 0; i < rs->n; i++)
        for (size_t j = 0; j < rs->rules[i]->info.nsignals; j++)
            h->ids[k++] = (ldxi_sigref){(uint32_t)i, (uint32_t)j};
    memcpy(h->always, p + 12, (size_t)nal * 8);
    h->nalways = nal;
    h->nsig = (uint32_t)total;
    size_t off = 12 + (size_t)nal * 8;
    hs_database_t *db = NULL;
    if (hs_deserialize_database((const char *)p + off, ldxi_builtin_hsdb_len - off, &db) !=
        HS_SUCCESS)
        return false; /* e.g. built for other CPU features: compile instead */
    h->db = db;
    h->embedded = true;
    return true;
}

void ldxi_hsdb_build(ldx_ruleset *rs, struct ldx_msgs *msgs)
{
    const char *eng = getenv("LOGDX_ENGINE");
    if (eng && !strcmp(eng, "pcre2")) return;
    ldxi_hsdb *h = calloc(1, sizeof(*h));
    if (!h) return;
    if (from_embedded(rs, h) || (ldxi_hsdb_free(h), h = calloc(1, sizeof(*h)), h && compile(rs, h, msgs))) {
        rs->hs = h;
        return;
    }
    ldxi_hsdb_free(h);
}

void ldxi_hsdb_free(ldxi_hsdb *h)
{
    if (!h) return;
    if (h->db) hs_free_database(h->db);
    free(h->ids);
    free(h->always);
    free(h);
}

bool ldxi_hsdb_serialize(const ldx_ruleset *rs, char **out, size_t *len)
{
    const ldxi_hsdb *h = rs->hs;
    if (!h || !h->db) return false;
    char *bytes = NULL;
    size_t n = 0;
    if (hs_serialize_database(h->db, &bytes, &n) != HS_SUCCESS) return false;
    size_t total = 12 + h->nalways * 8 + n;
    char *buf = malloc(total);
    if (!buf) {
        free(bytes);
        return false;
    }
    uint64_t fp = fingerprint(rs);
    uint32_t nal = (uint32_t)h->nalways;
    memcpy(buf, &fp, 8);
    memcpy(buf + 8, &nal, 4);
    memcpy(buf + 12, h->always, h->nalways * 8);
    memcpy(buf + 12 + h->nalways * 8, bytes, n);
    free(bytes);
    *out = buf;
    *len = total;
    return true;
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
