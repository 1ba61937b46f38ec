/* Fuzz target: rule conditions (src/rules/cond.c). Parses the input as a condition over
 * a fixed set of signals and captures, checks that the tree only names what exists and
 * that an error points inside the text, then evaluates it with numbers drawn from the
 * input (NaN, infinities and zeros included). The same text is parsed as a signal's
 * where too (bare capture names, no functions) and tested on such numbers. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "rules/cond.h"

static const char *const oom_caps[] = {"bytes", "req"};
static const char *const mem_caps[] = {"bytes", "gib", "step"};
static const char *const f_caps[] = {"unalloc", "req"};
static const ldxi_cond_sig sigs[] = {
    {"oom", oom_caps, 2},  {"timeout", NULL, 0}, {"mem", mem_caps, 3},
    {"retry_ok", NULL, 0}, {"f", f_caps, 2},     {"reading", mem_caps, 3},
};
#define NSIGS (sizeof sigs / sizeof sigs[0])

typedef struct {
    uint64_t seed;
    size_t ntrack; /* trackers the parse numbered */
} env_ctx;

static double pick(env_ctx *e, int sig, int salt)
{
    static const double special[] = {0.0, 1.0, -1.0, 3.0, 1e300, -1e300, 0.5};
    e->seed = e->seed * 6364136223846793005ull + 1442695040888963407ull + (uint64_t)sig * 31u +
              (uint64_t)salt;
    unsigned r = (unsigned)(e->seed >> 33);
    switch (r % 10) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: case 4: case 5: return special[(r >> 4) % (sizeof special / sizeof special[0])];
    default: return (double)((r >> 4) % 1000) / 7.0;
    }
}

static double e_count(void *c, int sig)
{
    FUZZ_CHECK(sig >= 0 && (size_t)sig < NSIGS);
    double v = pick(c, sig, 1);
    return isfinite(v) && v >= 0 ? floor(v) : 0.0;
}
static double e_ranks(void *c, int sig)
{
    FUZZ_CHECK(sig >= 0 && (size_t)sig < NSIGS);
    double v = pick(c, sig, 2);
    return isfinite(v) && v >= 0 ? floor(v) : 0.0;
}
static double e_first(void *c, int sig)
{
    FUZZ_CHECK(sig >= 0 && (size_t)sig < NSIGS);
    return pick(c, sig, 3);
}
static double e_last_line(void *c, int sig)
{
    FUZZ_CHECK(sig >= 0 && (size_t)sig < NSIGS);
    return pick(c, sig, 4);
}
static double e_others(void *c, int a, int b)
{
    FUZZ_CHECK(a >= 0 && (size_t)a < NSIGS && b >= 0 && (size_t)b < NSIGS);
    double v = pick(c, a, 5);
    return isfinite(v) && v >= 0 ? floor(v) : 0.0;
}
static double e_track(void *c, int t)
{
    FUZZ_CHECK(t >= 0 && (size_t)t < ((env_ctx *)c)->ntrack);
    double v = pick(c, t % (int)NSIGS, 6);
    return isfinite(v) && v >= 0 ? floor(v) : 0.0;
}
static double e_lines(void *c) { return fabs(pick(c, 0, 7)); }
static double e_stat(void *c, int sig, int cap, ldxi_func f, double arg)
{
    FUZZ_CHECK(sig >= 0 && (size_t)sig < NSIGS);
    FUZZ_CHECK(cap >= 0 && (size_t)cap < sigs[sig].ncaps);
    FUZZ_CHECK(f >= LDXI_F_MAX && f <= LDXI_F_JUMP_NEXT);
    if (f == LDXI_F_RISING || f == LDXI_F_FALLING || f == LDXI_F_FLAT) {
        FUZZ_CHECK(arg >= 2 && arg == floor(arg));
        return pick(c, sig, 4) > 1.0 ? 1.0 : 0.0;
    }
    return pick(c, sig, 5 + cap);
}

static void check_tree(const ldxi_cond *c, size_t len, int depth)
{
    if (!c) return;
    FUZZ_CHECK(depth < 100000);
    FUZZ_CHECK(c->off <= len);
    switch (c->kind) {
    case LDXI_C_NUM: FUZZ_CHECK(!c->l && !c->r); break;
    case LDXI_C_SIG: FUZZ_CHECK(c->sig >= 0 && (size_t)c->sig < NSIGS); break;
    case LDXI_C_FUNC:
        FUZZ_CHECK(c->sig >= 0 && (size_t)c->sig < NSIGS);
        FUZZ_CHECK(c->cap == -1 || (size_t)c->cap < sigs[c->sig].ncaps);
        if (c->func == LDXI_F_BEFORE || c->func == LDXI_F_THEN || c->func == LDXI_F_AFTER ||
            c->func == LDXI_F_OTHERS)
            FUZZ_CHECK(c->sig2 >= 0 && (size_t)c->sig2 < NSIGS);
        break;
    case LDXI_C_NOT: FUZZ_CHECK(c->l && !c->r); break;
    case LDXI_C_AND: case LDXI_C_OR: case LDXI_C_CMP: FUZZ_CHECK(c->l && c->r); break;
    case LDXI_C_ARITH: FUZZ_CHECK(c->l && c->r && strchr("+-*/", c->aop)); break;
    default: FUZZ_CHECK(!"unknown node kind");
    }
    check_tree(c->l, len, depth + 1);
    check_tree(c->r, len, depth + 1);
}

