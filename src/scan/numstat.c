/* Number series (scan layer, part of the recorder): every number a signal's capture
 * reads, as aggregates (min, max, first, last, sum) and, per rank, a series that knows
 * whether it rises, falls or stays flat, with a decimated sample for display. The
 * conditions of the diagnosis read them through ldxi_numstat_get(). */
#include <math.h>
#include <string.h>

#include "scan_int.h"

static void add_sample(ldxi_series *se, double v)
{
    if (se->skip) {
        se->skip--;
        return;
    }
    if (se->nsamples == LDXI_SAMPLES) {
        for (uint32_t i = 0; i < LDXI_SAMPLES / 2; i++) se->samples[i] = se->samples[2 * i];
        se->nsamples = LDXI_SAMPLES / 2;
        se->stride = se->stride ? se->stride * 2 : 2;
    }
    se->samples[se->nsamples++] = v;
    se->skip = se->stride ? se->stride - 1 : 0;
}

static void track_jump(ldxi_numstat *ns, long step, double v)
{
    if (!isfinite(v)) return;
    if (ns->jump_open) {
        ns->jump_next = v;
        ns->jump_open = false;
    }
    uint32_t k = ns->nrecent < LDXI_JUMP_BASE ? (uint32_t)ns->nrecent : LDXI_JUMP_BASE;
    long lo = -1;
    double least = INFINITY;
    for (uint32_t i = 0; i < k; i++) {
        if (ns->recent_step[i] >= 0 && (lo < 0 || ns->recent_step[i] < lo)) lo = ns->recent_step[i];
        if (ns->recent[i] < least) least = ns->recent[i];
    }
    if (step >= 0 && lo >= 0 && step < lo) k = ns->nrecent = 0; /* the counter went back: a new run, a new level */
    bool none = !(ns->jump_from > 0);
    /* the median is at least the least of them: most readings are no jump by that alone */
    bool may = !(least > 0) || (v > least && (none || v / least > ns->jump_to / ns->jump_from));
    if (k >= 3 && may) {
        double w[LDXI_JUMP_BASE];
        memcpy(w, ns->recent, k * sizeof(double));
        for (uint32_t i = 1; i < k; i++)
            for (uint32_t j = i; j > 0 && w[j - 1] > w[j]; j--) {
                double t = w[j];
                w[j] = w[j - 1];
                w[j - 1] = t;
            }
        double base = k % 2 ? w[k / 2] : (w[k / 2 - 1] + w[k / 2]) / 2;
        /* a level: none of them more than 1.5 times their median (not a heavy-tailed series'
         * scatter, nor the climb of a spike already under way) */
        bool level = base > 0 && w[k - 1] <= 1.5 * base;
        if (level && v > base && (none || v / base > ns->jump_to / ns->jump_from)) {
            ns->jump_from = base;
            ns->jump_to = v;
            ns->jump_next = NAN;
            ns->jump_open = true;
        }
    }
    ns->recent_step[ns->nrecent % LDXI_JUMP_BASE] = step;
    ns->recent[ns->nrecent++ % LDXI_JUMP_BASE] = v;
}

void ldxi_numstat_add(ldxi_numstat *ns, int rank, long step, double v, bool jump)
{
    if (ns->n == 0) {
        ns->min = ns->max = ns->first = v;
    }
    if (v < ns->min) ns->min = v;
    if (v > ns->max) ns->max = v;
    ns->sum += v;
    ns->last = v;
    ns->n++;
    ldxi_series *se = NULL;
    for (uint32_t i = 0; i < ns->nseries && !se; i++) /* one series a rank */
        if (ns->series[i].rank == rank) se = &ns->series[i];
    if (!se) {
        if (ns->nseries == LDXI_SERIES_MAX) return;
        se = &ns->series[ns->nseries++];
        memset(se, 0, sizeof(*se));
        se->rank = rank;
    }
    if (se->n && step >= 0 && step == se->last_step) return; /* that step's value again */
    se->last_step = step;
    if (se->n) {
        double tol = 0.01 * fabs(se->last);
        if (v > se->last + tol) se->rises++;
        else if (v < se->last - tol) se->falls++;
        /* a value that stays put: within 0.1% of where its run began */
        if (fabs(v - se->flat_base) <= 0.001 * fabs(se->flat_base)) {
            se->flat++;
        } else {
            se->flat_base = v;
            se->flat = 1;
        }
    } else {
        se->first = v;
        se->flat_base = v;
        se->flat = 1;
    }
    se->last = v;
    se->n++;
    add_sample(se, v);
    if (jump) track_jump(ns, step, v);
}

static bool series_trend(const ldxi_series *se, ldxi_func f, double n)
{
    if (f == LDXI_F_FLAT) return se->flat >= n;
    uint32_t moves = f == LDXI_F_RISING ? se->rises : se->falls;
    uint32_t against = f == LDXI_F_RISING ? se->falls : se->rises;
    return se->n >= n && moves + 1 >= n && against == 0;
}

const ldxi_series *ldxi_numstat_trend(const ldxi_numstat *ns, ldxi_func f, double arg)
{
    const ldxi_series *best = NULL;
    for (uint32_t i = 0; i < ns->nseries; i++) {
        const ldxi_series *se = &ns->series[i];
        if ((f == LDXI_F_RISING || f == LDXI_F_FALLING || f == LDXI_F_FLAT) &&
            series_trend(se, f, arg))
            return se;
        if (!best || se->n > best->n) best = se;
    }
    return best;
}

double ldxi_numstat_get(const ldxi_numstat *ns, ldxi_func f, double arg)
{
    if (!ns || ns->n == 0)
        return f == LDXI_F_POINTS || f == LDXI_F_RISING || f == LDXI_F_FALLING || f == LDXI_F_FLAT
                   ? 0.0
                   : NAN;
    switch (f) {
    case LDXI_F_MAX: return ns->max;
    case LDXI_F_MIN: return ns->min;
    case LDXI_F_FIRST: return ns->first;
    case LDXI_F_LAST: return ns->last;
    case LDXI_F_SUM: return ns->sum;
    case LDXI_F_AVG: return ns->sum / (double)ns->n;
    case LDXI_F_POINTS: return (double)ns->n;
    case LDXI_F_GROWTH: return ns->last - ns->first;
    case LDXI_F_JUMP_FROM: return ns->jump_from > 0 ? ns->jump_from : NAN;
    case LDXI_F_JUMP_TO: return ns->jump_from > 0 ? ns->jump_to : NAN;
    case LDXI_F_JUMP_NEXT: return ns->jump_from > 0 ? ns->jump_next : NAN;
    case LDXI_F_RISING:
    case LDXI_F_FALLING:
    case LDXI_F_FLAT:
        for (uint32_t i = 0; i < ns->nseries; i++)
            if (series_trend(&ns->series[i], f, arg)) return 1.0;
        return 0.0;
    default: return NAN;
    }
}
