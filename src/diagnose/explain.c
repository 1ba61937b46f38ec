/* logdx explain: the reasoning behind one rule on one log, made visible. For a rule that
 * fired it shows which lines did it; for one that did not, which signal never matched
 * or which part of the condition was false, which is what a rule author needs. */
#include <stdlib.h>
#include <string.h>

#include "logdx/diagnose.h"
#include "env.h"

typedef struct {
    ldx_explanation *x;
    size_t cap;
    const ldxi_cond_env *env;
    const ldxi_cond_sig *sigs;
    ldx_status st;
} walk;

static void add_parts(walk *w, const ldxi_cond *c, int depth, bool needed);

/* The operands of a chain of one operator (a or b or c), listed at one level. */
static void add_chain(walk *w, const ldxi_cond *c, ldxi_ckind kind, int depth, bool needed,
                      bool want)
{
    if (c->kind == kind) {
        add_chain(w, c->l, kind, depth, needed, want);
        add_chain(w, c->r, kind, depth, needed, want);
        return;
    }
    /* under a false "and", only the false operands matter; under a false "or", all */
    bool v = ldxi_cond_true(ldxi_cond_eval(c, w->env));
    add_parts(w, c, depth, needed && v == want);
}

static void add_parts(walk *w, const ldxi_cond *c, int depth, bool needed)
{
    if (!c || w->st != LDX_OK) return;
    if (ldxi_grow((void **)&w->x->parts, &w->cap, w->x->nparts + 1, sizeof(ldx_cond_part)) !=
        LDX_OK) {
        w->st = LDX_ENOMEM;
        return;
    }
    char buf[512];
    ldxi_cond_print(c, w->sigs, buf, sizeof buf);
    ldx_cond_part *p = &w->x->parts[w->x->nparts++];
    p->text = ldxi_strdup(buf);
    p->value = ldxi_cond_eval(c, w->env);
    p->boolean = c->kind == LDXI_C_AND || c->kind == LDXI_C_OR || c->kind == LDXI_C_NOT ||
                 c->kind == LDXI_C_CMP || c->kind == LDXI_C_SIG ||
                 (c->kind == LDXI_C_FUNC &&
                  (c->func == LDXI_F_RISING || c->func == LDXI_F_FALLING ||
                   c->func == LDXI_F_FLAT || c->func == LDXI_F_BEFORE));
    p->depth = depth;
    size_t me = w->x->nparts - 1;
    bool v = ldxi_cond_true(p->value);
    if (c->kind == LDXI_C_AND || c->kind == LDXI_C_OR) {
        /* a false "and" fails through its false operands; a false "or" through all */
        add_chain(w, c->l, c->kind, depth + 1, needed && !v, false);
        add_chain(w, c->r, c->kind, depth + 1, needed && !v, false);
    } else if (c->kind == LDXI_C_NOT) {
        add_parts(w, c->l, depth + 1, false);
    } else if (c->kind == LDXI_C_CMP || c->kind == LDXI_C_ARITH) {
        /* a comparison's sides are shown when they are not plain numbers */
        if (c->l && c->l->kind != LDXI_C_NUM) add_parts(w, c->l, depth + 1, false);
        if (c->r && c->r->kind != LDXI_C_NUM) add_parts(w, c->r, depth + 1, false);
    }
    /* decisive: needed to be true, false, and not explained by a decisive operand */
    bool below = false;
    for (size_t i = me + 1; i < w->x->nparts; i++) below |= w->x->parts[i].decisive;
    /* p may have moved: the recursion above grows the array */
    w->x->parts[me].decisive = needed && !v && w->x->parts[me].boolean && !below;
}

ldx_status ldx_explain(ldx_scanner *s, const char *rule_id, ldx_explanation **out)
{
    ldx_scanner_flush(s);
    *out = NULL;
    long idx = ldx_ruleset_find(s->rs, rule_id);
    if (idx < 0) return LDX_ENOTFOUND;
    const ldxi_rule *r = s->rs->rules[idx];
    ldx_explanation *x = calloc(1, sizeof(*x));
    if (!x) return LDX_ENOMEM;
    x->rule = &r->info;
    x->signals = calloc(r->info.nsignals ? r->info.nsignals : 1, sizeof(ldx_signal_explain));
    ldxi_cond_sig *sigs = calloc(r->info.nsignals ? r->info.nsignals : 1, sizeof(*sigs));
    if (!x->signals || !sigs) {
        free(sigs);
        ldx_explanation_destroy(x);
        return LDX_ENOMEM;
    }
    x->nsignals = r->info.nsignals;
    for (size_t k = 0; k < r->info.nsignals; k++) {
        const ldxi_sigstate *ss = ldxi_scanner_state(s, (size_t)idx, k);
        ldx_signal_explain *se = &x->signals[k];
        se->signal = &r->info.signals[k];
        se->hits = ss->count;
        se->nranks = ss->nranks;
        if (ss->nfirst) {
            se->first_line = ss->first[0].line;
            se->first_text = ldxi_strdup(ss->first[0].text ? ss->first[0].text : "");
            se->last_line = ldxi_sigstate_last_line(ss);
        }
        sigs[k].name = r->info.signals[k].name;
        sigs[k].caps = r->sigs[k].capnames;
        sigs[k].ncaps = r->sigs[k].ncaps;
        const ldxi_sigc *sc = &r->sigs[k];
        if (sc->ncaps && (ss->nums || (ss->count && sc->numbered))) {
            se->caps = calloc(sc->ncaps, sizeof(ldx_capture_explain));
            for (size_t c = 0; se->caps && c < sc->ncaps; c++) {
                const ldxi_numstat *ns = ss->nums ? &ss->nums[c] : NULL;
                /* a capture the rule reads as a number on lines that matched, with no value:
                 * listed, so that explain can say its text was no number */
                if (!(ns && ns->n) && !(ss->count && sc->numbered && sc->numbered[c])) continue;
                ldx_capture_explain *ce = &se->caps[se->ncaps++];
                ce->name = sc->capnames[c];
                if (!ns || !ns->n) continue;
                ce->points = ns->n;
                ce->min = ns->min;
                ce->max = ns->max;
                ce->first = ns->first;
                ce->last = ns->last;
                ce->rising3 = ldxi_numstat_get(ns, LDXI_F_RISING, 3) > 0;
                ce->falling3 = ldxi_numstat_get(ns, LDXI_F_FALLING, 3) > 0;
            }
        }
    }
    ldxi_env_ctx ec;
    ldxi_cond_env env;
    ldxi_scan_env(s, (size_t)idx, &ec, &env);
    if (r->cond) {
        walk w = {x, 0, &env, sigs, LDX_OK};
        add_parts(&w, r->cond, 0, true);
        if (w.st != LDX_OK) {
            free(sigs);
            ldx_explanation_destroy(x);
            return w.st;
        }
    }
    x->fired = ldxi_rule_fires(s, r);
    free(sigs);
    *out = x;
    return LDX_OK;
}

void ldx_explanation_destroy(ldx_explanation *x)
{
    if (!x) return;
    for (size_t i = 0; i < x->nsignals; i++) {
        free(x->signals[i].first_text);
        free(x->signals[i].caps);
    }
    free(x->signals);
    for (size_t i = 0; i < x->nparts; i++) free(x->parts[i].text);
    free(x->parts);
    free(x);
}
