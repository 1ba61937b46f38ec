/* Which of Vectorscan's scanners logdx calls. The library is built with one scanner per
 * CPU generation (core2, corei7, avx2, avx512) and hs_scan() runs the newest the CPU
 * has. In 5.4.9 the newer ones miss matches the core i7 (SSE4.2) one finds:
 *  - the AVX-512 one, with training-log-ends-mid-run's step counter (named captures)
 *    and its tqdm pattern `(?:it/s|s/it)[\],]` in one database, reported nothing on
 *    "Training (epoch 0 / 20):   2%|▏ ... | 3/157 [00:59<38:11, 14.88s/it, loss", in
 *    exact mode as in prefilter mode (ldxi_hsdb_verify() caught it on a user's copy of
 *    that rule); the AVX2 and core i7 ones report it;
 *  - the AVX2 and AVX-512 ones, with two line-anchored patterns in one database, lose the
 *    second one's matches after a line of spaced digits (pform.c: the database never
 *    gets anchors since); the core i7 one does not.
 * Each scanner is exported under its name: on a CPU with SSE4.2 and POPCNT (any x86-64
 * of the last fifteen years) logdx calls the core i7 one, as fast as the others on the
 * bench log (88 ms per 64 MiB for the built-in database, all three), and the same one
 * everywhere a database is checked and used. */
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
    void *sse42 = __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt")
                      ? dlsym(RTLD_DEFAULT, "corei7_hs_scan")
                      : NULL;
    if (sse42) chosen = (scan_fn)sse42;
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
    return chosen == hs_scan ? "hs_scan" : "corei7_hs_scan";
}
#endif /* LDX_HAVE_HS */
