/* What a rule's condition reads of a finished scan (diagnose layer): counts, ranks, lines
 * and number series of its signals, and its sequences, through the condition's
 * environment (env.h). The one view of scan state conditions have. */
#include <math.h>

#include "env.h"

static const ldxi_sigstate *state(void *vctx, int sig)
{
    ldxi_env_ctx *e = vctx;
    return ldxi_scanner_state(e->s, e->rule, (size_t)sig);
}

static double env_count(void *vctx, int sig) { return (double)state(vctx, sig)->count; }

static double env_ranks(void *vctx, int sig) { return (double)state(vctx, sig)->nranks; }

static double env_first_line(void *vctx, int sig)
{
    const ldxi_sigstate *ss = state(vctx, sig);
    return ss->nfirst ? (double)ss->first[0].line : NAN;
}

uint64_t ldxi_sigstate_last_line(const ldxi_sigstate *ss)
{
    if (ss->has_last) return ss->last.line;
    return ss->nfirst ? ss->first[ss->nfirst - 1].line : 0;
}

static double env_last_line(void *vctx, int sig)
{
    const ldxi_sigstate *ss = state(vctx, sig);
    return ss->has_last || ss->nfirst ? (double)ldxi_sigstate_last_line(ss) : NAN;
}

static double env_stat(void *vctx, int sig, int cap, ldxi_func f, double arg)
{
    const ldxi_sigstate *ss = state(vctx, sig);
    return ldxi_numstat_get(ss->nums ? &ss->nums[cap] : NULL, f, arg);
}

/* Ranks where b hit and a did not. */
static double env_others(void *vctx, int a, int b)
{
    const ldxi_sigstate *sa = state(vctx, a), *sb = state(vctx, b);
    double n = 0;
    for (size_t w = 0; sb->rankbits && w < LDXI_RANK_BITS / 64; w++)
        n += __builtin_popcountll(sb->rankbits[w] & ~(sa->rankbits ? sa->rankbits[w] : 0));
    return n;
}

static double env_track(void *vctx, int t)
{
    ldxi_env_ctx *e = vctx;
    return (double)ldxi_scanner_track(e->s, e->rule, (size_t)t)->count;
}

static double env_lines(void *vctx)
{
    ldxi_env_ctx *e = vctx;
    return (double)ldx_scanner_lines(e->s);
}

void ldxi_scan_env(const ldx_scanner *s, size_t rule, ldxi_env_ctx *ctx, ldxi_cond_env *env)
{
    ctx->s = s;
    ctx->rule = rule;
    *env = (ldxi_cond_env){ctx,           env_count,  env_ranks, env_first_line, env_stat,
                           env_last_line, env_others, env_track, env_lines};
}

bool ldxi_rule_fires(const ldx_scanner *s, const ldxi_rule *r)
{
    if (r->cond) {
        ldxi_env_ctx ec;
        ldxi_cond_env env;
        ldxi_scan_env(s, r->index, &ec, &env);
        return ldxi_cond_true(ldxi_cond_eval(r->cond, &env));
    }
    for (size_t k = 0; k < r->info.nsignals; k++)
        if (r->info.signals[k].role == LDX_SIGNAL_SYMPTOM &&
            ldxi_scanner_state(s, r->index, k)->count)
            return true;
    return false;
}