/* A where's tree: numbers, captures of the line and operators only. */
static void check_where(const ldxi_cond *c, size_t len, size_t ncaps)
{
    if (!c) return;
    FUZZ_CHECK(c->off <= len);
    switch (c->kind) {
    case LDXI_C_NUM: FUZZ_CHECK(!c->l && !c->r); break;
    case LDXI_C_CAP: FUZZ_CHECK(c->cap >= 0 && (size_t)c->cap < ncaps && !c->l && !c->r); break;
    case LDXI_C_NOT: FUZZ_CHECK(c->l && !c->r); break;
    case LDXI_C_AND: case LDXI_C_OR: case LDXI_C_CMP: FUZZ_CHECK(c->l && c->r); break;
    case LDXI_C_ARITH: FUZZ_CHECK(c->l && c->r && strchr("+-*/", c->aop)); break;
    default: FUZZ_CHECK(!"a where holds signals or functions");
    }
    check_where(c->l, len, ncaps);
    check_where(c->r, len, ncaps);
}

static void fuzz_where(const char *src, size_t len, uint64_t seed)
{
    ldx_arena *a;
    if (ldxi_arena_create(&a) != LDX_OK) return;
    ldxi_cond *c = NULL;
    size_t err_off = (size_t)-1;
    char err[256] = "";
    ldx_status st = ldxi_where_parse(src, mem_caps, 3, a, &c, &err_off, err, sizeof err);
    if (st == LDX_OK) {
        check_where(c, len, 3);
        env_ctx e = {seed, 0};
        for (int i = 0; i < 4; i++) {
            double vals[3] = {pick(&e, 0, i), pick(&e, 1, i), pick(&e, 2, i)};
            (void)ldxi_where_true(c, vals);
        }
    } else {
        FUZZ_CHECK(st == LDX_EPARSE || st == LDX_ENOMEM);
        FUZZ_CHECK(c == NULL && err_off <= len && err[0] != '\0');
    }
    ldxi_arena_destroy(a);
}

static void count_sig(int sig, void *ctx)
{
    FUZZ_CHECK(sig >= 0 && (size_t)sig < NSIGS);
    ++*(size_t *)ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* conditions are NUL-terminated strings: text after a NUL is not seen */
    char *src = malloc(size + 1);
    if (!src) return 0;
    memcpy(src, data, size);
    src[size] = '\0';
    size_t len = strlen(src);

    ldx_arena *a;
    if (ldxi_arena_create(&a) != LDX_OK) {
        free(src);
        return 0;
    }
    ldxi_cond *c = NULL;
    size_t err_off = (size_t)-1;
    char err[256];
    err[0] = '\0';
    ldx_status st = ldxi_cond_parse(src, sigs, NSIGS, a, &c, &err_off, err, sizeof err);
    if (st == LDX_OK) {
        FUZZ_CHECK(c != NULL);
        check_tree(c, len, 0);
        size_t nsig = 0;
        ldxi_cond_signals(c, count_sig, &nsig);
        ldxi_tracker *tr = NULL;
        size_t ntrack = ldxi_cond_trackers(c, a, &tr);
        FUZZ_CHECK(ntrack == 0 || tr != NULL);
        for (size_t i = 0; i < ntrack; i++) {
            FUZZ_CHECK(tr[i].kind == LDXI_F_THEN || tr[i].kind == LDXI_F_AFTER);
            FUZZ_CHECK(tr[i].a >= 0 && (size_t)tr[i].a < NSIGS);
            FUZZ_CHECK(tr[i].b >= 0 && (size_t)tr[i].b < NSIGS);
        }
        env_ctx e = {fuzz_hash(data, size), ntrack};
        ldxi_cond_env env = {&e,          e_count,  e_ranks,  e_first, e_stat,
                             e_last_line, e_others, e_track, e_lines};
        for (int i = 0; i < 4; i++) {
            double v = ldxi_cond_eval(c, &env);
            (void)ldxi_cond_true(v);
        }
    } else {
        FUZZ_CHECK(st == LDX_EPARSE || st == LDX_ENOMEM);
        FUZZ_CHECK(c == NULL);
        FUZZ_CHECK(err_off <= len);
        FUZZ_CHECK(err[0] != '\0');
        FUZZ_CHECK(memchr(err, '\0', sizeof err) != NULL);
    }
    ldxi_arena_destroy(a);
    fuzz_where(src, len, fuzz_hash(data, size));
    free(src);
    return 0;
}
