/* Which of Vectorscan's scanners logdx calls. The library is built with one scanner per
 * CPU generation (core2, corei7, avx2, avx512) and hs_scan() runs the newest the CPU
 * has. Vectorscan 5.4.9's AVX-512 one misses matches the others find: on an AVX-512
 * machine a database of two patterns, training-log-ends-mid-run's step counter (with
 * its named captures) and its tqdm one, `(?:it/s|s/it)[\],]`, reported nothing on
 * "Training (epoch 0 / 20):   2%|▏ ... | 3/157 [00:59<38:11, 14.88s/it, loss", where
 * the AVX2 and core i7 ones report the second (in exact mode as in prefilter mode;
 * ldxi_hsdb_verify() caught it on a user's copy of a built-in rule). Each scanner is
 * exported under its name, so on a CPU with AVX2 logdx calls the AVX2 one: as fast on
 * the bench log, and the same everywhere the database is checked and used. */
#ifdef LDX_HAVE_HS
#include <dlfcn.h>
#include <pthread.h>

#include <hs/hs.h>

#include "hsdb.h"

typedef hs_error_t (*scan_fn)(const hs_database_t *, const char *, unsigned, unsigned,
                              hs_scratch_t *, match_event_handler, void *);

static scan_fn chosen = hs_scan;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void choose(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    void *avx2 = __builtin_cpu_supports("avx2") ? dlsym(RTLD_DEFAULT, "avx2_hs_scan") : NULL;
    if (avx2) chosen = (scan_fn)avx2;
#endif
}

int ldxi_hs_scan(const void *db, const char *data, unsigned len, void *scratch,
                 ldxi_hs_on_match on_match, void *ctx)
{
    pthread_once(&once, choose);
    return chosen(db, data, len, 0, scratch, on_match, ctx);
}

const char *ldxi_hs_scanner(void)
{
    pthread_once(&once, choose);
    return chosen == hs_scan ? "hs_scan" : "avx2_hs_scan";
}
#endif /* LDX_HAVE_HS */
